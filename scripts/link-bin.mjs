// Links this package's own `ssgkr` command into node_modules/.bin, so `npx ssgkr …` runs the
// built checkout from the project root and its subfolders (npm links only dependencies' bins).
import { mkdirSync, rmSync, symlinkSync, chmodSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const binDir = join(root, "node_modules", ".bin");
const target = join(root, "bin", "ssgkr.js");
const link = join(binDir, "ssgkr");
mkdirSync(binDir, { recursive: true });
rmSync(link, { force: true });
symlinkSync(relative(binDir, target), link);
chmodSync(target, 0o755);
console.log(`linked ${relative(root, link)} -> ${relative(root, target)}`);
