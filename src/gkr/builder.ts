/**
 * Generic layered-circuit builder (compat-v1 §8). It defines node ids, wire numbers and the
 * emission order, so the circuit it builds (and hence the §12 commitment) is fixed by the order
 * in which nodes are created.
 *
 * Nodes: Input(idx) at level 0; Affine(terms, c), Mul(a, b), Pow3(a) and Combine(taps, c) at
 * 1 + the highest child level (an Affine or Combine without children is at level 1). `build`
 * lifts every child to the level just below its parent with shared identity copies (§8.2),
 * numbers wires per level grouped by scope tag (family, block) (§8.3 step 3), emits one layer per
 * level (output layer first) and remaps the output layer so output k sits on wire k.
 *
 * Scope tags influence wire numbering only; they are not committed. The built circuit comes with
 * the (family, block) tag of every gate and constant (`CircuitTags`), so a derived wiring can group
 * gates later (§10.6).
 */
import { P } from "../field/koalabear.js";
import { GateKind, widthBits, type Circuit, type Layer } from "./circuit.js";
import { CircuitError } from "./errors.js";

/** A node handle: its id (0, 1, 2, … in creation order). */
export type NodeId = number;

/** Node kinds of §8.1. */
export const NodeKind = Object.freeze({
  Input: 0,
  Affine: 1,
  Mul: 2,
  Pow3: 3,
  Combine: 4,
} as const);
export type NodeKind = (typeof NodeKind)[keyof typeof NodeKind];
export declare namespace NodeKind {
  type Input = typeof NodeKind.Input;
  type Affine = typeof NodeKind.Affine;
  type Mul = typeof NodeKind.Mul;
  type Pow3 = typeof NodeKind.Pow3;
  type Combine = typeof NodeKind.Combine;
}

/** One Affine term: coeff·child (emitted as a Lin gate). */
export type Term = readonly [node: NodeId, coeff: number];

/** One Combine tap: coeff·child (Lin) or coeff·child³ (Pow3). */
export interface Tap {
  readonly node: NodeId;
  readonly coeff: number;
  readonly cube: boolean;
}

/** Scope tag of a node; family −1 means untagged. */
export interface ScopeTag {
  readonly family: number;
  readonly block: number;
}

/** Where a family's blocks sit in one layer: block of rank r, slot s → wire base + r·stride + s. */
export interface FamilyPlacement {
  readonly family: number;
  readonly base: number;
  /** Power of two ≥ the largest block of the family at this level. */
  readonly stride: number;
  /** Block ids in rank order (ascending). */
  readonly blocks: readonly number[];
  /** Size of each block (same order as `blocks`). */
  readonly blockSizes: readonly number[];
}

/** Scope tags of one built layer (same indexing as the layer's gate and constant arrays). */
export interface LayerTags {
  /** Family of the node that emitted gate g; −1 if untagged. */
  readonly gateFamily: Int32Array;
  /** Block of the node that emitted gate g; −1 if untagged. */
  readonly gateBlock: Int32Array;
  readonly constFamily: Int32Array;
  readonly constBlock: Int32Array;
  /**
   * Wire placement of each family (ascending family id). Empty for the output layer, whose wires are
   * list positions remapped to output indices.
   */
  readonly families: readonly FamilyPlacement[];
  /** First wire used by untagged nodes (= end of the family region). */
  readonly untaggedBase: number;
}

/** Side structure of a built circuit: tags per layer, output first (not committed). */
export interface CircuitTags {
  readonly layers: readonly LayerTags[];
}

/** Result of `CircuitBuilder.build`. */
export interface BuiltCircuit {
  readonly circuit: Circuit;
  readonly tags: CircuitTags;
  /** Number of outputs (output k is on wire k of layer 0). */
  readonly outputCount: number;
  /** Total node count, lift copies included. */
  readonly nodeCount: number;
  /** Input width the input vector must be padded from (input_width_bits = widthBits of it). */
  readonly inputWidth: number;
}

const MAX_INPUT_INDEX = 2 ** 30;
/** Initial capacity of the node and child columns. */
const INITIAL_CAPACITY = 1 << 14;

/** A copy of `a` with room for `capacity` elements. */
function grown<T extends Uint8Array | Int32Array | Uint32Array>(a: T, capacity: number): T {
  const b = new (a.constructor as new (n: number) => T)(capacity);
  b.set(a);
  return b;
}
const P_BIG = BigInt(P);

