/**
 * Derived wiring oracle (compat-v1 §10.6 "derived closed form"): the wiring predicates lin~,
 * mul~, pow3~ and const~ evaluated from each layer's audited block-pattern form
 * (src/gkr/wiring/block-pattern.ts) instead of a pass over every gate. Each point is expanded into split
 * eq tables (2^(n−L) + 2^L entries, L = loBits), and a point used as x* or y* of layer i is
 * recognised again as a claim point of layer i+1, so its tables are built once.
 *
 * Returns exactly the field values of `TableWiring` for every input: the (family, block) tags
 * only choose groups, and every group's derived form is audited against its gates when the
 * oracle is built (a group that does not match is evaluated gate by gate). A layer whose gate list
 * equals an earlier layer's (compared exactly) reuses that layer's audited gate part.
 *
 * Cost per layer evaluation: the split tables of the new points x*, y* (the claim points' tables
 * are those of the previous layer), plus per distinct pattern its entries (products with lo_x) and
 * per claim its rows and placements. d24 membership: 603 patterns, 7561 rows, 3826 placements over
 * 118 layers, against 240 208 gates for the table.
 */
import { EXT_ONE, type Ext } from "../../field/extension.js";
import { type Circuit, GateKind, inputBitsOf, validateCircuit } from "../circuit.js";
import type { CircuitTags } from "../builder.js";
import { type LayerForm, deriveLayerForm } from "./block-pattern.js";
import { auditLayerForm } from "./block-pattern-audit.js";
import type { Claim } from "../claims.js";
import { CircuitError } from "../errors.js";
import { GateLayerIndex, gateFingerprint } from "./layer-match.js";
import { type CompiledLayer, PatternRowsCache, combineParts, compileLayer } from "./pattern-compile.js";
import { EvalScratch, evalLayerConsts, evalLayerGates } from "./pattern-eval.js";
import { SplitEqCache, type SplitEqTables } from "./split-eq.js";
import type { LayerPredicates, WiringOracle } from "./oracle.js";

/** Options of `DerivedRegularWiring`: tile size and audit strictness. */
export interface DerivedWiringOptions {
  /** Tile size exponent L (tiles of 2^L wires), an integer in [0, 7]; default 4. */
  readonly loBits?: number;
  /** Throw `DERIVATION_MISMATCH` when an audit fails instead of evaluating the group gate by gate. */
  readonly strict?: boolean;
  /** Replaces a layer's derived form before its audit (fault injection for tests). */
  readonly adjustForm?: (layer: number, form: LayerForm) => LayerForm;
}

/** What the derivation found, summed over the layers. */
export interface DerivedWiringStats {
  readonly layers: number;
  /** Layers whose gate list equals an earlier layer's (its audited gate part is reused). */
  readonly reusedLayers: number;
  readonly gates: number;
  /** Gate groups (family, kind) of the derived (not reused) layers and how many passed the audit. */
  readonly groups: number;
  readonly auditedGroups: number;
  /** Gates and constants evaluated one by one (groups that failed the audit). */
  readonly residueGates: number;
  readonly residueConsts: number;
  /** Distinct patterns and placements (tiles) evaluated, over all layers. */
  readonly patterns: number;
  readonly placements: number;
  readonly patternEntries: number;
  /** Milliseconds spent deriving and auditing. */
  readonly deriveMs: number;
}

/**
 * What a `DerivedRegularWiring` evaluates from: the compiled form of every layer (output layer
 * first), the tile size exponent and the statistics of the derivation that produced them.
 */
export interface DerivedWiringParts {
  readonly loBits: number;
  readonly layers: readonly CompiledLayer[];
  readonly stats: DerivedWiringStats;
}

/** The constructor's marker of an oracle rebuilt from its parts (`fromParts`). */
const FROM_PARTS: unique symbol = Symbol("DerivedRegularWiring.fromParts");

/**
 * Hi-table bounds per layer: of a claim point (out side), and of x and y, which are also the next
 * layer's claim points.
 */
function hiBounds(layers: readonly CompiledLayer[]): [number[], number[]] {
  return [
    layers.map((l) => l.zHiBound),
    layers.map((l, i) => Math.max(l.xHiBound, i + 1 < layers.length ? layers[i + 1]!.zHiBound : 1)),
  ];
}

/**
 * The wiring oracle in closed form (compat-v1 §10.6): each layer's gates are grouped into regular tiles whose predicates are evaluated from the point coordinates, audited against the gates when built (`DERIVATION_MISMATCH` with `strict`, otherwise the group is evaluated gate by gate). Several times faster than `TableWiring` for verification.
 * @throws CircuitError `BAD_OPTION` for `loBits` outside [0, 7].
 * @example
 *   const wiring = new DerivedRegularWiring(compiled.circuit, compiled.tags);
 */
