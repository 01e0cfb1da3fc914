/**
 * Signed checkpoints: the signed-note key hash, verifier key and signature against the published
 * Go sumdb/note vector (PeterNeumann), a checkpoint's signature checked by an independent
 * computation (node:crypto over the exact bytes of its three lines), tampered, wrongly keyed and
 * malformed checkpoints refused with their codes, key files (mode 0600, never overwritten), and
 * `verifyRecordProof` taking its trusted root from a checkpoint.
 */
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createHash, createPublicKey, sign, verify } from "node:crypto";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RegistryError } from "../../src/registry/errors.js";
import { formatRoot, rootBytes } from "../../src/registry/root.js";
import { checkpointText, verifyCheckpoint } from "../../src/registry/checkpoint/checkpoint.js";
import { formatVerifierKey, keyHash, openNote, parseVerifierKey } from "../../src/registry/checkpoint/note.js";
import {
  generateSigningKey,
  readSigningKey,
  signCheckpoint,
  signingKeyOfSeed,
  signingKeyText,
} from "../../src/registry/checkpoint/signing-key.js";
import { proveNameRead } from "../../src/counterparty/prove.js";
import { verifyRecordProof } from "../../src/registry/verify-record.js";
import { freshDir, makeRegistry, RECORDS, removeDir } from "../web/support.js";

