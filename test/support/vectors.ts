/** Loads the Plonky3 constants and known-answer vectors copied from the specification's vectors folder. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
// Compiled to dist/test/support; the JSON stays in test/vectors.
const path = join(here, "..", "..", "..", "test", "vectors", "koalabear_poseidon2.json");

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const vectors: any = JSON.parse(readFileSync(path, "utf8"));
