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
export const enum NodeKind {
  Input = 0,
  Affine = 1,
  Mul = 2,
  Pow3 = 3,
  Combine = 4,
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
const P_BIG = BigInt(P);

/** Reduces an integer coefficient or constant mod p (negative values allowed). */
function reduce(x: number | bigint, what: string): number {
  if (typeof x === "bigint") return Number(((x % P_BIG) + P_BIG) % P_BIG);
  if (!Number.isSafeInteger(x)) throw new CircuitError("BAD_COEFF", `${what} must be a safe integer or a bigint, got ${x}`, { what });
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
  private readonly kinds: number[] = [];
  private readonly levels: number[] = [];
  private readonly fams: number[] = [];
  private readonly blks: number[] = [];
  /** Input index (Input) or constant c (Affine, Combine). */
  private readonly aux: number[] = [];
  private readonly childStart: number[] = [];
  private readonly childCount: number[] = [];
  /** Flat child lists: child id, coefficient, cube flag (1 = Pow3 tap). */
  private readonly child: number[] = [];
  private readonly coeff: number[] = [];
  private readonly cube: number[] = [];
  /** Identity copy of node id at level(id)+1, or −1 (§8.2; shared by all lifts of one build). */
  private readonly copyOf: number[] = [];
  private family = -1;
  private block = -1;
  private built = false;
  private maxInput = -1;

  /** Number of nodes created so far. */
  get size(): number {
    return this.kinds.length;
  }

  /** Sets the scope tag recorded by every node created from now on. */
  scope(family: number, block: number): void {
    for (const [v, what] of [[family, "family"], [block, "block"]] as const) {
      if (!Number.isInteger(v) || v < 0 || v > 0x7fffffff) throw new CircuitError("BAD_SCOPE", `scope ${what} must be an integer in [0, 2^31), got ${v}`);
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
    let lvl = 0;
    const ids: number[] = [];
    const cs: number[] = [];
    for (let t = 0; t < terms.length; t++) {
      const [node, k] = terms[t]!;
      this.checkNode(node);
      ids.push(node);
      cs.push(reduce(k, `affine term ${t} coefficient`));
      if (this.levels[node]! > lvl) lvl = this.levels[node]!;
    }
    const id = this.push(NodeKind.Affine, lvl + 1, constant, this.family, this.block);
    for (let t = 0; t < ids.length; t++) this.pushChild(ids[t]!, cs[t]!, 0);
    this.childCount[id] = ids.length;
    return id;
  }

  /** constant(c) = Affine([], c), at level 1. */
  constant(c: number | bigint): NodeId {
    return this.affine([], c);
  }

  /** sum(xs) = Affine([(x, 1) …], 0). */
  sum(xs: readonly NodeId[]): NodeId {
    return this.affine(xs.map((x) => [x, 1] as const), 0);
  }

  /** sub(a, b) = Affine([(a, 1), (b, p − 1)], 0). */
  sub(a: NodeId, b: NodeId): NodeId {
    return this.affine([[a, 1], [b, P - 1]], 0);
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
    let lvl = 0;
    const cs: number[] = [];
    for (let t = 0; t < taps.length; t++) {
      const tap = taps[t]!;
      this.checkNode(tap.node);
      cs.push(reduce(tap.coeff, `combine tap ${t} coefficient`));
      if (this.levels[tap.node]! > lvl) lvl = this.levels[tap.node]!;
    }
    const id = this.push(NodeKind.Combine, lvl + 1, constant, this.family, this.block);
    for (let t = 0; t < taps.length; t++) this.pushChild(taps[t]!.node, cs[t]!, taps[t]!.cube ? 1 : 0);
    this.childCount[id] = taps.length;
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
    if (new Set(outputs).size !== outputs.length) throw new CircuitError("DUPLICATE_OUTPUT", "outputs must be distinct nodes");
    const width = inputWidth ?? this.maxInput + 1;
    if (!Number.isInteger(width) || width < this.maxInput + 1 || width > MAX_INPUT_INDEX) {
      throw new CircuitError("INPUT_WIDTH", `input width ${width} must be an integer covering every input index (max ${this.maxInput}) and below 2^30`);
    }
    this.built = true;
    const levels = this.levels;

    // Step 1: lift the outputs to L*.
    let lstar = 1;
    for (const o of outputs) if (levels[o]! > lstar) lstar = levels[o]!;
    const finals = outputs.map((o) => this.liftUnchecked(o, lstar));

    // Step 2: lift every child of the original nodes to the level below its parent.
    const n0 = this.kinds.length;
    for (let id = 0; id < n0; id++) {
      const lvl = levels[id]!;
      if (lvl < 1) continue;
      const start = this.childStart[id]!;
      const end = start + this.childCount[id]!;
      for (let k = start; k < end; k++) this.child[k] = this.liftUnchecked(this.child[k]!, lvl - 1);
    }

    // Step 3: wire numbering.
    const n = this.kinds.length;
    const byLevel: number[][] = Array.from({ length: lstar + 1 }, () => []);
    const wire = new Int32Array(n);
    for (let id = 0; id < n; id++) {
      const lvl = levels[id]!;
      if (lvl > lstar) throw new CircuitError("NODE_ABOVE_OUTPUTS", `node ${id} is at level ${lvl}, above the output level ${lstar}`, { node: id });
      if (lvl === 0) wire[id] = this.aux[id]!;
      else byLevel[lvl]!.push(id);
    }
    const counts = new Array<number>(lstar + 1).fill(0);
    const placements: FamilyPlacement[][] = Array.from({ length: lstar + 1 }, () => []);
    const untaggedBase = new Array<number>(lstar + 1).fill(0);
    for (let lvl = 1; lvl <= lstar; lvl++) {
      const ids = byLevel[lvl]!;
      if (lvl === lstar) {
        for (let s = 0; s < ids.length; s++) wire[ids[s]!] = s;
        counts[lvl] = ids.length;
        untaggedBase[lvl] = 0;
        continue;
      }
      const families = new Map<number, Map<number, number[]>>();
      const untagged: number[] = [];
      for (const id of ids) {
        const f = this.fams[id]!;
        if (f < 0) {
          untagged.push(id);
          continue;
        }
        let blocks = families.get(f);
        if (!blocks) families.set(f, (blocks = new Map()));
        const b = this.blks[id]!;
        let list = blocks.get(b);
        if (!list) blocks.set(b, (list = []));
        list.push(id);
      }
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
        blockIds.forEach((b, r) => {
          const list = blocks.get(b)!;
          sizes.push(list.length);
          for (let s = 0; s < list.length; s++) wire[list[s]!] = cursor + r * stride + s;
        });
        placements[lvl]!.push({ family: f, base: cursor, stride, blocks: blockIds, blockSizes: sizes });
        cursor += blockIds.length * stride;
      }
      untaggedBase[lvl] = cursor;
      for (const id of untagged) wire[id] = cursor++;
      counts[lvl] = cursor;
    }

    // Step 4: emission, layer index k = L* − level.
    const layers: Layer[] = new Array(lstar);
    const layerTags: LayerTags[] = new Array(lstar);
    for (let lvl = lstar; lvl >= 1; lvl--) {
      const ids = byLevel[lvl]!;
      let gates = 0;
      let consts = 0;
      for (const id of ids) {
        const k = this.kinds[id]!;
        gates += k === NodeKind.Mul ? 1 : this.childCount[id]!;
        if ((k === NodeKind.Affine || k === NodeKind.Combine) && this.aux[id] !== 0) consts++;
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
      for (const id of ids) {
        const out = wire[id]!;
        const kind = this.kinds[id]!;
        const start = this.childStart[id]!;
        const cnt = this.childCount[id]!;
        const fam = this.fams[id]!;
        const blk = this.blks[id]!;
        if (kind === NodeKind.Mul) {
          gateKind[g] = GateKind.Mul;
          gateOut[g] = out;
          gateIn1[g] = wire[this.child[start]!]!;
          gateIn2[g] = wire[this.child[start + 1]!]!;
          gateCoeff[g] = 1;
          gateFamily[g] = fam;
          gateBlock[g] = blk;
          g++;
        } else {
          for (let t = start; t < start + cnt; t++) {
            const w = wire[this.child[t]!]!;
            gateKind[g] = this.cube[t] === 1 ? GateKind.Pow3 : GateKind.Lin;
            gateOut[g] = out;
            gateIn1[g] = w;
            gateIn2[g] = w;
            gateCoeff[g] = this.coeff[t]!;
            gateFamily[g] = fam;
            gateBlock[g] = blk;
            g++;
          }
          if ((kind === NodeKind.Affine || kind === NodeKind.Combine) && this.aux[id] !== 0) {
            constWire[c] = out;
            constValue[c] = this.aux[id]!;
            constFamily[c] = fam;
            constBlock[c] = blk;
            c++;
          }
        }
      }
      const k = lstar - lvl;
      layers[k] = { widthBits: widthBits(counts[lvl]!), gateKind, gateOut, gateIn1, gateIn2, gateCoeff, constWire, constValue };
      layerTags[k] = { gateFamily, gateBlock, constFamily, constBlock, families: placements[lvl]!, untaggedBase: untaggedBase[lvl]! };
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

  private push(kind: NodeKind, level: number, aux: number, fam: number, blk: number): number {
    const id = this.kinds.length;
    this.kinds.push(kind);
    this.levels.push(level);
    this.fams.push(fam);
    this.blks.push(blk);
    this.aux.push(aux);
    this.childStart.push(this.child.length);
    this.childCount.push(0);
    this.copyOf.push(-1);
    return id;
  }

  private pushChild(id: number, coeff: number, cube: number): void {
    this.child.push(id);
    this.coeff.push(coeff);
    this.cube.push(cube);
  }

  private checkNode(id: NodeId): void {
    if (!Number.isInteger(id) || id < 0 || id >= this.kinds.length) {
      throw new CircuitError("BAD_NODE", `node ${id} does not exist (the builder has ${this.kinds.length} nodes)`, { node: id });
    }
  }

  private checkOpen(): void {
    if (this.built) throw new CircuitError("BUILDER_CONSUMED", "this builder has already built its circuit; use a new builder");
  }
}
