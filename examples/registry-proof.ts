/**
 * A registry proof: open a registry in a temporary directory, insert a record, prove its
 * membership (request + inner-proof-v1 bytes), and verify the bytes against the request.
 * Run after `npm run build`: `node dist/examples/registry-proof.js`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RegistryStore, formatRoot, insertRecord, proveStatement } from "../src/registry/index.js";
import { prepare, toOpRequest, verifyEncoded } from "../src/sync/index.js";

const dir = mkdtempSync(join(tmpdir(), "ssgkr-example-"));
const store = RegistryStore.openOrCreate(join(dir, "registry")); // depth 24, leaf bound 31
insertRecord(store, "left-pad", "https://github.com/left-pad/left-pad");
const p = proveStatement(store, "membership", { name: "left-pad" }); // request + encoded proof
await store.close();
rmSync(dir, { recursive: true, force: true });

const prepared = prepare(p.request.kind, { depth: p.request.depth, leafMaxFields: p.request.leafMaxFields });
const verdict = verifyEncoded(prepared, toOpRequest(p.request), p.proof);
console.log(`membership of "left-pad" at slot ${p.slot}, root ${formatRoot(p.request.oldRoot)}`);
console.log(`proof: ${p.proof.length} bytes; verify: ${verdict.ok ? "ACCEPT" : `REJECT ${verdict.code}`}`);
