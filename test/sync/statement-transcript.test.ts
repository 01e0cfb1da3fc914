/**
 * Fiat–Shamir binding of the statement (src/sync/statement-transcript.ts, compat-v1 §11 steps
 * 1–5): every absorbed item moves the first challenge, and the schedule matches a known answer.
 * Prover and verifier share this function, so a dropped or altered observe would not show as a
 * failed honest proof: it shows here, as a statement the challenges no longer depend on.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../src/field/koalabear.js";
import { extEq, type Ext } from "../../src/field/extension.js";
import type { Circuit, Layer } from "../../src/gkr/circuit.js";
import { statementTranscript } from "../../src/sync/statement-transcript.js";
import type { PublicInputs } from "../../src/statement/types.js";
import { DuplexChallenger } from "../../src/transcript/challenger.js";
import { PROOF_DOMAIN_TAG } from "../../src/transcript/domains.js";
import { OpKind, opKindTag } from "../../src/statement/types.js";
import { DEPTH, fixture, prepared } from "../support/forge.js";

const prep = prepared(OpKind.Membership);
const base = {
  circuit: prep.circuit,
  kind: prep.kind as OpKind | number,
  depth: DEPTH,
  commitment: prep.commitment,
  pub: fixture(OpKind.Membership).publicInputs,
  outputs: new Uint32Array(2 ** prep.shape.layerWidthBits[0]!) as ArrayLike<number>,
};
type Statement = typeof base;

function firstChallenge(s: Statement): Ext {
  return statementTranscript(s.circuit, s.kind, s.depth, s.commitment, s.pub, s.outputs).sampleExt();
}

const bump = (d: ArrayLike<number>, i = 0): Uint32Array => Uint32Array.from(d, (v, k) => (k === i ? (v + 1) % P : v));
const withLayer = (c: Circuit, i: number, layer: Layer): Circuit => ({
  ...c,
  layers: c.layers.map((l, k) => (k === i ? layer : l)),
});
const pubWith = (change: Partial<PublicInputs>): PublicInputs => ({ ...base.pub, ...change });

test("the schedule is that of compat-v1 §11 steps 1-5, item by item", () => {
  const s = base;
  const t = DuplexChallenger.withDomain(PROOF_DOMAIN_TAG);
  t.observe(typeof s.kind === "string" ? opKindTag(s.kind) : s.kind);
  t.observe(s.depth);
  t.observe(s.circuit.inputWidthBits);
  t.observe(s.circuit.layers.length);
  for (const layer of s.circuit.layers) {
    t.observe(layer.widthBits);
    t.observe(layer.gateKind.length);
    t.observe(layer.constWire.length);
  }
  for (const d of [s.commitment, s.pub.oldRoot, s.pub.newRoot]) for (const v of d) t.observe(v);
  t.observe(s.pub.opKindTag);
  t.observe(Number(s.pub.assetId & 0xffffffffn));
  t.observe(Number(s.pub.assetId >> 32n));
  for (const v of s.pub.valueDigest) t.observe(v);
  for (let i = 0; i < s.outputs.length; i++) t.observe(s.outputs[i]!);
  assert.deepEqual(firstChallenge(s), t.sampleExt());
});

test("asset_id is absorbed as its low and high 32-bit halves, each reduced mod p", () => {
  const high = 0xffff_fff0n; // ≥ p: reduced
  const low = 0x8000_0005n; // ≥ p: reduced
  const pub = pubWith({ assetId: (high << 32n) | low });
  const t = DuplexChallenger.withDomain(PROOF_DOMAIN_TAG);
  const s = { ...base, pub };
  t.observe(typeof s.kind === "string" ? opKindTag(s.kind) : s.kind);
  t.observe(s.depth);
  t.observe(s.circuit.inputWidthBits);
  t.observe(s.circuit.layers.length);
  for (const layer of s.circuit.layers) {
    t.observe(layer.widthBits);
    t.observe(layer.gateKind.length);
    t.observe(layer.constWire.length);
  }
  for (const d of [s.commitment, pub.oldRoot, pub.newRoot]) for (const v of d) t.observe(v);
  t.observe(pub.opKindTag);
  t.observe(Number(low) % P);
  t.observe(Number(high) % P);
  for (const v of pub.valueDigest) t.observe(v);
  for (let i = 0; i < s.outputs.length; i++) t.observe(s.outputs[i]!);
  assert.deepEqual(firstChallenge(s), t.sampleExt());
});

test("every absorbed item binds the first challenge", () => {
  const c = base.circuit;
  const layer0 = c.layers[0]!;
  const last = c.layers.length - 1;
  const extraGate: Layer = { ...layer0, gateKind: new Uint8Array(layer0.gateKind.length + 1) };
  const extraConst: Layer = { ...c.layers[last]!, constWire: new Uint32Array(c.layers[last]!.constWire.length + 1) };
  const outputs = new Uint32Array(base.outputs.length);
  outputs[outputs.length - 1] = 1;
  const variants: [string, Statement][] = [
    ["kind", { ...base, kind: OpKind.NonMembership }],
    ["depth", { ...base, depth: DEPTH + 1 }],
    ["input width", { ...base, circuit: { ...c, inputWidthBits: c.inputWidthBits + 1 } }],
    ["layer count", { ...base, circuit: { ...c, layers: c.layers.slice(0, last) } }],
    [
      "layer width",
      { ...base, circuit: withLayer(c, last, { ...c.layers[last]!, widthBits: c.layers[last]!.widthBits + 1 }) },
    ],
    ["gate count", { ...base, circuit: withLayer(c, 0, extraGate) }],
    ["const count", { ...base, circuit: withLayer(c, last, extraConst) }],
    ["commitment", { ...base, commitment: bump(base.commitment, 7) }],
    ["old root", { ...base, pub: pubWith({ oldRoot: bump(base.pub.oldRoot, 7) }) }],
    ["new root", { ...base, pub: pubWith({ newRoot: bump(base.pub.newRoot, 7) }) }],
    ["op kind tag", { ...base, pub: pubWith({ opKindTag: 2 }) }],
    ["asset id low half", { ...base, pub: pubWith({ assetId: base.pub.assetId ^ 1n }) }],
    ["asset id high half", { ...base, pub: pubWith({ assetId: base.pub.assetId | (1n << 40n) }) }],
    ["asset id top bit", { ...base, pub: pubWith({ assetId: base.pub.assetId | (1n << 63n) }) }],
    ["value digest", { ...base, pub: pubWith({ valueDigest: bump(base.pub.valueDigest, 7) }) }],
    ["last claimed output", { ...base, outputs }],
  ];
  const reference = firstChallenge(base);
  for (const [name, s] of variants) assert.ok(!extEq(firstChallenge(s), reference), `${name} is not bound`);
});

test("the claimed outputs are absorbed one by one, all of them and no more", () => {
  const short = { ...base, outputs: new Uint32Array(base.outputs.length - 1) };
  const long = { ...base, outputs: new Uint32Array(base.outputs.length + 1) };
  const reference = firstChallenge(base);
  assert.ok(!extEq(firstChallenge(short), reference));
  assert.ok(!extEq(firstChallenge(long), reference));
  // Plain arrays and typed arrays are the same outputs.
  assert.deepEqual(firstChallenge({ ...base, outputs: Array.from(base.outputs) }), reference);
});