/** Reduces an integer coefficient or constant mod p (negative values allowed). */
function reduce(x: number | bigint, what: string): number {
  if (typeof x === "bigint") return Number(((x % P_BIG) + P_BIG) % P_BIG);
  if (!Number.isSafeInteger(x))
    throw new CircuitError("BAD_COEFF", `${what} must be a safe integer or a bigint, got ${x}`, { what });
  const r = x % P;
  return r < 0 ? r + P : r;
}

/**
 * Builds a layered circuit from nodes (compat-v1 §8). One builder builds one circuit: after
 * `build`, creating nodes or building again throws `BUILDER_CONSUMED`.
 *
 * Errors (all `CircuitError`): `BAD_NODE` (a child id that does not exist), `BAD_COEFF`
 * (coefficient or constant not an integer), `BAD_INPUT_INDEX` (not an integer in [0, 2^30)),
 * `BAD_SCOPE` (family or block not an integer in [0, 2^31)), `NO_OUTPUTS`, `DUPLICATE_OUTPUT`,
 * `NODE_ABOVE_OUTPUTS` (a node's level exceeds every output's level), `INPUT_WIDTH`,
 * `BUILDER_CONSUMED`.
 */
export class CircuitBuilder {
  // Node columns, indexed by node id; `n` nodes in use, capacity grows by doubling.
  private n = 0;
  private kinds = new Uint8Array(INITIAL_CAPACITY);
  private levels = new Int32Array(INITIAL_CAPACITY);
  private fams = new Int32Array(INITIAL_CAPACITY);
  private blks = new Int32Array(INITIAL_CAPACITY);
  /** Input index (Input) or constant c (Affine, Combine). */
  private aux = new Uint32Array(INITIAL_CAPACITY);
  private childStart = new Int32Array(INITIAL_CAPACITY);
  private childCount = new Int32Array(INITIAL_CAPACITY);
  /** Identity copy of node id at level(id)+1, or −1 (§8.2; shared by all lifts of one build). */
  private copyOf = new Int32Array(INITIAL_CAPACITY).fill(-1);
  // Flat child lists: child id, coefficient, cube flag (1 = Pow3 tap); `nc` entries in use.
  private nc = 0;
  private child = new Int32Array(INITIAL_CAPACITY);
  private coeff = new Uint32Array(INITIAL_CAPACITY);
  private cube = new Uint8Array(INITIAL_CAPACITY);
  /** Reduced coefficients of the node being created (validated before anything is pushed). */
  private scratch = new Uint32Array(64);
  private family = -1;
  private block = -1;
  private built = false;
  private maxInput = -1;

  /** Number of nodes created so far. */
  get size(): number {
    return this.n;
  }

  /** Sets the scope tag recorded by every node created from now on. */
  scope(family: number, block: number): void {
    for (const [v, what] of [
      [family, "family"],
      [block, "block"],
    ] as const) {
      if (!Number.isInteger(v) || v < 0 || v > 0x7fffffff)
        throw new CircuitError("BAD_SCOPE", `scope ${what} must be an integer in [0, 2^31), got ${v}`);
    }
    this.family = family;
    this.block = block;
  }

  /** Clears the scope: nodes created from now on are untagged. */
  clearScope(): void {
    this.family = -1;
    this.block = -1;
  }

  /** Level of a node (0 for inputs). */
  level(id: NodeId): number {
    this.checkNode(id);
    return this.levels[id]!;
  }

  /** Kind of a node. */
  kind(id: NodeId): NodeKind {
    this.checkNode(id);
    return this.kinds[id] as NodeKind;
  }

  /** Scope tag of a node (family −1 if untagged). */
  tag(id: NodeId): ScopeTag {
    this.checkNode(id);
    return { family: this.fams[id]!, block: this.blks[id]! };
  }

  /** A new Input node for input index idx (inputs are not deduplicated). */
  input(idx: number): NodeId {
    this.checkOpen();
    if (!Number.isInteger(idx) || idx < 0 || idx >= MAX_INPUT_INDEX) {
      throw new CircuitError("BAD_INPUT_INDEX", `input index must be an integer in [0, 2^30), got ${idx}`);
    }
    if (idx > this.maxInput) this.maxInput = idx;
    return this.push(NodeKind.Input, 0, idx, this.family, this.block);
  }