export class DerivedRegularWiring implements WiringOracle {
  private readonly layers: CompiledLayer[];
  /**
   * Hi-table bounds per layer: of a claim point (out side) and of x and y, which are also the
   * next layer's claim points, so their tables are built once for both uses.
   */
  private readonly zBound: number[];
  private readonly xBound: number[];
  private readonly loBits: number;
  private readonly cache = new SplitEqCache(6);
  private readonly scratch = new EvalScratch();
  private readonly out = new Uint32Array(12);
  /** Derivation statistics. */
  readonly stats: DerivedWiringStats;

  /**
   * Derives and audits the block-pattern form of every layer.
   * @param tags the builder's scope tags (optional hints; ignored where they do not fit the circuit).
   * @throws CircuitError if the circuit is malformed (`validateCircuit`), `BAD_OPTION` for a bad
   *   loBits, `DERIVATION_MISMATCH` in strict mode when an audit fails.
   */
  constructor(circuit: Circuit, tags?: CircuitTags, options?: DerivedWiringOptions);
  constructor(
    circuit: Circuit | typeof FROM_PARTS,
    tags?: CircuitTags | DerivedWiringParts,
    options: DerivedWiringOptions = {},
  ) {
    if (circuit === FROM_PARTS) {
      const parts = tags as DerivedWiringParts;
      this.loBits = parts.loBits;
      this.layers = [...parts.layers];
      this.stats = Object.freeze({ ...parts.stats });
      [this.zBound, this.xBound] = hiBounds(this.layers);
      return;
    }
    tags = tags as CircuitTags | undefined;
    const t0 = performance.now();
    validateCircuit(circuit);
    const loBits = options.loBits ?? 4;
    if (!Number.isInteger(loBits) || loBits < 0 || loBits > 7)
      throw new CircuitError("BAD_OPTION", `loBits must be an integer in [0, 7], got ${loBits}`);
    this.loBits = loBits;
    const layerTags =
      tags && Array.isArray(tags.layers) && tags.layers.length === circuit.layers.length ? tags.layers : null;
    const rowsCache = new PatternRowsCache();
    let groups = 0,
      audited = 0,
      residueGates = 0,
      residueConsts = 0,
      patterns = 0,
      placements = 0,
      entries = 0,
      gates = 0;
    // Layers with the same gates as an earlier layer reuse its audited gate part; only their
    // constants are derived (fault injection derives every layer afresh).
    const seen = new GateLayerIndex<CompiledLayer>();
    let reused = 0;
    this.layers = circuit.layers.map((layer, i) => {
      const inBits = inputBitsOf(circuit, i);
      const hash = gateFingerprint(layer, inBits);
      const prior = options.adjustForm ? undefined : seen.find(layer, inBits, hash);
      const part = prior
        ? {
            ...layer,
            gateKind: new Uint8Array(0),
            gateOut: new Uint32Array(0),
            gateIn1: new Uint32Array(0),
            gateIn2: new Uint32Array(0),
            gateCoeff: new Uint32Array(0),
          }
        : layer;
      let form = deriveLayerForm(part, inBits, loBits, prior || !layerTags ? undefined : layerTags[i]);
      if (options.adjustForm) form = options.adjustForm(i, form);
      const audit = auditLayerForm(part, form);
      const bad = !audit.partitionOk || audit.groupOk.includes(false) || audit.constGroupOk.includes(false);
      if (bad && options.strict) {
        throw new CircuitError(
          "DERIVATION_MISMATCH",
          `layer ${i}: the derived wiring form does not re-expand to the layer's gates and constants`,
          { layer: i },
        );
      }
      let compiled = compileLayer(part, form, audit, rowsCache);
      if (prior) {
        compiled = combineParts(prior, compiled);
        reused++;
      } else {
        seen.add(layer, inBits, hash, compiled);
        groups += form.groups.length;
        audited += audit.partitionOk ? audit.groupOk.filter(Boolean).length : 0;
      }
      residueGates += compiled.residue.kind.length;
      residueConsts += compiled.constResidue.wire.length;
      patterns += compiled.terms.length;
      for (const term of compiled.terms) {
        placements += term.oh.length;
        entries += term.b.length;
      }
      gates += layer.gateKind.length;
      return compiled;
    });
    [this.zBound, this.xBound] = hiBounds(this.layers);
    this.stats = Object.freeze({
      layers: circuit.layers.length,
      reusedLayers: reused,
      gates,
      groups,
      auditedGroups: audited,
      residueGates,
      residueConsts,
      patterns,
      placements,
      patternEntries: entries,
      deriveMs: performance.now() - t0,
    });
  }

  /**
   * The oracle's evaluation data (every layer's compiled form, the tile size and the derivation
   * statistics), from which `fromParts` rebuilds an equal oracle without deriving or auditing
   * again. The arrays are the oracle's own: do not write them.
   */
  parts(): DerivedWiringParts {
    return { loBits: this.loBits, layers: this.layers, stats: this.stats };
  }

