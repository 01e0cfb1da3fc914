/**
 * Opens a registry directory with the store of its mapping: name-keyed (`record-leaf-v2`,
 * name-store.ts) or slot (`record-leaf-v1`, store.ts).
 */
import { RegistryError } from "../errors.js";
import { NAME_MAPPING_ID, SLOT_MAPPING_ID } from "../name-key.js";
import { NameStore, peekRegistryMapping } from "./name-store.js";
import { RegistryStore } from "./store.js";

/** A registry of either mapping, as opened by `openRegistry`. */
export type AnyRegistry =
  | { readonly mapping: "record-leaf-v2"; readonly store: NameStore }
  | { readonly mapping: "record-leaf-v1"; readonly store: RegistryStore };

/** Mapping of an existing registry directory, or undefined when it holds none. @throws RegistryError `DB_CORRUPT`. */
export function registryMapping(dir: string): "record-leaf-v2" | "record-leaf-v1" | undefined {
  const m = peekRegistryMapping(dir);
  if (m === undefined) return undefined;
  if (m === NAME_MAPPING_ID || m === SLOT_MAPPING_ID) return m;
  throw new RegistryError("DB_CORRUPT", `registry at ${dir} has the unknown mapping ${JSON.stringify(m)}`, { dir });
}

/**
 * Opens an existing registry of either mapping.
 * @throws RegistryError `DB_MISSING`, `DB_CORRUPT`.
 */
export function openRegistry(dir: string, options: { readOnly?: boolean } = {}): AnyRegistry {
  const m = registryMapping(dir);
  if (m === NAME_MAPPING_ID) return { mapping: m, store: NameStore.open(dir, options) };
  return { mapping: SLOT_MAPPING_ID, store: RegistryStore.open(dir, options) };
}