  /** Affine(terms, c) = Σ coeff·child + c; level 1 + max child level (1 without terms). */
  affine(terms: readonly Term[], c: number | bigint = 0): NodeId {
    this.checkOpen();
    const constant = reduce(c, "affine constant");
    const m = terms.length;
    const cs = this.coefficientScratch(m);
    let lvl = 0;
    for (let t = 0; t < m; t++) {
      const term = terms[t]!;
      const node = term[0];
      this.checkNode(node);
      const k = term[1];
      cs[t] =
        typeof k === "number" && k >= 0 && k < P && Number.isInteger(k) ? k : reduce(k, `affine term ${t} coefficient`);
      const l = this.levels[node]!;
      if (l > lvl) lvl = l;
    }
    const id = this.push(NodeKind.Affine, lvl + 1, constant, this.family, this.block);
    for (let t = 0; t < m; t++) this.pushChild(terms[t]![0], cs[t]!, 0);
    this.childCount[id] = m;
    return id;
  }

  /** constant(c) = Affine([], c), at level 1. */
  constant(c: number | bigint): NodeId {
    return this.affine([], c);
  }

  /** sum(xs) = Affine([(x, 1) …], 0). */
  sum(xs: readonly NodeId[]): NodeId {
    return this.affine(
      xs.map((x) => [x, 1] as const),
      0,
    );
  }

  /** sub(a, b) = Affine([(a, 1), (b, p − 1)], 0). */
  sub(a: NodeId, b: NodeId): NodeId {
    return this.affine(
      [
        [a, 1],
        [b, P - 1],
      ],
      0,
    );
  }

  /** Mul(a, b), emitted as (Mul, out, a, b, 1). */
  mul(a: NodeId, b: NodeId): NodeId {
    this.checkOpen();
    this.checkNode(a);
    this.checkNode(b);
    const id = this.push(NodeKind.Mul, 1 + Math.max(this.levels[a]!, this.levels[b]!), 0, this.family, this.block);
    this.pushChild(a, 1, 0);
    this.pushChild(b, 1, 0);
    this.childCount[id] = 2;
    return id;
  }

  /** Pow3(a), emitted as (Pow3, out, a, a, 1). */
  pow3(a: NodeId): NodeId {
    this.checkOpen();
    this.checkNode(a);
    const id = this.push(NodeKind.Pow3, 1 + this.levels[a]!, 0, this.family, this.block);
    this.pushChild(a, 1, 1);
    this.childCount[id] = 1;
    return id;
  }

  /** Combine(taps, c) = Σ coeff·child (Lin tap) or coeff·child³ (Cube tap) + c. */
  combine(taps: readonly Tap[], c: number | bigint = 0): NodeId {
    this.checkOpen();
    const constant = reduce(c, "combine constant");
    const m = taps.length;
    const cs = this.coefficientScratch(m);
    let lvl = 0;
    for (let t = 0; t < m; t++) {
      const tap = taps[t]!;
      this.checkNode(tap.node);
      const k = tap.coeff;
      cs[t] =
        typeof k === "number" && k >= 0 && k < P && Number.isInteger(k) ? k : reduce(k, `combine tap ${t} coefficient`);
      const l = this.levels[tap.node]!;
      if (l > lvl) lvl = l;
    }
    const id = this.push(NodeKind.Combine, lvl + 1, constant, this.family, this.block);
    for (let t = 0; t < m; t++) this.pushChild(taps[t]!.node, cs[t]!, taps[t]!.cube ? 1 : 0);
    this.childCount[id] = m;
    return id;
  }

  /**
   * lift(node, target) (§8.2): follows (creating where missing) identity copies
   * Affine([(cur, 1)], 0) one level up until the target level; copies carry cur's tag and are
   * shared through one copy map. Returns the node at level max(level(node), target).
   */
  lift(node: NodeId, target: number): NodeId {
    this.checkOpen();
    this.checkNode(node);
    return this.liftUnchecked(node, target);
  }