  /**
   * An oracle from the parts of one built by the constructor (`parts()`, possibly stored and read
   * back): the same field values for every input, at no derivation cost. The parts are trusted as
   * they are (not audited against any gates): give only parts that `parts()` produced.
   * @example
   *   const again = DerivedRegularWiring.fromParts(wiring.parts());
   */
  static fromParts(parts: DerivedWiringParts): DerivedRegularWiring {
    return new (
      DerivedRegularWiring as unknown as new (
        c: typeof FROM_PARTS,
        p: DerivedWiringParts,
      ) => DerivedRegularWiring
    )(FROM_PARTS, parts);
  }

  /** @throws CircuitError `BAD_LAYER_INDEX`, `BAD_GATE_KIND` or `BAD_POINT`. */
  evalPredicate(layer: number, kind: GateKind, z: readonly Ext[], x: readonly Ext[], y: readonly Ext[]): Ext {
    this.checkLayer(layer);
    if (kind !== GateKind.Lin && kind !== GateKind.Mul && kind !== GateKind.Pow3) {
      throw new CircuitError("BAD_GATE_KIND", `unknown gate kind ${kind} (0 Lin, 1 Mul, 2 Pow3)`);
    }
    const r = this.gates(layer, [{ point: z, coeff: EXT_ONE }], x, kind === GateKind.Mul ? y : null, kind);
    return kind === GateKind.Lin ? r.lin : kind === GateKind.Mul ? r.mul : r.pow3;
  }

  /** @throws CircuitError `BAD_LAYER_INDEX` or `BAD_POINT`. */
  evalConst(layer: number, z: readonly Ext[]): Ext {
    return this.evalConstCombined(layer, [{ point: z, coeff: EXT_ONE }]);
  }

  /** @throws CircuitError `BAD_LAYER_INDEX` or `BAD_POINT`. */
  evalCombined(layer: number, claims: readonly Claim[], x: readonly Ext[], y: readonly Ext[]): LayerPredicates {
    this.checkLayer(layer);
    return this.gates(layer, claims, x, this.layers[layer]!.hasMul ? y : null, null);
  }

  /** @throws CircuitError `BAD_LAYER_INDEX` or `BAD_POINT`. */
  evalConstCombined(layer: number, claims: readonly Claim[]): Ext {
    this.checkLayer(layer);
    this.cache.begin();
    const cl = this.layers[layer]!;
    return evalLayerConsts(
      cl,
      this.claimTables(layer, claims),
      claims.map((c) => c.coeff),
    );
  }

  private checkLayer(layer: number): void {
    if (!Number.isInteger(layer) || layer < 0 || layer >= this.layers.length) {
      throw new CircuitError("BAD_LAYER_INDEX", `layer index ${layer} outside [0, ${this.layers.length})`);
    }
  }

  private claimTables(layer: number, claims: readonly Claim[]): SplitEqTables[] {
    const bits = this.layers[layer]!.outBits;
    return claims.map((c, k) => {
      if (c.point.length !== bits) {
        throw new CircuitError(
          "BAD_POINT",
          `claim ${k} has a point of ${c.point.length} coordinates, the layer has ${bits} width bits`,
          { claim: k },
        );
      }
      return this.cache.get(c.point, this.loBits, this.zBound[layer]!);
    });
  }

  private gates(
    layer: number,
    claims: readonly Claim[],
    x: readonly Ext[],
    y: readonly Ext[] | null,
    only: GateKind | null,
  ): LayerPredicates {
    const cl = this.layers[layer]!;
    const s = cl.inBits;
    if (x.length !== s)
      throw new CircuitError(
        "BAD_POINT",
        `layer ${layer}: x has ${x.length} coordinates, the layer below has ${s} width bits`,
      );
    if (y !== null && y.length !== s)
      throw new CircuitError(
        "BAD_POINT",
        `layer ${layer}: y has ${y.length} coordinates, the layer below has ${s} width bits`,
      );
    this.cache.begin();
    const zs = this.claimTables(layer, claims);
    const tx = this.cache.get(x, this.loBits, this.xBound[layer]!);
    const ty = y === null ? null : this.cache.get(y, this.loBits, this.xBound[layer]!);
    const out = this.out;
    evalLayerGates(
      cl,
      zs,
      claims.map((c) => c.coeff),
      tx,
      ty,
      only,
      this.scratch,
      out,
    );
    return {
      lin: [out[0]!, out[1]!, out[2]!, out[3]!],
      mul: [out[4]!, out[5]!, out[6]!, out[7]!],
      pow3: [out[8]!, out[9]!, out[10]!, out[11]!],
    };
  }
}
