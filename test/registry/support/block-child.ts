/**
 * Child process for the prove-block crash tests. Does nothing without arguments.
 *
 *   node block-child.js DB UPDATES OUT STEP kill   SIGKILLs itself right after step STEP of proveBlockToDir
 *   node block-child.js DB UPDATES OUT STEP hold   prints `held STEP` after step STEP and blocks (up to 120 s)
 *   … kill v3 / … hold v3                           the same for a profile v3 block
 *
 * Steps: recorded, writing, written, committed, renamed, cleared (src/registry/block-dir.ts).
 */
import { readFileSync, writeSync } from "node:fs";
import { proveBlockToDir, type BlockStep } from "../../../src/registry/block-dir.js";
import { parseBlockUpdates } from "../../../src/registry/name-block.js";
import { NameStore } from "../../../src/registry/store/name-store.js";

const [db, updates, out, at, mode, profile] = process.argv.slice(2);
if (db !== undefined && updates !== undefined && out !== undefined && at !== undefined) {
  const store = NameStore.open(db);
  proveBlockToDir(store, parseBlockUpdates(readFileSync(updates, "utf8")), out, {
    profile: profile === "v3" ? "v3" : "v2",
    onStep: (step: BlockStep) => {
      if (step !== at) return;
      if (mode === "hold") {
        writeSync(1, `held ${step}\n`);
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120_000);
      }
      process.kill(process.pid, "SIGKILL");
    },
  });
  await store.close();
}
