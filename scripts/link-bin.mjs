// Links this package's own `ssgkr` command into node_modules/.bin, so `npx ssgkr …` runs the
// built checkout from the project root and its subfolders (npm links only dependencies' bins).
import { chmodSync, mkdirSync, readlinkSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const binDir = join(root, "node_modules", ".bin");
const target = join(root, "bin", "ssgkr.js");
const link = join(binDir, "ssgkr");
const want = relative(binDir, target);
let have = null;
try {
  have = readlinkSync(link);
} catch {
  /* no link yet */
}
chmodSync(target, 0o755);
// Quiet when the link is already right; otherwise one line on stderr (stdout may be JSON, as in `npm pack --json`).
if (have !== want) {
  mkdirSync(binDir, { recursive: true });
  rmSync(link, { force: true });
  symlinkSync(want, link);
  console.error(`linked ${relative(root, link)} -> ${relative(root, target)}`);
}
