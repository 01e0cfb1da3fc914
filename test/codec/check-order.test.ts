import { test } from "node:test";
import { P } from "../../src/field/koalabear.js";
import { encodeProof } from "../../src/codec/index.js";
import { assertDecodeError, resultOf, setU16, setU32 } from "./fixtures.js";

// Shape [2, 1] as in decode-errors: round bytes at 174, 255, 372; layer 1 count at 368; 485 bytes.
const valid = (): Uint8Array => encodeProof(resultOf([2, 1]));

type Fault = (b: Uint8Array) => void;

/** Faults in the order the decoder checks them (compat-v1 §14.3), each with the error it alone causes. */
const FAULTS: Array<{ name: string; apply: Fault; code: string; details?: Record<string, unknown> }> = [
  { name: "magic", apply: (b) => (b[3] = 0), code: "BadMagic" },
  {
    name: "encoding version",
    apply: (b) => setU16(b, 8, 2),
    code: "UnsupportedProofEncodingVersion",
    details: { version: 2 },
  },
  {
    name: "protocol version",
    apply: (b) => setU16(b, 10, 3),
    code: "UnsupportedProtocolVersion",
    details: { version: 3 },
  },
  { name: "proof kind", apply: (b) => (b[12] = 1), code: "UnsupportedProofKind", details: { kind: 1 } },
  {
    name: "declared length",
    apply: (b) => setU32(b, 13, 1000),
    code: "DeclaredLengthMismatch",
    details: { declared: 1000, actual: 485 },
  },
  { name: "identity op kind", apply: (b) => (b[17] = 9), code: "UnknownOpKindTag", details: { tag: 9, offset: 17 } },
  {
    name: "circuit version",
    apply: (b) => setU16(b, 22, 0),
    code: "UnsupportedCircuitVersion",
    details: { version: 0 },
  },
  {
    name: "leaf encoding version",
    apply: (b) => setU16(b, 24, 7),
    code: "UnsupportedLeafEncodingVersion",
    details: { version: 7 },
  },
  { name: "strategy", apply: (b) => (b[28] = 1), code: "UnsupportedLayerStrategy", details: { strategy: 1 } },
  { name: "commitment fe", apply: (b) => setU32(b, 33, P), code: "NonCanonicalFieldElement", details: { offset: 33 } },
  { name: "old_root fe", apply: (b) => setU32(b, 61, P), code: "NonCanonicalFieldElement", details: { offset: 61 } },
  { name: "new_root fe", apply: (b) => setU32(b, 121, P), code: "NonCanonicalFieldElement", details: { offset: 121 } },
  { name: "statement op kind", apply: (b) => (b[125] = 3), code: "UnknownOpKindTag", details: { tag: 3, offset: 125 } },
  {
    name: "value_digest fe",
    apply: (b) => setU32(b, 162, P),
    code: "NonCanonicalFieldElement",
    details: { offset: 162 },
  },
  { name: "layer count", apply: (b) => setU32(b, 166, 9), code: "OversizedCount", details: { offset: 166 } },
  { name: "round count", apply: (b) => setU32(b, 170, 4), code: "OversizedCount", details: { offset: 170 } },
  {
    name: "arity in layer 0 round 1",
    apply: (b) => (b[255] = 4),
    code: "BadRoundPolyArity",
    details: { layer: 0, round: 1, got: 4 },
  },
  {
    name: "coefficient in layer 0 round 1",
    apply: (b) => setU32(b, 300, P),
    code: "NonCanonicalFieldElement",
    details: { offset: 300 },
  },
  {
    name: "eval_y of layer 0",
    apply: (b) => setU32(b, 364, P),
    code: "NonCanonicalFieldElement",
    details: { offset: 364 },
  },
  { name: "round count of layer 1", apply: (b) => setU32(b, 368, 2), code: "OversizedCount", details: { offset: 368 } },
  {
    name: "arity in layer 1",
    apply: (b) => (b[372] = 6),
    code: "BadRoundPolyArity",
    details: { layer: 1, round: 0, got: 6 },
  },
  {
    name: "eval_y of layer 1",
    apply: (b) => setU32(b, 481, P),
    code: "NonCanonicalFieldElement",
    details: { offset: 481 },
  },
];

test("each fault alone gives its own error", () => {
  for (const f of FAULTS) {
    const b = valid();
    f.apply(b);
    assertDecodeError(b, f.code, f.details);
  }
});

test("with two faults the earlier check is reported, for every ordered pair", () => {
  for (let i = 0; i < FAULTS.length; i++) {
    for (let j = i + 1; j < FAULTS.length; j++) {
      const b = valid();
      FAULTS[j]!.apply(b);
      FAULTS[i]!.apply(b);
      assertDecodeError(b, FAULTS[i]!.code, FAULTS[i]!.details);
    }
  }
});

test("statement op kind mismatch precedes value_digest and layer checks", () => {
  const b = valid();
  b[125] = 2;
  setU32(b, 134, P);
  setU32(b, 166, 0xffffffff);
  assertDecodeError(b, "OpKindMismatch", { identity: 1, statement: 2 });
});

test("header checks precede everything, and HeaderTooShort precedes the magic", () => {
  assertDecodeError(new Uint8Array(16).fill(0xff), "HeaderTooShort", { have: 16 });
  const b = valid();
  b[0] = 0;
  setU16(b, 8, 9);
  setU32(b, 13, 3);
  b[17] = 200;
  assertDecodeError(b, "BadMagic");
});

test("trailing bytes are checked last", () => {
  const src = valid();
  const b = new Uint8Array(src.length + 4);
  b.set(src);
  setU32(b, 13, b.length);
  setU32(b, 481, P);
  assertDecodeError(b, "NonCanonicalFieldElement", { offset: 481 });
  b[255] = 0;
  assertDecodeError(b, "BadRoundPolyArity", { layer: 0, round: 1, got: 0 });
});

test("a read past the end inside the fixed region is reported before later faults", () => {
  // Declares 100 bytes and has 100: Truncated at 97, although byte 125 and later would be wrong too.
  const b = valid().slice(0, 100);
  setU32(b, 13, 100);
  assertDecodeError(b, "Truncated", { offset: 97 });
  // A non-canonical fe before the end wins over the truncation.
  setU32(b, 93, P);
  assertDecodeError(b, "NonCanonicalFieldElement", { offset: 93 });
});
