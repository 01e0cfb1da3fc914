/**
 * The booking terms of a layer's linear groups (docs/profile-v2.md §4.2) on the WASM kernels
 * (src/kernels/assembly/gkr-groups.ts): `WasmLayerOracle` hands over its Montgomery-form weights
 * and plane tables, and one kernel call adds (Mᵀ·w_o)[x] of every block and lane at i + x,
 * O(terms(M)) per block. TypeScript reference: `LinearGroupsExtension` (oracle.ts); identical
 * tables, round polynomials and proofs (test/gkr/structured-booking.test.ts).
 *
 * The groups' descriptor (group records, block bases) is built once per layer and copied into the
 * oracle's workspace for each proof (position independent: offsets from its start).
 */
import type { Ext } from "../../field/extension.js";
import { mul } from "../../field/koalabear.js";
import { INTERNAL_DIAGONAL } from "../../hash/poseidon2-constants.js";
import { MONTGOMERY_R } from "../../kernels/constants.js";
import { KernelError } from "../../kernels/errors.js";
import { GateKind, type Layer } from "../circuit.js";
import {
  type GkrKernelExports,
  type GkrKernels,
  ROUND_CLAIM,
  ROUND_FOLD,
  ROUND_POW,
  ROUND_RAW,
  ROUND_VBASE,
} from "../wasm/kernels.js";
import type { WasmOracleExtension } from "../wasm/oracle.js";
import type { LinearBlockGroup } from "./linear.js";

/** Exports of src/kernels/assembly/gkr-groups.ts (byte pointers, element counts, no checks). */
interface GroupKernelExports extends GkrKernelExports {
  gkr_group_fill(
    desc: number,
    ngroups: number,
    W: number,
    A: number,
    Pw: number,
    n: number,
    diag: number,
    scratch: number,
    flags: number,
  ): void;
  gkr_group_phase2(desc: number, ngroups: number, eqx: number, out: number): void;
}

/** Export of src/kernels/assembly/gkr-weights-tensor.ts. */
interface TensorWeightsExports extends GkrKernelExports {
  gkr_weights_tensor(dst: number, claims: number, nclaims: number, nbits: number, scratch: number): void;
}

/** True iff the kernel module has `gkr_weights_tensor`. */
export function hasTensorWeightsKernel(kernels: GkrKernels): boolean {
  return typeof (kernels.raw as Partial<TensorWeightsExports>).gkr_weights_tensor === "function";
}

/** Smallest output width (bits) whose claim weights `gkr_weights_tensor` writes. */
const TENSOR_MIN_BITS = 2;

/** Words of `gkr_weights_tensor`'s scratch for `claims` claims over 2^bits outputs. */
function tensorScratchWords(claims: number, bits: number): number {
  const h = bits >> 1,
    l = bits - h;
  return 4 * claims * (2 ** h + 5 * 2 ** l + 2 * (bits + 1));
}

/** Export of src/kernels/assembly/gkr-round-lane0.ts. */
interface LaneRoundExports extends GkrKernelExports {
  gkr_round_lane0(
    A: number,
    Pw: number,
    Vx: number,
    Vb: number,
    len: number,
    r0: number,
    r1: number,
    r2: number,
    r3: number,
    vbase: number,
    out: number,
  ): void;
}

/** Flags of `gkr_group_fill`. */
const FILL_PW_ZERO = 1;
const FILL_CACHE = 2;
/** Words of one group record. */
const GROUP_DESC_WORDS = 8;

/** True iff the kernel module has the group booking kernels. */
export function hasGroupKernels(kernels: GkrKernels): boolean {
  const raw = kernels.raw as Partial<GroupKernelExports>;
  return typeof raw.gkr_group_fill === "function" && typeof raw.gkr_group_phase2 === "function";
}

/** True iff the kernel module has `gkr_round_lane0`. */
export function hasLaneRoundKernel(kernels: GkrKernels): boolean {
  return typeof (kernels.raw as Partial<LaneRoundExports>).gkr_round_lane0 === "function";
}

/** Flags a round needs for `gkr_round_lane0` (bind, claim, Pow3) and the ones it must not have. */
const LANE_ROUND_FLAGS = ROUND_FOLD | ROUND_CLAIM | ROUND_POW;
/** Smallest table length `gkr_round_lane0` binds (the new table has ≥ 32 entries). */
const LANE_ROUND_MIN_LEN = 64;

