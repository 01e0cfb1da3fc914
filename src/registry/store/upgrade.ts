/**
 * `upgradeRegistry`: converts a registry directory of either mapping to its current format in
 * place (slot registries: format 1 → 2, store.ts; name-keyed registries: format 2 or 3 → 4,
 * name-upgrade.ts).
 */
import { NAME_MAPPING_ID } from "../name-key.js";
import { peekRegistryMapping } from "./name-store.js";
import { upgradeNameRegistry } from "./name-upgrade.js";
import type { Retention } from "./name-versions.js";
import { upgradeSlotRegistry, type UpgradeReport } from "./store.js";

export type { UpgradeReport } from "./store.js";

/**
 * Converts the registry at `dir` to its current format in place, in one write transaction:
 * a slot registry of format 1 gets its row checksums (format 2); a name-keyed registry of
 * format 2 gets its earlier-root storage (format 4: roots from the head at the upgrade on are
 * provable, with `retention`, default 1,000 batches and 30 days); one of format 3 gets its kept
 * values packed per batch, binary history rows and the change log in its own table (format 4:
 * every root of its window stays provable). A registry already current is left as it is
 * (`fromVersion` = `toVersion`).
 * @throws RegistryError `DB_MISSING`, `DB_NOT_READY`, `DB_CORRUPT`, `BAD_CONFIG` (retention).
 * @example
 *   const r = upgradeRegistry("./names");
 *   console.log(`format ${r.fromVersion} → ${r.toVersion}`);
 */
export function upgradeRegistry(dir: string, options: { readonly retention?: Partial<Retention> } = {}): UpgradeReport {
  if (peekRegistryMapping(dir) === NAME_MAPPING_ID) return upgradeNameRegistry(dir, options.retention);
  return upgradeSlotRegistry(dir);
}
