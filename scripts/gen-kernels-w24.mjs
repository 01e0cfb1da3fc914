// The width-24 part of scripts/gen-kernels.mjs (which imports it and writes its file with the
// others): Poseidon2 of width 24 over four states in the SIMD lanes, the permutation of the
// Merkle leaf sponge of the `-l24` WHIR sets (docs/pcs.md §4.3). Run `node scripts/gen-kernels.mjs`.

const range = (n) => Array.from({ length: n }, (_, i) => i);
const ptr = (n) => [n, "ptr"];
const u32 = (n) => [n, "u32"];

/** The width-24 entries of gen-kernels-abi.mjs's LAYOUT (after the extended constants region). */
export const LAYOUT_W24 = [
  [
    "Poseidon2-24 constants region of the width-24 leaf kernels (u32 words, Montgomery form; Plonky3 0.4.x width-24 constants)",
  ],
  ["P24_RC_INIT_WORD", 0, "RC24_init[r][i] (4 initial external rounds) at P24_RC_INIT_WORD + 24r + i."],
  ["P24_RC_INT_WORD", 96, "RC24_int[j] (23 internal rounds) at P24_RC_INT_WORD + j."],
  ["P24_RC_TERM_WORD", 119, "RC24_term[r][i] (4 terminal external rounds) at P24_RC_TERM_WORD + 24r + i."],
  ["POSEIDON2_24_CONSTANT_WORDS", 215, "Words of the Poseidon2-24 constants region."],
  ["MERKLE24_WORK_WORDS", 96, "Words of the scratch region of the width-24 leaf kernels (four transposed states)."],
];

/** The width-24 entries of gen-kernels-abi.mjs's KernelExports (before `pcs_merkle_level`). */
export const EXPORTS_W24 = [
  [
    "pcs_merkle_leaves24",
    [ptr("out"), ptr("src"), u32("logN"), u32("k"), u32("width"), ptr("consts24"), ptr("work")],
    "void",
    "Leaf digests under the Poseidon2-24 sponge at rate 16, four rows per SIMD vector (docs/pcs.md §4.3).",
  ],
  [
    "pcs_merkle_leaves24_rows",
    [
      ptr("out"),
      ptr("src"),
      u32("logN"),
      u32("k"),
      u32("width"),
      ptr("consts24"),
      ptr("work"),
      u32("from"),
      u32("count"),
    ],
    "void",
    "The width-24 leaf digests of rows [from, from + count) only.",
  ],
  [
    "pcs_merkle_leaves24_pair",
    [
      ptr("out"),
      ptr("first"),
      u32("firstWidth"),
      ptr("second"),
      u32("secondWidth"),
      u32("logN"),
      u32("k"),
      ptr("consts24"),
      ptr("work"),
    ],
    "void",
    "Width-24 leaf digests over two codewords: row j of the first, then row j of the second (docs/pcs.md §12.3).",
  ],
  [
    "poseidon2_permute24",
    [ptr("states"), u32("n"), ptr("consts24"), ptr("work")],
    "void",
    "n canonical states of 24 words back to back, in place (the width-24 permutation of the leaf kernels).",
  ],
];

/**
 * The width-24 internal diagonal V24 = [−2, 1, 2, 1/2, 3, 4, −1/2, −3, −4, 2^−8, 2^−2, 2^−3,
 * 2^−4, 2^−5, 2^−6, 2^−24, −2^−8, −2^−3, −2^−4, −2^−5, −2^−6, −2^−7, −2^−9, −2^−24] (Plonky3
 * 0.4.x `default_koalabear_poseidon2_24`) as s'_i = sum ± f(s_i), applied with additions and shifts.
 */
const DIAGONAL_24 = [
  ["vSub", (x) => `vDouble(${x})`],
  ["vAdd", (x) => x],
  ["vAdd", (x) => `vDouble(${x})`],
  ["vAdd", (x) => `halve(${x}, 1)`],
  ["vAdd", (x) => `vTriple(${x})`],
  ["vAdd", (x) => `vDouble(vDouble(${x}))`],
  ["vAdd", (x) => `negHalve(${x}, 1)`],
  ["vSub", (x) => `vTriple(${x})`],
  ["vSub", (x) => `vDouble(vDouble(${x}))`],
  ...[8, 2, 3, 4, 5, 6, 24].map((k) => ["vAdd", (x) => `halve(${x}, ${k})`]),
  ...[8, 3, 4, 5, 6, 7, 9, 24].map((k) => ["vAdd", (x) => `negHalve(${x}, ${k})`]),
];

/**
 * One external step of the width-24 body on the state in memory (vector k at ptr + 16k): with
 * round constants at `c` each lane is first replaced by its S-box; then M4 on each chunk of four
 * vectors while the column sums accumulate, then a second pass adds the column sums.
 */
