/**
 * Section renderers of the known benchmarks, by results file name. Files without one (or whose
 * shape a renderer does not recognise) are shown by the generic renderer.
 */
import type { SectionRenderer } from "../model.js";
import { batchSection } from "./batch.js";
import { memorySection } from "./memory.js";
import { prepareSection } from "./prepare.js";
import { primitivesSection } from "./primitives.js";
import { proveSection } from "./prove.js";
import { registrySection } from "./registry.js";
import { sizeSection } from "./size.js";
import { verifySection } from "./verify.js";

export const SECTION_RENDERERS: Readonly<Record<string, SectionRenderer>> = {
  primitives: primitivesSection,
  memory: memorySection,
  prepare: prepareSection,
  prove: proveSection,
  verify: verifySection,
  batch: batchSection,
  size: sizeSection,
  registry: registrySection,
};

/** Order of sections in the page; other files follow alphabetically. */
export const SECTION_ORDER: readonly string[] = [
  "primitives",
  "memory",
  "prepare",
  "prove",
  "verify",
  "batch",
  "size",
  "registry",
  "serving",
];
