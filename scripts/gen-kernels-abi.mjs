// The ABI part of scripts/gen-kernels.mjs (which imports it and writes src/kernels/abi.ts): the
// constants-region and job layouts, the round flags and the export signatures, as one
// description. Run `node scripts/gen-kernels.mjs`.
import { EXPORTS_W24, LAYOUT_W24 } from "./gen-kernels-w24.mjs";

// ------------------------------------------------------------------------------------ the ABI

/** Layout constants: [name, value, doc]. Words unless the name says BYTES. */
const LAYOUT = [
  ["Poseidon2 constants region (u32 words, Montgomery form; compat-v1 §3 constants, written once by the host)"],
  ["RC_INIT_WORD", 0, "RC_init[r][i] (4 initial external rounds) at RC_INIT_WORD + 16r + i."],
  ["RC_INT_WORD", 64, "RC_int[j] (20 internal rounds) at RC_INT_WORD + j."],
  ["RC_TERM_WORD", 84, "RC_term[r][i] (4 terminal external rounds) at RC_TERM_WORD + 16r + i."],
  ["POSEIDON2_CONSTANT_WORDS", 148, "Words of the Poseidon2 constants region."],
  ["Extended constants region of the sequential hashing kernels (written by `sponge_constants_init`)"],
  [
    "SPONGE_DIAG_WORD",
    148,
    "At SPONGE_DIAG_WORD + 8i: internal diagonal entries of lanes 4i..4i+3, then their Shoup companions.",
  ],
  ["SPONGE_MASK_WORD", 180, "The lane mask (0, −1, −1, −1)."],
  ["SPONGE_CONSTANT_WORDS", 184, "Words of the extended constants region."],
  ...LAYOUT_W24,
  ["Multi-sponge job region (u32 words, 16-byte aligned)"],
  ["JOB_STATES", 0, "State of lane i (16 canonical words) at JOB_STATES + 16i."],
  ["JOB_LANES", 64, "Lane i: source byte pointer at JOB_LANES + 2i, word count at JOB_LANES + 2i + 1."],
  ["JOB_WORK", 72, "Working states (Montgomery form) kept between calls."],
  ["SPONGE_JOB_WORDS", 136, "Words of a job region."],
  ["GKR layer kernels: `gkr_round` flags"],
  ["ROUND_FOLD", 1, "Bind the previous challenge before evaluating (the table length halves)."],
  ["ROUND_POW", 2, "The layer has Pow3 gates: Pw is live and the round has degree 4 (five evaluations)."],
  ["ROUND_VBASE", 4, "V is still the base table Vb (no challenge bound into it yet)."],
  ["ROUND_RAW", 8, "Write the evaluations g(0..m) instead of the interpolated coefficients."],
  [
    "ROUND_CLAIM",
    16,
    "With ROUND_FOLD: g(1) = g_prev(r) − g(0), node 1 not evaluated. g_prev(r) from the previous coefficients in the result words, or with ROUND_RAW as the caller wrote it at result word OUT_CLAIM.",
  ],
  [
    "ROUND_NOA",
    32,
    "With ROUND_POW: A is zero and never read or written (its pointer is unused); the round is Σ Pw·V³.",
  ],
  ["GKR layer kernels: output region and layer descriptor"],
  ["OUT_WORDS", 128, "Words of a kernel output region."],
  ["OUT_RESULT", 80, "Results start at word OUT_RESULT (words [0, OUT_RESULT) are accumulators)."],
  ["OUT_CLAIM", 24, "The claim g_prev(r) (4 words) at result word OUT_CLAIM."],
  ["LAYER_DESC_WORDS", 8, "Layer descriptor: linPtr, nLin, mulPtr, nMul, powPtr, nPow, constPtr, nConst."],
];