function x4w24External(withConstants, I) {
  const lines = [];
  lines.push(`${I}let c0 = i32x4.splat(0), c1 = c0, c2 = c0, c3 = c0;`);
  for (let q = 0; q < 6; q++) {
    lines.push(`${I}{`);
    lines.push(
      `${I}  let ${range(4)
        .map((j) => `x${j} = v128.load(ptr, ${16 * (4 * q + j)})`)
        .join(", ")};`,
    );
    if (withConstants)
      lines.push(
        `${I}  ${range(4)
          .map((j) => `x${j} = sbox(x${j}, c + ${4 * (4 * q + j)});`)
          .join(" ")}`,
      );
    lines.push(`${I}  const p01 = vAdd(x0, x1), p23 = vAdd(x2, x3), t = vAdd(p01, p23);`);
    lines.push(`${I}  const u = vAdd(t, x1), v = vAdd(t, x3);`);
    lines.push(
      `${I}  const y0 = vAdd(u, p01), y1 = vAdd(u, vDouble(x2)), y2 = vAdd(v, p23), y3 = vAdd(v, vDouble(x0));`,
    );
    lines.push(
      `${I}  ${range(4)
        .map((j) => `v128.store(ptr, y${j}, ${16 * (4 * q + j)});`)
        .join(" ")}`,
    );
    lines.push(`${I}  c0 = vAdd(c0, y0); c1 = vAdd(c1, y1); c2 = vAdd(c2, y2); c3 = vAdd(c3, y3);`);
    lines.push(`${I}}`);
  }
  for (let q = 0; q < 6; q++)
    for (let j = 0; j < 4; j++)
      lines.push(`${I}v128.store(ptr, vAdd(v128.load(ptr, ${16 * (4 * q + j)}), c${j}), ${16 * (4 * q + j)});`);
  return lines;
}

/** The 23 internal rounds of the width-24 body: lane 0 in a register, lanes 1..23 in memory, the next round's sum accumulated while they are updated. */
function x4w24Internal(I) {
  const lines = [];
  lines.push(`${I}let s0 = v128.load(ptr, 0);`);
  lines.push(`${I}let a0 = v128.load(ptr, 16), a1 = v128.load(ptr, 32);`);
  for (let i = 3; i < 24; i++)
    lines.push(`${I}a${i % 2 ? 0 : 1} = vAdd(a${i % 2 ? 0 : 1}, v128.load(ptr, ${16 * i}));`);
  lines.push(`${I}let part = vAdd(a0, a1);`);
  lines.push(`${I}for (let j: usize = 0; j < 23; j++) {`);
  lines.push(
    `${I}  // t = (s0 + RC24_int[j])³, S = t + Σ_(i≥1) s_i; s'0 = S − 2t (V24[0] = −2), s'_i = S + V24[i]·s_i.`,
  );
  lines.push(`${I}  const t = sbox(s0, consts + P24_RC_INT_BYTES + (j << 2));`);
  lines.push(`${I}  const sum = vAdd(part, t);`);
  lines.push(`${I}  s0 = vSub(sum, vDouble(t));`);
  lines.push(`${I}  let b0 = i32x4.splat(0), b1 = b0;`);
  for (let i = 1; i < 24; i++) {
    const [op, f] = DIAGONAL_24[i];
    lines.push(`${I}  {`);
    lines.push(`${I}    const y = ${op}(sum, ${f(`v128.load(ptr, ${16 * i})`)});`);
    lines.push(`${I}    v128.store(ptr, y, ${16 * i}); b${i % 2} = vAdd(b${i % 2}, y);`);
    lines.push(`${I}  }`);
  }
  lines.push(`${I}  part = vAdd(b0, b1);`);
  lines.push(`${I}}`);
  lines.push(`${I}v128.store(ptr, s0, 0);`);
  return lines;
}

/** The generated file poseidon2-x4w24.ts, under `header(what)` (gen-kernels.mjs). */
export function x4w24File(header) {
  let out = header(
    "Poseidon2 of width 24 over four states in the four SIMD lanes (24 v128 in memory, vector k = element k of each state).",
  );
  out += `//
// Constants region: P24_RC_INIT_WORD, P24_RC_INT_WORD, P24_RC_TERM_WORD of ../abi (Montgomery form,
// Plonky3 0.4.x width-24 constants): the leading M_E, 4 initial external rounds, the 23 internal
// rounds, 4 terminal external rounds. The 24 vectors do not fit the registers, so the state
// stays in memory: each external step reads and writes every vector twice (S-boxes and M4 with
// the column sums, then the sums added); each internal round reads and writes vectors 1..23 once
// and accumulates the next round's sum on the way.
import { P24_RC_INIT_WORD, P24_RC_INT_WORD, P24_RC_TERM_WORD } from "../abi";
import { vAdd, vDouble, vSub, vTriple } from "./field";
import { halve, negHalve, sbox } from "./poseidon2-ops";

const P24_RC_INIT_BYTES: usize = <usize>P24_RC_INIT_WORD << 2;
const P24_RC_INT_BYTES: usize = <usize>P24_RC_INT_WORD << 2;
const P24_RC_TERM_BYTES: usize = <usize>P24_RC_TERM_WORD << 2;

/** The external linear layer alone (before the first round). */
// @ts-ignore: decorator
@inline function linear24(ptr: usize): void {
${x4w24External(false, "  ").join("\n")}
}

/** An external round with its 24 round constants at c. */
// @ts-ignore: decorator
@inline function external24(ptr: usize, c: usize): void {
${x4w24External(true, "  ").join("\n")}
}

/** The 23 internal rounds. */
// @ts-ignore: decorator
@inline function internal24(ptr: usize, consts: usize): void {
${x4w24Internal("  ").join("\n")}
}

/**
 * Permutes four width-24 states kept transposed in Montgomery form at ptr (vector k = element k
 * of the four states, 24 vectors = 384 bytes) in place.
 */
export function permuteMont4w24(ptr: usize, consts: usize): void {
  linear24(ptr);
  for (let r: usize = 0; r < 4; r++) external24(ptr, consts + P24_RC_INIT_BYTES + r * 96);
  internal24(ptr, consts);
  for (let r: usize = 0; r < 4; r++) external24(ptr, consts + P24_RC_TERM_BYTES + r * 96);
}
`;
  return out;
}
