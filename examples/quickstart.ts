/**
 * Quickstart: prove and verify the golden fixture F(membership, 24, 5) of compat-v1 §17 and
 * compare the proof bytes with the reference engine's golden proof (§18: 176,948 bytes, SHA-256
 * below). Run after `npm run build`: `node dist/examples/quickstart.js`.
 */
import { createHash } from "node:crypto";
import { encodeSyncResult, goldenFixture, OpKind, P, prepare, provePrepared, verifyEncoded } from "../src/index.js";

const GOLDEN_SHA256 = "35f9ccd12be12a1e4edee206b88fedfa9aa4bf4971757bff60667ecf02a09587";

const prepared = prepare(OpKind.Membership, { depth: 24 }); // compile + commitment, once per kind
const request = goldenFixture(OpKind.Membership, 24, 5n); // operation, witness, public inputs
const bytes = encodeSyncResult(prepared, provePrepared(prepared, request)); // inner-proof-v1
const sha256 = createHash("sha256").update(bytes).digest("hex");
console.log(`proof: ${bytes.length} bytes, sha256 ${sha256}`);
console.log(`reference engine's golden proof: ${sha256 === GOLDEN_SHA256 ? "identical" : "DIFFERENT"}`);

const verdict = verifyEncoded(prepared, request, bytes);
console.log(`verify: ${verdict.ok ? "ACCEPT" : `REJECT ${verdict.code}`}`);

// The same bytes against a request that claims another root are rejected.
const oldRoot = Uint32Array.from(request.publicInputs.oldRoot);
oldRoot[0] = (oldRoot[0]! + 1) % P;
const other = { ...request, publicInputs: { ...request.publicInputs, oldRoot, newRoot: oldRoot } };
const tampered = verifyEncoded(prepared, other, bytes);
console.log(`verify against another root: ${tampered.ok ? "ACCEPT" : `REJECT ${tampered.code}`}`);