  private liftUnchecked(node: number, target: number): number {
    let cur = node;
    while (this.levels[cur]! < target) {
      let c = this.copyOf[cur]!;
      if (c < 0) {
        c = this.push(NodeKind.Affine, this.levels[cur]! + 1, 0, this.fams[cur]!, this.blks[cur]!);
        this.pushChild(cur, 1, 0);
        this.childCount[c] = 1;
        this.copyOf[cur] = c;
      }
      cur = c;
    }
    return cur;
  }

  /**
   * build(outputs) (§8.3). Lifts the outputs to L* = max(1, max output level), lifts every child to
   * the level just below its parent, numbers wires, emits layers (output first) and remaps layer 0
   * so that output k is on wire k. The remap is one simultaneous substitution (as in the
   * reference): a node at the output level that is not an output keeps its list position and may
   * share a wire with a remapped output (their values then add). Compiled SMT circuits have no such node.
   * @param outputs output nodes in order (distinct).
   * @param inputWidth input vector width; default max input index + 1. input_width_bits = widthBits(inputWidth).
   */
  build(outputs: readonly NodeId[], inputWidth?: number): BuiltCircuit {
    this.checkOpen();
    if (outputs.length === 0) throw new CircuitError("NO_OUTPUTS", "a circuit needs at least one output");
    for (const o of outputs) this.checkNode(o);
    if (new Set(outputs).size !== outputs.length)
      throw new CircuitError("DUPLICATE_OUTPUT", "outputs must be distinct nodes");
    const width = inputWidth ?? this.maxInput + 1;
    if (!Number.isInteger(width) || width < this.maxInput + 1 || width > MAX_INPUT_INDEX) {
      throw new CircuitError(
        "INPUT_WIDTH",
        `input width ${width} must be an integer covering every input index (max ${this.maxInput}) and below 2^30`,
      );
    }
    this.built = true;

    // Step 1: lift the outputs to L*.
    let lstar = 1;
    for (const o of outputs) if (this.levels[o]! > lstar) lstar = this.levels[o]!;
    const finals = outputs.map((o) => this.liftUnchecked(o, lstar));

    // Step 2: lift every child of the original nodes to the level below its parent. Lifting may
    // grow (replace) the columns, so they are re-read after every lift.
    const n0 = this.n;
    for (let id = 0; id < n0; id++) {
      const lvl = this.levels[id]!;
      if (lvl < 1) continue;
      const start = this.childStart[id]!;
      const end = start + this.childCount[id]!;
      for (let k = start; k < end; k++) {
        const c = this.child[k]!;
        if (this.levels[c]! >= lvl - 1) continue;
        const lifted = this.liftUnchecked(c, lvl - 1);
        this.child[k] = lifted;
      }
    }

    // Step 3: wire numbering. Nodes are bucketed by level (ascending id inside a level).
    const n = this.n;
    const levels = this.levels;
    const levelStart = new Int32Array(lstar + 2);
    for (let id = 0; id < n; id++) {
      const lvl = levels[id]!;
      if (lvl > lstar)
        throw new CircuitError("NODE_ABOVE_OUTPUTS", `node ${id} is at level ${lvl}, above the output level ${lstar}`, {
          node: id,
        });
      levelStart[lvl + 1]!++;
    }
    for (let l = 1; l <= lstar + 1; l++) levelStart[l]! += levelStart[l - 1]!;
    const byLevel = new Int32Array(n);
    const fillAt = levelStart.slice(0, lstar + 1);
    for (let id = 0; id < n; id++) byLevel[fillAt[levels[id]!]!++] = id;
    const wire = new Int32Array(n);
    const aux = this.aux;
    for (let k = levelStart[0]!; k < levelStart[1]!; k++) wire[byLevel[k]!] = aux[byLevel[k]!]!;
    const counts = new Array<number>(lstar + 1).fill(0);
    const placements: FamilyPlacement[][] = Array.from({ length: lstar + 1 }, () => []);
    const untaggedBase = new Array<number>(lstar + 1).fill(0);
    for (let lvl = 1; lvl <= lstar; lvl++) {
      const ids = byLevel.subarray(levelStart[lvl]!, levelStart[lvl + 1]!);
      if (lvl === lstar) {
        for (let s = 0; s < ids.length; s++) wire[ids[s]!] = s;
        counts[lvl] = ids.length;
        untaggedBase[lvl] = 0;
        continue;
      }
      const numbered = this.numberLevel(ids, wire);
      placements[lvl] = numbered.placements;
      untaggedBase[lvl] = numbered.untaggedBase;
      counts[lvl] = numbered.count;
    }

    // Step 4: emission, layer index k = L* − level.
    const layers: Layer[] = new Array(lstar);
    const layerTags: LayerTags[] = new Array(lstar);
    for (let lvl = lstar; lvl >= 1; lvl--) {
      const k = lstar - lvl;
      const { layer, tags } = this.emitLevel(
        byLevel.subarray(levelStart[lvl]!, levelStart[lvl + 1]!),
        wire,
        widthBits(counts[lvl]!),
      );
      layers[k] = layer;
      layerTags[k] = { ...tags, families: placements[lvl]!, untaggedBase: untaggedBase[lvl]! };
    }

    // Step 5: output remap of layer 0 (one simultaneous substitution).
    const remap = new Map<number, number>();
    finals.forEach((f, k) => remap.set(wire[f]!, k));
    const top = layers[0]!;
    for (let i = 0; i < top.gateOut.length; i++) {
      const r = remap.get(top.gateOut[i]!);
      if (r !== undefined) (top.gateOut as Uint32Array)[i] = r;
    }
    for (let i = 0; i < top.constWire.length; i++) {
      const r = remap.get(top.constWire[i]!);
      if (r !== undefined) (top.constWire as Uint32Array)[i] = r;
    }

    return {
      circuit: { layers, inputWidthBits: widthBits(width) },
      tags: { layers: layerTags },
      outputCount: outputs.length,
      nodeCount: n,
      inputWidth: width,
    };
  }