const laneZeroLayers = new WeakMap<Layer, boolean>();

/**
 * True iff every cubed input of the layer is ≡ 0 mod 16 (Pow3 gates and cubed group lanes), and
 * it has some: its Pow3 table is then zero except at lane 0 of 16-lane blocks (the internal
 * Poseidon2 rounds of the v2 circuits).
 */
export function cubesOnLaneZero(layer: Layer, groups: readonly LinearBlockGroup[]): boolean {
  let v = laneZeroLayers.get(layer);
  if (v === undefined) {
    let any = false;
    v = true;
    for (let g = 0; g < layer.gateKind.length && v; g++) {
      if (layer.gateKind[g] === GateKind.Pow3) {
        any = true;
        if (layer.gateIn1[g]! % 16 !== 0) v = false;
      }
    }
    for (const grp of groups) {
      if (grp.cubeMask === 0 || grp.outBase.length === 0) continue;
      any = true;
      // 16-lane blocks start at multiples of 16 (validateStructuredCircuit)
      if (grp.map.laneBits !== 4 || (grp.cubeMask & ~1) !== 0) v = false;
    }
    v = v && any;
    laneZeroLayers.set(layer, v);
  }
  return v;
}

/** A layer's groups as the kernels read them, and where things are in the extension's workspace. */
interface GroupsImage {
  /** Records, bases and the diagonal (words copied to the start of the workspace). */
  readonly words: Uint32Array;
  readonly diag: number;
  readonly out: number;
  readonly scratch: number;
  /** Words of the whole workspace (image, out, scratch, block cache). */
  readonly total: number;
}

const DIAG_MONT = Uint32Array.from(INTERNAL_DIAGONAL, (d) => mul(d, MONTGOMERY_R));

function up4(x: number): number {
  return Math.ceil(x / 4) * 4;
}

function buildImage(groups: readonly LinearBlockGroup[]): GroupsImage {
  let at = up4(groups.length * GROUP_DESC_WORDS);
  const bases = groups.map((g) => {
    const inAt = at;
    at = up4(at + g.inBase.length);
    const outAt = at;
    at = up4(at + g.outBase.length);
    return { inAt, outAt };
  });
  const diag = at;
  at += 16;
  const imageWords = at;
  const out = at;
  at += 8;
  const scratch = at;
  at += 64;
  const words = new Uint32Array(imageWords);
  groups.forEach((g, k) => {
    const r = k * GROUP_DESC_WORDS;
    const { inAt, outAt } = bases[k]!;
    words[r] = g.map.id;
    words[r + 1] = g.map.laneBits;
    words[r + 2] = g.cubeMask;
    words[r + 3] = g.outBase.length;
    words[r + 4] = 4 * inAt;
    words[r + 5] = 4 * outAt;
    words[r + 6] = 4 * at; // block cache
    words.set(g.inBase, inAt);
    words.set(g.outBase, outAt);
    at += 4 * g.outBase.length * 2 ** g.map.laneBits;
  });
  words.set(DIAG_MONT, diag);
  return { words, diag, out, scratch, total: at };
}

const images = new WeakMap<readonly LinearBlockGroup[], GroupsImage>();

function imageOf(groups: readonly LinearBlockGroup[]): GroupsImage {
  let im = images.get(groups);
  if (!im) images.set(groups, (im = buildImage(groups)));
  return im;
}

/**
 * The booking terms of a layer's groups on the kernels (for `WasmLayerOracle`). The groups must
 * not change afterwards (prepared circuits never do).
 * @throws Error when the module lacks the group kernels (check `hasGroupKernels`).
 */
/** Which of the optional kernels a `WasmLinearGroups` uses (each defaults to: when the module has it). */
export interface WasmGroupsOptions {
  /** `gkr_round_lane0` for the layers `cubesOnLaneZero` accepts (false: `gkr_round` throughout). */
  readonly laneRounds?: boolean;
  /** `gkr_weights_tensor` for the claim weights (false: `gkr_weights`). */
  readonly tensorWeights?: boolean;
}

export class WasmLinearGroups implements WasmOracleExtension {
  readonly hasPow: boolean;
  readonly workWords: number;
  private readonly raw: GroupKernelExports & Partial<LaneRoundExports> & Partial<TensorWeightsExports>;
  /** Word offset of the weights scratch in the workspace, or −1 (no tensor weights). */
  private readonly weightsAt: number;
  private readonly image: GroupsImage;
  private readonly count: number;
  /** The phase-1 rounds run on `gkr_round_lane0` (`cubesOnLaneZero`). */
  private readonly laneRounds: boolean;