const ptr = (n) => [n, "ptr"];
const u32 = (n) => [n, "u32"];
/** Export signatures by group: [name, params, returns ("void" | "u32" | "i32"), doc]. */
export const EXPORTS = {
  KernelExports: [
    [
      "to_mont",
      [ptr("dst"), ptr("src"), u32("n")],
      "void",
      "dst[i] = src[i]·2^32 mod p (any u32 input is reduced); dst may equal src.",
    ],
    ["from_mont", [ptr("dst"), ptr("src"), u32("n")], "void", "dst[i] = src[i]·2^−32 mod p; dst may equal src."],
    ["first_noncanonical", [ptr("src"), u32("n")], "i32", "Index of the first word ≥ p, or −1."],
    ["base_mul", [ptr("dst"), ptr("a"), ptr("b"), u32("n")], "void", "dst[i] = mont(a[i], b[i])."],
    ["inner_product", [ptr("a"), ptr("b"), u32("n")], "u32", "Σ mont(a[i], b[i])."],
    ["ext_mul", [ptr("dst"), ptr("a"), ptr("b"), u32("n")], "void", "Elementwise extension product (plane layout)."],
    ["fold_base", [ptr("dst"), ptr("src"), u32("h"), u32("r")], "void", "dst[j] = src[j] + r·(src[h+j] − src[j])."],
    [
      "fold_base_ext",
      [ptr("dst"), ptr("src"), u32("h"), u32("r0"), u32("r1"), u32("r2"), u32("r3")],
      "void",
      "Base table, extension challenge.",
    ],
    [
      "fold_ext",
      [ptr("dst"), ptr("src"), u32("h"), u32("r0"), u32("r1"), u32("r2"), u32("r3")],
      "void",
      "Extension table, extension challenge.",
    ],
    [
      "poseidon2_permute",
      [ptr("states"), u32("n"), ptr("consts")],
      "void",
      "n canonical states of 16 words back to back, in place.",
    ],
    ["poseidon2_constant_words", [], "u32", "POSEIDON2_CONSTANT_WORDS."],
    [
      "ntt_forward",
      [ptr("data"), u32("logN"), u32("width"), ptr("twiddles"), ptr("companions")],
      "void",
      "Forward NTT in place, natural order, width 1 or 4, canonical (twiddles and Shoup companions from the caller).",
    ],
    [
      "pcs_mobius",
      [ptr("data"), u32("logN"), u32("width")],
      "void",
      "Hypercube evaluations to multilinear coefficients in place, width 1 or 4, canonical.",
    ],
    [
      "pcs_mobius_low",
      [ptr("data"), u32("logN"), u32("width"), u32("from"), u32("to")],
      "void",
      "The Möbius transform's bits below min(2^logN, 4096) on elements [from, to).",
    ],
    [
      "pcs_mobius_high",
      [ptr("data"), u32("logN"), u32("width"), u32("c0"), u32("c1")],
      "void",
      "The Möbius transform's higher bits on the columns [c0, c1) of min(2^logN, 4096).",
    ],
    [
      "pcs_fold",
      [ptr("dst"), ptr("src"), u32("n"), u32("mode"), ptr("alpha")],
      "void",
      "Interleaved extension fold by a constant (mode 0: evaluations, 1: coefficients).",
    ],
    [
      "pcs_round",
      [ptr("f"), ptr("w"), u32("n"), ptr("out")],
      "void",
      "The WHIR sumcheck round: h(0)·R^−1 and h(2)·R^−1 into out[0..8).",
    ],
    [
      "pcs_rows",
      [ptr("dst"), ptr("src"), u32("logN"), u32("k"), u32("width"), u32("from"), u32("to")],
      "void",
      "A codeword's values arranged as rows of 2^k points (docs/pcs.md §4.1), rows [from, to).",
    ],
    [
      "pcs_horner",
      [ptr("coeffs"), u32("n"), ptr("ztable"), ptr("out")],
      "void",
      "F(z) for interleaved extension coefficients, z given by its constant table.",
    ],
    [
      "pcs_eq_add",
      [ptr("acc"), ptr("tmp"), ptr("tables"), u32("nvars")],
      "void",
      "acc += c·eq(point, ·) over the hypercube, interleaved extension.",
    ],
    [
      "pcs_eq_add_base",
      [ptr("acc"), ptr("tmp"), ptr("tables"), u32("nvars")],
      "void",
      "acc += c·eq(point, ·) over the hypercube for a point of base-field coordinates (Montgomery form).",
    ],
    [
      "pcs_eq_add_base_many",
      [ptr("acc"), ptr("tmp"), ptr("tables"), u32("nvars"), u32("count")],
      "void",
      "pcs_eq_add_base for `count` points whose tables (4 + nvars words each) lie back to back.",
    ],
    [
      "pcs_eq_write_many",
      [ptr("acc"), ptr("tmp"), ptr("tables"), u32("nvars"), u32("count")],
      "void",
      "acc = Σ_q c_q·eq(point_q, ·) for `count` ≥ 1 extension points whose pcs_eq_add tables lie back to back (one pass over acc).",
    ],
    [
      "pcs_fold_rows",
      [ptr("rows"), u32("n"), u32("k"), u32("width"), ptr("xinv"), ptr("tables"), ptr("out"), ptr("work")],
      "void",
      "The verifier's fold of n opened rows (2^k values of `width` words each): 2^k times each row's folded value.",
    ],
    [
      "pcs_fold_base",
      [ptr("dst"), ptr("src"), u32("n"), u32("mode"), ptr("alpha")],
      "void",
      "pcs_fold of a base-field table into an interleaved extension one.",
    ],
    [
      "pcs_round_base",
      [ptr("f"), ptr("w"), u32("n"), ptr("out")],
      "void",
      "pcs_round with f a base-field table: h(0)·R^−1 and h(2)·R^−1 into out[0..8).",
    ],
    [
      "pcs_horner_base",
      [ptr("coeffs"), u32("n"), ptr("ztable"), ptr("out")],
      "void",
      "F(z) for base-field coefficients at an extension point given by its constant table.",
    ],
    [
      "pcs_eval_base",
      [ptr("coeffs"), u32("n"), ptr("powers"), u32("block"), ptr("ztable"), ptr("out")],
      "void",
      "F(z) for base-field coefficients by blocks of `block` terms, z^l (l < block) at `powers` (Montgomery form) and z^block by its constant table.",
    ],
    [
      "pcs_merkle_leaves",
      [ptr("out"), ptr("src"), u32("logN"), u32("k"), u32("width"), ptr("consts"), ptr("work")],
      "void",
      "Leaf digests of a natural-order codeword's rows of 2^k elements, four rows per SIMD vector (docs/pcs.md §4.3).",
    ],
    [
      "pcs_merkle_leaves_rows",
      [
        ptr("out"),
        ptr("src"),
        u32("logN"),
        u32("k"),
        u32("width"),
        ptr("consts"),
        ptr("work"),
        u32("from"),
        u32("count"),
      ],
      "void",
      "The leaf digests of rows [from, from + count) only.",
    ],
    [
      "pcs_merkle_leaves_pair",
      [
        ptr("out"),
        ptr("first"),
        u32("firstWidth"),
        ptr("second"),
        u32("secondWidth"),
        u32("logN"),
        u32("k"),
        ptr("consts"),
        ptr("work"),
      ],
      "void",
      "Leaf digests over two codewords: row j of the first, then row j of the second (docs/pcs.md §12.3).",
    ],
    ...EXPORTS_W24,
    [
      "pcs_merkle_level",
      [ptr("out"), ptr("src"), u32("parents"), ptr("consts"), ptr("work")],
      "void",
      "One Merkle level: node i = h_node of digests 2i and 2i + 1.",
    ],
    [
      "ntt_twiddles",
      [ptr("twiddles"), ptr("companions"), u32("count"), u32("first"), u32("ratio")],
      "void",
      "A run first·ratio^k (k < count) of a twiddle table, with Shoup companions.",
    ],
    [
      "ntt_bit_reverse",
      [ptr("data"), u32("logN"), u32("width"), u32("from"), u32("count")],
      "void",
      "Part [from, from + count) of the NTT's bit-reversal permutation.",
    ],
    [
      "ntt_stages",
      [ptr("data"), u32("logN"), u32("width"), ptr("twiddles"), ptr("companions")],
      "void",
      "The NTT's butterfly stages on bit-reversed data.",
    ],
    [
      "ntt_stages_low",
      [
        ptr("data"),
        u32("logN"),
        u32("width"),
        ptr("twiddles"),
        ptr("companions"),
        u32("first"),
        u32("from"),
        u32("to"),
      ],
      "void",
      "The NTT's stages of half-span 2^first up to below min(2^logN, 4096) on elements [from, to).",
    ],
    [
      "ntt_stages_high",
      [ptr("data"), u32("logN"), u32("width"), ptr("twiddles"), ptr("companions"), u32("c0"), u32("c1")],
      "void",
      "The NTT's longer stages on the columns [c0, c1) of min(2^logN, 4096).",
    ],
    [
      "ntt_bit_reverse_copy",
      [
        ptr("dst"),
        ptr("src"),
        u32("logN"),
        u32("width"),
        u32("count"),
        u32("r"),
        ptr("scratch"),
        u32("from"),
        u32("to"),
      ],
      "void",
      "dst = the bit-reversal permutation of src's count elements zero-padded to 2^logN (logN ≥ 8), tiles [from, to) of 2^(logN − 8), after the NTT's first r stages (count ≤ 2^(logN − r), r ≤ 4).",
    ],
    [
      "ntt_bit_reverse_tiles",
      [ptr("data"), u32("logN"), u32("width"), ptr("scratch"), u32("from"), u32("to")],
      "void",
      "The bit-reversal permutation of 2^logN (logN ≥ 8) elements in place, tiles [from, to) of 2^(logN − 8) with their partners.",
    ],
    [
      "ntt_stages_pass",
      [
        ptr("data"),
        u32("logN"),
        u32("width"),
        ptr("twiddles"),
        ptr("companions"),
        u32("logH"),
        u32("s"),
        ptr("scratch"),
        u32("from"),
        u32("to"),
      ],
      "void",
      "The NTT's s stages of half-span 2^logH and above on units [from, to) of 2^(logN − s − 4), in a scratch of 2^(s + 4)·width words.",
    ],
    ["pcs_lift", [ptr("dst"), ptr("src"), u32("n")], "void", "Base-field values as interleaved extension values."],
    [
      "pcs_scale_add",
      [ptr("dst"), ptr("base"), ptr("ext"), u32("n"), ptr("alpha")],
      "void",
      "dst[i] = ext[i] + α·base[i] over n values (base field, extension, α's table of 16 words).",
    ],
  ],
  HashKernelExports: [
    ["poseidon2_permute_one", [ptr("state"), ptr("consts")], "void", "One canonical state in place."],
    [
      "poseidon2_grind",
      [ptr("template"), u32("lane"), u32("mask"), u32("start"), u32("count"), ptr("consts"), ptr("work")],
      "i32",
      "The least i < count whose candidate start + i at `lane` permutes to word 7 & mask = 0, or -1.",
    ],
    [
      "poseidon2_sponge",
      [ptr("state"), ptr("src"), u32("n"), ptr("consts")],
      "void",
      "Overwrite sponge of n words into the state.",
    ],
    [
      "poseidon2_sponge_x2",
      [ptr("job"), u32("begin"), ptr("consts")],
      "void",
      "Two sponges interleaved over a job region.",
    ],
    [
      "poseidon2_sponge_x4",
      [ptr("job"), u32("begin"), ptr("consts")],
      "void",
      "Four sponges in the SIMD lanes over a job region.",
    ],
    ["sponge_job_words", [], "u32", "SPONGE_JOB_WORDS."],
    ["sponge_constant_words", [], "u32", "SPONGE_CONSTANT_WORDS."],
    [
      "sponge_constants_init",
      [ptr("consts")],
      "void",
      "Writes the extended constants (diagonal, Shoup companions, mask).",
    ],
    ["interleave_words", [ptr("dst"), ptr("table"), u32("k"), u32("n")], "void", "dst[k·i + j] = src_j[i]."],
    ["first_noncanonical", [ptr("src"), u32("n")], "i32", "Index of the first word ≥ p, or −1."],
    ["poseidon2_constant_words", [], "u32", "POSEIDON2_CONSTANT_WORDS."],
    [
      "poseidon2_permute",
      [ptr("states"), u32("n"), ptr("consts")],
      "void",
      "n canonical states of 16 words back to back, in place.",
    ],
  ],
  GkrKernelExports: [
    ["gkr_out_words", [], "u32", "OUT_WORDS."],
    ["gkr_eq", [ptr("dst"), ptr("point"), u32("nbits")], "void", "scale·eq(point, ·), interleaved."],
    [
      "gkr_weights",
      [ptr("dst"), ptr("tmp"), ptr("claims"), u32("nclaims"), u32("nbits")],
      "void",
      "Claim weights Σ c_k·eq(z_k, ·).",
    ],
    [
      "gkr_fill",
      [ptr("desc"), ptr("W"), ptr("Vb"), ptr("Aaos"), ptr("Paos"), ptr("A"), ptr("Pw"), u32("n"), u32("nOut")],
      "void",
      "Phase-1 tables from the gate lists.",
    ],
    [
      "gkr_round",
      [
        ptr("A"),
        ptr("Pw"),
        ptr("Vx"),
        ptr("Vb"),
        u32("len"),
        u32("r0"),
        u32("r1"),
        u32("r2"),
        u32("r3"),
        u32("flags"),
        ptr("out"),
      ],
      "void",
      "One fused bind-and-evaluate sumcheck round.",
    ],
    [
      "gkr_phase2_start",
      [ptr("desc"), ptr("W"), ptr("eqx"), ptr("Maos"), ptr("M"), u32("n"), u32("nOut"), ptr("out")],
      "void",
      "Start of phase 2 for a layer with Mul gates.",
    ],
    [
      "gkr_mle_base",
      [ptr("Vb"), ptr("tmp"), ptr("point"), u32("nbits"), ptr("out")],
      "void",
      "MLE of a base table at an extension point.",
    ],
    [
      "gkr_eval_layer",
      [ptr("desc"), ptr("below"), ptr("out"), u32("nIn"), u32("nOut")],
      "void",
      "Circuit-layer evaluation (Montgomery form).",
    ],
    ["to_mont", [ptr("dst"), ptr("src"), u32("n")], "void", "dst[i] = src[i]·2^32 mod p."],
    ["from_mont", [ptr("dst"), ptr("src"), u32("n")], "void", "dst[i] = src[i]·2^−32 mod p."],
  ],
};