  /**
   * Wires of one level below the output level (§8.3 step 3): tagged nodes grouped by family
   * (ascending), then block (ascending), in creation order inside a block, each family's blocks
   * at a power-of-two stride; untagged nodes after them in creation order.
   */
  private numberLevel(
    ids: Int32Array,
    wire: Int32Array,
  ): { placements: FamilyPlacement[]; untaggedBase: number; count: number } {
    const fams = this.fams,
      blks = this.blks;
    const families = new Map<number, Map<number, number[]>>();
    const untagged: number[] = [];
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const f = fams[id]!;
      if (f < 0) {
        untagged.push(id);
        continue;
      }
      let blocks = families.get(f);
      if (!blocks) families.set(f, (blocks = new Map()));
      const b = blks[id]!;
      let list = blocks.get(b);
      if (!list) blocks.set(b, (list = []));
      list.push(id);
    }
    const placements: FamilyPlacement[] = [];
    let cursor = 0;
    for (const f of [...families.keys()].sort((a, b) => a - b)) {
      const blocks = families.get(f)!;
      const blockIds = [...blocks.keys()].sort((a, b) => a - b);
      let maxSize = 0;
      for (const b of blockIds) maxSize = Math.max(maxSize, blocks.get(b)!.length);
      let stride = 1;
      while (stride < maxSize) stride *= 2;
      cursor = Math.ceil(cursor / stride) * stride;
      const sizes: number[] = [];
      for (let r = 0; r < blockIds.length; r++) {
        const list = blocks.get(blockIds[r]!)!;
        sizes.push(list.length);
        const base = cursor + r * stride;
        for (let s = 0; s < list.length; s++) wire[list[s]!] = base + s;
      }
      placements.push({ family: f, base: cursor, stride, blocks: blockIds, blockSizes: sizes });
      cursor += blockIds.length * stride;
    }
    const untaggedBase = cursor;
    for (const id of untagged) wire[id] = cursor++;
    return { placements, untaggedBase, count: cursor };
  }

  /** Gates, constants and their tags of one level, in emission order (§8.3 step 4). */
  private emitLevel(
    ids: Int32Array,
    wire: Int32Array,
    width: number,
  ): { layer: Layer; tags: Omit<LayerTags, "families" | "untaggedBase"> } {
    const kinds = this.kinds,
      childStart = this.childStart,
      childCount = this.childCount,
      aux = this.aux;
    const fams = this.fams,
      blks = this.blks,
      child = this.child,
      coeff = this.coeff,
      cube = this.cube;
    let gates = 0;
    let consts = 0;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const k = kinds[id]!;
      gates += k === NodeKind.Mul ? 1 : childCount[id]!;
      if ((k === NodeKind.Affine || k === NodeKind.Combine) && aux[id] !== 0) consts++;
    }
    const gateKind = new Uint8Array(gates);
    const gateOut = new Uint32Array(gates);
    const gateIn1 = new Uint32Array(gates);
    const gateIn2 = new Uint32Array(gates);
    const gateCoeff = new Uint32Array(gates);
    const constWire = new Uint32Array(consts);
    const constValue = new Uint32Array(consts);
    const gateFamily = new Int32Array(gates);
    const gateBlock = new Int32Array(gates);
    const constFamily = new Int32Array(consts);
    const constBlock = new Int32Array(consts);
    let g = 0;
    let c = 0;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const out = wire[id]!;
      const kind = kinds[id]!;
      const start = childStart[id]!;
      const end = start + childCount[id]!;
      const fam = fams[id]!;
      const blk = blks[id]!;
      if (kind === NodeKind.Mul) {
        gateKind[g] = GateKind.Mul;
        gateOut[g] = out;
        gateIn1[g] = wire[child[start]!]!;
        gateIn2[g] = wire[child[start + 1]!]!;
        gateCoeff[g] = 1;
        gateFamily[g] = fam;
        gateBlock[g] = blk;
        g++;
      } else {
        for (let t = start; t < end; t++) {
          const w = wire[child[t]!]!;
          gateKind[g] = cube[t] === 1 ? GateKind.Pow3 : GateKind.Lin;
          gateOut[g] = out;
          gateIn1[g] = w;
          gateIn2[g] = w;
          gateCoeff[g] = coeff[t]!;
          gateFamily[g] = fam;
          gateBlock[g] = blk;
          g++;
        }
        if ((kind === NodeKind.Affine || kind === NodeKind.Combine) && aux[id] !== 0) {
          constWire[c] = out;
          constValue[c] = aux[id]!;
          constFamily[c] = fam;
          constBlock[c] = blk;
          c++;
        }
      }
    }
    return {
      layer: { widthBits: width, gateKind, gateOut, gateIn1, gateIn2, gateCoeff, constWire, constValue },
      tags: { gateFamily, gateBlock, constFamily, constBlock },
    };
  }

  private push(kind: NodeKind, level: number, aux: number, fam: number, blk: number): number {
    const id = this.n;
    if (id === this.kinds.length) this.growNodes();
    this.kinds[id] = kind;
    this.levels[id] = level;
    this.fams[id] = fam;
    this.blks[id] = blk;
    this.aux[id] = aux;
    this.childStart[id] = this.nc;
    this.childCount[id] = 0;
    this.n = id + 1;
    return id;
  }

  private growNodes(): void {
    const cap = 2 * this.kinds.length;
    this.kinds = grown(this.kinds, cap);
    this.levels = grown(this.levels, cap);
    this.fams = grown(this.fams, cap);
    this.blks = grown(this.blks, cap);
    this.aux = grown(this.aux, cap);
    this.childStart = grown(this.childStart, cap);
    this.childCount = grown(this.childCount, cap);
    const copies = new Int32Array(cap).fill(-1);
    copies.set(this.copyOf);
    this.copyOf = copies;
  }

  private pushChild(id: number, coeff: number, cube: number): void {
    const k = this.nc;
    if (k === this.child.length) {
      const cap = 2 * k;
      this.child = grown(this.child, cap);
      this.coeff = grown(this.coeff, cap);
      this.cube = grown(this.cube, cap);
    }
    this.child[k] = id;
    this.coeff[k] = coeff;
    this.cube[k] = cube;
    this.nc = k + 1;
  }

  private coefficientScratch(m: number): Uint32Array {
    if (this.scratch.length < m) this.scratch = new Uint32Array(Math.max(m, 2 * this.scratch.length));
    return this.scratch;
  }

  private checkNode(id: NodeId): void {
    if (!(Number.isInteger(id) && id >= 0 && id < this.n)) {
      throw new CircuitError("BAD_NODE", `node ${id} does not exist (the builder has ${this.n} nodes)`, { node: id });
    }
  }

  private checkOpen(): void {
    if (this.built)
      throw new CircuitError("BUILDER_CONSUMED", "this builder has already built its circuit; use a new builder");
  }
}