  /**
   * @param layer the layer the groups belong to (its Pow3 gates decide whether the lane-0 round
   *   kernel applies).
   * @param claims the number of claims on the layer (sizes the weights scratch).
   * @param options the optional kernels (`gkr_round_lane0`, `gkr_weights_tensor`); false gives the
   *   references `gkr_round` and `gkr_weights`, which the tests compare them with.
   * @throws KernelError `MODULE_MISSING` when the module lacks the group kernels or a kernel the
   *   options ask for (an outdated wasm/kernels.wasm).
   */
  constructor(
    private readonly kernels: GkrKernels,
    groups: readonly LinearBlockGroup[],
    layer: Layer,
    claims: number,
    options: WasmGroupsOptions = {},
  ) {
    if (!hasGroupKernels(kernels))
      throw new KernelError(
        "MODULE_MISSING",
        "the kernel module lacks the group booking kernels (gkr_group_*); run `npm run build:kernels`",
      );
    const laneRounds = options.laneRounds ?? hasLaneRoundKernel(kernels);
    const tensor = options.tensorWeights ?? hasTensorWeightsKernel(kernels);
    if (laneRounds && !hasLaneRoundKernel(kernels))
      throw new KernelError("MODULE_MISSING", "the kernel module lacks gkr_round_lane0; run `npm run build:kernels`");
    if (tensor && !hasTensorWeightsKernel(kernels))
      throw new KernelError(
        "MODULE_MISSING",
        "the kernel module lacks gkr_weights_tensor; run `npm run build:kernels`",
      );
    this.raw = kernels.raw as GroupKernelExports & Partial<LaneRoundExports> & Partial<TensorWeightsExports>;
    this.hasPow = groups.some((g) => g.cubeMask !== 0 && g.outBase.length > 0);
    this.image = imageOf(groups);
    this.count = groups.length;
    this.laneRounds = laneRounds && cubesOnLaneZero(layer, groups);
    const useTensor = tensor && claims >= 1 && layer.widthBits >= TENSOR_MIN_BITS;
    this.weightsAt = useTensor ? this.image.total : -1;
    this.workWords = this.image.total + (useTensor ? tensorScratchWords(claims, layer.widthBits) : 0);
  }

  weights(W: number, points: number, claims: number, bits: number, work: number): boolean {
    if (
      this.weightsAt < 0 ||
      claims < 1 ||
      bits < TENSOR_MIN_BITS ||
      this.image.total + tensorScratchWords(claims, bits) > this.workWords
    )
      return false;
    this.raw.gkr_weights_tensor!(W, points, claims, bits, work + 4 * this.weightsAt);
    return true;
  }

  foldRound(A: number, Pw: number, Vx: number, Vb: number, len: number, r: Ext, flags: number, out: number): boolean {
    if (
      !this.laneRounds ||
      len < LANE_ROUND_MIN_LEN ||
      (flags & LANE_ROUND_FLAGS) !== LANE_ROUND_FLAGS ||
      (flags & ROUND_RAW) !== 0
    )
      return false;
    this.raw.gkr_round_lane0!(A, Pw, Vx, Vb, len, r[0], r[1], r[2], r[3], (flags & ROUND_VBASE) !== 0 ? 1 : 0, out);
    return true;
  }

  fillPhase1(work: number, W: number, A: number, Pw: number, n: number, pwFilled: boolean, keep: boolean): void {
    this.kernels.words().set(this.image.words, work >>> 2);
    const flags = (this.hasPow && !pwFilled ? FILL_PW_ZERO : 0) | (keep ? FILL_CACHE : 0);
    this.raw.gkr_group_fill(
      work,
      this.count,
      W,
      A,
      Pw,
      n,
      work + 4 * this.image.diag,
      work + 4 * this.image.scratch,
      flags,
    );
  }

  phase2(work: number, eqx: number): [Ext, Ext] {
    const out = work + 4 * this.image.out;
    this.raw.gkr_group_phase2(work, this.count, eqx, out);
    const w = this.kernels.words();
    const o = out >>> 2;
    return [
      [w[o]!, w[o + 1]!, w[o + 2]!, w[o + 3]!],
      [w[o + 4]!, w[o + 5]!, w[o + 6]!, w[o + 7]!],
    ];
  }
}