export function abiFile(header) {
  let out = header(
    "The kernel ABI: layouts, flags and export signatures (AssemblyScript and TypeScript import this file).",
  );
  out += `//
// Valid in both languages: the AssemblyScript kernels (src/kernels/assembly) import the layout
// constants (compile-time i32 constants there), the TypeScript side imports the constants, the
// export interfaces and the export name lists (interfaces and uncalled functions are never
// compiled into the module, so it keeps no data segment). Pointers are byte offsets into the shared memory, counts are elements.
`;
  for (const entry of LAYOUT) {
    if (entry.length === 1) {
      out += `\n// ${entry[0]}\n`;
      continue;
    }
    const [name, value, doc] = entry;
    out += `/** ${doc} */\nexport const ${name} = ${value};\n`;
  }
  for (const [group, list] of Object.entries(EXPORTS)) {
    out += `\n/** Raw exports of the kernel module used by \`${group.replace(/Exports$/, "")}\` (byte pointers, element counts, no checks). */\n`;
    out += `export interface ${group} {\n`;
    for (const [name, params, ret, doc] of list) {
      out += `  /** ${doc} */\n  ${name}(${params.map(([p]) => `${p}: number`).join(", ")}): ${ret === "void" ? "void" : "number"};\n`;
    }
    out += `}\n`;
    const fn = group[0].toLowerCase() + group.slice(1).replace(/Exports$/, "ExportNames");
    // A function, not an array constant: AssemblyScript compiles functions only when called, so
    // the names never become a data segment of the module.
    out += `\n/** The exports of \`${group}\` (its keys), checked against the module when it is instantiated. */\n`;
    out += `export function ${fn}(): readonly string[] {\n  return [\n${list.map(([n]) => `    "${n}",`).join("\n")}\n  ];\n}\n`;
  }
  return out;
}