// The example of golang.org/x/mod/sumdb/note (package documentation): signer key, verifier key,
// text and the signed note it prints.
const GO_SIGNER = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
const GO_VERIFIER = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
const GO_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const GO_NOTE = `${GO_TEXT}\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

const dir = freshDir("ssgkr-checkpoint-");
after(() => removeDir(dir));

const ROOT = Uint32Array.from([1, 2, 3, 4, 5, 6, 7, 2130706432]);

test("known answer: the Go sumdb/note vector — key hash, verifier key, key file and signature", () => {
  // the key part follows the fourth "+" (base64 may itself hold "+")
  const seed = Buffer.from(GO_SIGNER.split("+").slice(4).join("+"), "base64").subarray(1);
  const key = signingKeyOfSeed("PeterNeumann", seed);
  writeFileSync(join(dir, "go.key"), `${GO_SIGNER}\n`);
  assert.equal(readSigningKey(join(dir, "go.key")).verifierKey, GO_VERIFIER);
  // the signature line of the Go note, recomputed: base64(key hash ‖ Ed25519(text))
  const signature = sign(null, Buffer.from(GO_TEXT, "utf8"), key.privateKey);
  assert.equal(
    `\u2014 PeterNeumann ${Buffer.concat([Buffer.from(key.hash), signature]).toString("base64")}`,
    GO_NOTE.split("\n").at(-2),
  );
  assert.equal(key.verifierKey, GO_VERIFIER);
  assert.equal(signingKeyText("PeterNeumann", seed), `${GO_SIGNER}\n`);
  // the key hash computed independently: SHA-256(name ‖ 0x0A ‖ 0x01 ‖ key)[0..4]
  const independent = createHash("sha256")
    .update(Buffer.concat([Buffer.from("PeterNeumann\n"), Buffer.from([1]), Buffer.from(key.publicKey)]))
    .digest()
    .subarray(0, 4)
    .toString("hex");
  assert.equal(independent, "c74f20a3");
  assert.equal(Buffer.from(keyHash("PeterNeumann", key.publicKey)).toString("hex"), independent);
  assert.equal(formatVerifierKey("PeterNeumann", key.publicKey), GO_VERIFIER);
  const vk = parseVerifierKey(GO_VERIFIER);
  assert.deepEqual(openNote(GO_NOTE, vk), { ok: true, text: GO_TEXT });
  assert.equal(openNote(GO_NOTE.replace("cryptography", "Cryptography"), vk).ok, false);
});

test("a checkpoint: three lines (origin, size, base64 root) and a signature node:crypto verifies over exactly them", () => {
  const key = generateSigningKey(join(dir, "a.key"), "example.com/registry");
  const note = signCheckpoint(key, { size: 7, root: ROOT });
  const text = `example.com/registry\n7\n${Buffer.from(rootBytes(ROOT)).toString("base64")}\n`;
  assert.equal(checkpointText({ origin: "example.com/registry", size: 7, root: formatRoot(ROOT) }), text);
  assert.ok(note.startsWith(`${text}\n\u2014 example.com/registry `), note);
  assert.ok(note.endsWith("\n") && note.split("\n").length === 6, note);
  const blob = Buffer.from(note.split("\n")[4]!.split(" ")[2]!, "base64");
  assert.equal(blob.length, 68);
  assert.deepEqual(new Uint8Array(blob.subarray(0, 4)), key.hash);
  const vk = key.verifierKey;
  const plus1 = vk.indexOf("+"),
    plus2 = vk.indexOf("+", plus1 + 1);
  assert.equal(vk.slice(plus1 + 1, plus2), Buffer.from(key.hash).toString("hex"));
  const raw = Buffer.from(vk.slice(plus2 + 1), "base64").subarray(1);
  const pub = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") }, format: "jwk" });
  assert.equal(
    verify(null, Buffer.from(text, "utf8"), pub, blob.subarray(4)),
    true,
    "the signature covers the three lines",
  );
  const v = verifyCheckpoint(note, key.verifierKey);
  assert.ok(v.ok, JSON.stringify(v));
  assert.deepEqual([v.origin, v.size, formatRoot(v.root)], ["example.com/registry", 7, formatRoot(ROOT)]);
  assert.equal(
    signCheckpoint(key, { size: 7, root: ROOT }),
    note,
    "Ed25519 signatures are deterministic: one head, one checkpoint",
  );
});

test("tampered, wrongly keyed and malformed checkpoints are refused with their codes", () => {
  const key = generateSigningKey(join(dir, "b.key"), "example.com/b");
  const other = generateSigningKey(join(dir, "c.key"), "example.com/c");
  const sameName = generateSigningKey(join(dir, "d.key"), "example.com/b");
  const note = signCheckpoint(key, { size: 3, root: ROOT });
  const lines = note.split("\n");
  const code = (n: string, k = key.verifierKey) => {
    const v = verifyCheckpoint(n, k);
    return v.ok ? "ACCEPT" : v.code;
  };
  assert.equal(code(note), "ACCEPT");
  assert.equal(code(note.replace("\n3\n", "\n4\n")), "CHECKPOINT_BAD_SIGNATURE", "another size");
  const otherRoot = Buffer.from(rootBytes(Uint32Array.from([9, 2, 3, 4, 5, 6, 7, 8]))).toString("base64");
  assert.equal(
    code([lines[0], lines[1], otherRoot, ...lines.slice(3)].join("\n")),
    "CHECKPOINT_BAD_SIGNATURE",
    "another root",
  );
  const sig = Buffer.from(lines[4]!.split(" ")[2]!, "base64");
  sig[10]! ^= 1;
  assert.equal(
    code([...lines.slice(0, 4), `\u2014 example.com/b ${sig.toString("base64")}`, ""].join("\n")),
    "CHECKPOINT_BAD_SIGNATURE",
    "a flipped signature bit",
  );
  assert.equal(code(note, other.verifierKey), "CHECKPOINT_WRONG_KEY", "another key");
  assert.equal(code(note, sameName.verifierKey), "CHECKPOINT_WRONG_KEY", "another key of the same name");
  assert.equal(code(note.slice(0, -1)), "CHECKPOINT_MALFORMED", "no final newline");
  assert.equal(code(note.replace("\n\n", "\n")), "CHECKPOINT_MALFORMED", "no blank line");
  assert.equal(code(note.replace("\u2014 ", "-- ")), "CHECKPOINT_MALFORMED", "not an em dash");
  assert.equal(
    code(signCheckpoint(key, { size: 3, root: ROOT }).replace(/^(.*\n)3\n/, "$103\n")),
    "CHECKPOINT_BAD_SIGNATURE",
  );
  // a note validly signed by the key whose text is no checkpoint (two lines; a size with a leading zero)
  const signedText = (text: string) =>
    `${text}\n\u2014 example.com/b ${Buffer.concat([Buffer.from(key.hash), sign(null, Buffer.from(text, "utf8"), key.privateKey)]).toString("base64")}\n`;
  assert.equal(code(signedText(`example.com/b\n${lines[2]}\n`)), "CHECKPOINT_MALFORMED");
  assert.equal(code(signedText(`example.com/b\n03\n${lines[2]}\n`)), "CHECKPOINT_MALFORMED");
  assert.equal(
    code(signedText(`example.com/b\n3\n${Buffer.alloc(32, 0xff).toString("base64")}\n`)),
    "CHECKPOINT_MALFORMED",
    "a root word ≥ p",
  );
  assert.equal(
    code(signedText(`example.com/b\n3\n${lines[2]}\nan extension line\n`)),
    "ACCEPT",
    "extension lines are read and ignored",
  );
  assert.throws(
    () => verifyCheckpoint(note, "not a key"),
    (e: unknown) => e instanceof RegistryError && e.code === "BAD_VERIFIER_KEY",
  );
  assert.throws(
    () => verifyCheckpoint(note, key.verifierKey.replace(/\+[0-9a-f]{8}\+/, "+00000000+")),
    (e: unknown) => e instanceof RegistryError && e.code === "BAD_VERIFIER_KEY" && /key hash 00000000/.test(e.message),
  );
});

test("key files: mode 0600, never overwritten, read back to the same key; bad files and origins refused", () => {
  const path = join(dir, "k.key");
  const key = generateSigningKey(path, "example.com/k");
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.throws(
    () => generateSigningKey(path, "example.com/k"),
    (e: unknown) => e instanceof RegistryError && e.code === "KEY_FILE_EXISTS",
  );
  assert.equal(readSigningKey(path).verifierKey, key.verifierKey);
  assert.throws(
    () => generateSigningKey(join(dir, "x.key"), "has space"),
    (e: unknown) => e instanceof RegistryError && e.code === "BAD_ORIGIN",
  );
  assert.throws(
    () => generateSigningKey(join(dir, "y.key"), "a+b"),
    (e: unknown) => e instanceof RegistryError && e.code === "BAD_ORIGIN",
  );
  writeFileSync(
    join(dir, "bad.key"),
    "PRIVATE+KEY+example.com/k+00000000+AQmi6UzMmJDyrV614+jFn0T647uHzZPWmDL2VS5ijqmP\n",
  );
  assert.throws(
    () => readSigningKey(join(dir, "bad.key")),
    (e: unknown) => e instanceof RegistryError && e.code === "BAD_SIGNING_KEY",
  );
  assert.throws(
    () => readSigningKey(join(dir, "missing.key")),
    (e: unknown) => e instanceof RegistryError && e.code === "BAD_SIGNING_KEY",
  );
});

test("verifyRecordProof takes the trusted root from a signed checkpoint; a tampered or wrongly keyed one is refused", () => {
  const store = makeRegistry(dir, 16);
  const key = generateSigningKey(join(dir, "r.key"), "example.com/r");
  const other = generateSigningKey(join(dir, "r2.key"), "example.com/r");
  const head = store.head();
  const checkpoint = signCheckpoint(key, { size: head.batch, root: head.root });
  const p = proveNameRead(store, RECORDS.live);
  const claim = { name: RECORDS.live, value: "https://github.com/left-pad/left-pad", depth: 16 };
  const proof = p.proof;
  const ok = verifyRecordProof({ ...claim, checkpoint, verifierKey: key.verifierKey }, p.request, proof);
  assert.ok(ok.ok, ok.ok ? "" : `${ok.code}: ${ok.reason}`);
  assert.deepEqual(ok.checkpoint, { origin: "example.com/r", size: head.batch });
  const code = (v: { ok: boolean; code?: string }) => (v.ok ? "ACCEPT" : v.code);
  assert.equal(
    code(
      verifyRecordProof(
        {
          ...claim,
          checkpoint: checkpoint.replace(`\n${head.batch}\n`, `\n${head.batch + 1}\n`),
          verifierKey: key.verifierKey,
        },
        p.request,
        proof,
      ),
    ),
    "CHECKPOINT_BAD_SIGNATURE",
  );
  assert.equal(
    code(verifyRecordProof({ ...claim, checkpoint, verifierKey: other.verifierKey }, p.request, proof)),
    "CHECKPOINT_WRONG_KEY",
  );
  assert.equal(
    code(verifyRecordProof({ ...claim, checkpoint: "garbage", verifierKey: key.verifierKey }, p.request, proof)),
    "CHECKPOINT_MALFORMED",
  );
  // a validly signed checkpoint of another root: the proof is not about the trusted root
  const stale = signCheckpoint(key, { size: head.batch - 1, root: ROOT });
  assert.equal(
    code(verifyRecordProof({ ...claim, checkpoint: stale, verifierKey: key.verifierKey }, p.request, proof)),
    "ROOT_NOT_TRUSTED",
  );
  // a bare trusted root stays possible; both given must agree
  assert.equal(code(verifyRecordProof({ ...claim, trustedRoot: formatRoot(head.root) }, p.request, proof)), "ACCEPT");
  assert.equal(
    code(
      verifyRecordProof({ ...claim, trustedRoot: ROOT, checkpoint, verifierKey: key.verifierKey }, p.request, proof),
    ),
    "ROOT_NOT_TRUSTED",
  );
  assert.throws(
    () => verifyRecordProof({ ...claim, checkpoint } as never, p.request, proof),
    (e: unknown) => e instanceof RegistryError && e.code === "BAD_VERIFIER_KEY",
  );
  assert.throws(
    () => verifyRecordProof(claim as never, p.request, proof),
    (e: unknown) => e instanceof RegistryError && e.code === "BAD_ROOT",
  );
  void store.close();
});

test("Ed25519 in the browser-safe opener follows RFC 8032 as node:crypto does: a signature with S + L, a key off the curve and a flipped bit are refused, never thrown", () => {
  const vk = parseVerifierKey(GO_VERIFIER);
  const line = GO_NOTE.split("\n").at(-2)!;
  const blob = Buffer.from(line.slice(line.lastIndexOf(" ") + 1), "base64");
  const sig = blob.subarray(4);
  // S + L (the group order), little-endian: the same point equation, a non-canonical scalar
  const L = (1n << 252n) + 27742317777372353535851937790883648493n;
  let s = 0n;
  for (let i = 31; i >= 0; i--) s = (s << 8n) | BigInt(sig[32 + i]!);
  const t = s + L;
  const malleated = Buffer.from(sig);
  for (let i = 0; i < 32; i++) malleated[32 + i] = Number((t >> BigInt(8 * i)) & 0xffn);
  const pub = createPublicKey({
    key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(vk.publicKey).toString("base64url") },
    format: "jwk",
  });
  assert.equal(verify(null, Buffer.from(GO_TEXT), pub, malleated), false, "node:crypto refuses S + L");
  const note = (signature: Uint8Array) =>
    `${GO_TEXT}\n\u2014 PeterNeumann ${Buffer.concat([blob.subarray(0, 4), signature]).toString("base64")}\n`;
  assert.equal(openNote(note(sig), vk).ok, true);
  assert.equal((openNote(note(malleated), vk) as { code?: string }).code, "CHECKPOINT_BAD_SIGNATURE");
  const flipped = Buffer.from(sig);
  flipped[5]! ^= 1;
  assert.equal((openNote(note(flipped), vk) as { code?: string }).code, "CHECKPOINT_BAD_SIGNATURE");
  // a 32-byte key that is no curve point (y = 2 has no x on edwards25519)
  const offCurve = new Uint8Array(32);
  offCurve[0] = 2;
  const bad = { ...vk, publicKey: offCurve };
  assert.equal((openNote(note(sig), bad) as { code?: string }).code, "CHECKPOINT_BAD_SIGNATURE");
});

test("signCheckpoint: a note signed again (kept or not) is the same bytes as one signed by a fresh copy of the key, for 200 heads twice over", () => {
  const seed = Uint8Array.from({ length: 32 }, (_, i) => i * 7 + 1);
  const key = signingKeyOfSeed("example.com/kept", seed);
  const heads = Array.from({ length: 200 }, (_, i) => ({
    size: i,
    root: Uint32Array.from({ length: 8 }, (_, w) => (i * 131 + w) % 1000),
  }));
  const first = heads.map((h) => signCheckpoint(key, h));
  for (let round = 0; round < 2; round++)
    heads.forEach((h, i) => {
      assert.equal(signCheckpoint(key, h), first[i], `head ${i}, round ${round}`);
      assert.equal(signCheckpoint(signingKeyOfSeed("example.com/kept", seed), h), first[i]);
      assert.equal(
        openNote(first[i]!, parseVerifierKey(key.verifierKey)).ok,
        true,
        `head ${i}: the signature verifies`,
      );
    });
  // another key's note of the same head is its own
  const other = signingKeyOfSeed(
    "example.com/kept",
    seed.map((b) => b ^ 1),
  );
  assert.notEqual(signCheckpoint(other, heads[0]!), first[0]);
});
