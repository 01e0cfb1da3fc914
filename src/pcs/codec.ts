/**
 * The byte encodings of a commitment (`pcs-whir-commitment-v1`) and of an opening proof
 * (`pcs-whir-proof-v1`), docs/pcs.md §7: little-endian u32 words throughout, field elements
 * canonical. Lengths follow from the named set's schedule and two counts per iteration (rows,
 * siblings), so the decoders are strict: every count is bounded before anything is allocated,
 * every word is checked canonical, and trailing bytes are refused.
 */
import { P } from "../field/koalabear.js";
import type { Ext } from "../field/extension.js";
import { PcsError } from "./errors.js";
import {
  whirParameterSet,
  whirParameterSetByCode,
  whirSchedule,
  type WhirParameterSet,
  type WhirSchedule,
} from "./params.js";
import type { CommittedWidth, WhirCommitment, WhirProof, WhirRoundProof } from "./types.js";

/** "WHRC": the first word of a commitment. */
export const WHIR_COMMITMENT_MAGIC = 0x43524857;
/** "WHRP": the first word of an opening proof. */
export const WHIR_PROOF_MAGIC = 0x50524857;

/** A little-endian u32 word writer (the encoders' and src/pcs/hiding-codec.ts's). */
export class Writer {
  private words: number[] = [];
  u32(x: number): void {
    this.words.push(x >>> 0);
  }
  all(xs: ArrayLike<number>): void {
    for (let i = 0; i < xs.length; i++) this.words.push(xs[i]!);
  }
  ext(e: Ext): void {
    this.all(e);
  }
  bytes(): Uint8Array {
    const out = new Uint8Array(4 * this.words.length);
    const view = new DataView(out.buffer);
    this.words.forEach((w, i) => view.setUint32(4 * i, w, true));
    return out;
  }
}

/** A strict little-endian u32 word reader: truncation, non-canonical words and trailing bytes are `PCS_DECODE`. */
export class Reader {
  private at = 0;
  private readonly view: DataView;
  private readonly words: number;
  constructor(
    bytes: Uint8Array,
    private readonly what: string,
  ) {
    if (bytes.length % 4 !== 0)
      throw new PcsError("PCS_DECODE", `${what}: ${bytes.length} bytes is not a whole number of 4-byte words`);
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.words = bytes.length / 4;
  }
  private need(n: number, field: string): void {
    if (this.at + n > this.words)
      throw new PcsError(
        "PCS_DECODE",
        `${this.what}: truncated at ${field} (byte ${4 * this.at}, ${4 * n} more bytes needed, ${4 * (this.words - this.at)} left)`,
        { offset: 4 * this.at },
      );
  }
  /** Words not read yet. */
  remaining(): number {
    return this.words - this.at;
  }
  u32(field: string): number {
    this.need(1, field);
    return this.view.getUint32(4 * this.at++, true);
  }
  elements(n: number, field: string): Uint32Array {
    this.need(n, field);
    const out = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      const v = this.view.getUint32(4 * this.at, true);
      if (v >= P)
        throw new PcsError(
          "PCS_DECODE",
          `${this.what}: ${field} word at byte ${4 * this.at} is ${v}, not canonical (< p)`,
          { offset: 4 * this.at },
        );
      out[i] = v;
      this.at++;
    }
    return out;
  }
  ext(field: string): Ext {
    const e = this.elements(4, field);
    return [e[0]!, e[1]!, e[2]!, e[3]!];
  }
  end(): void {
    if (this.at !== this.words)
      throw new PcsError(
        "PCS_DECODE",
        `${this.what}: ${4 * (this.words - this.at)} trailing bytes after byte ${4 * this.at}`,
        { offset: 4 * this.at },
      );
  }
}

/** Reads the first two words of a message: its magic (`PCS_DECODE` when not `magic`) and a known set's code. */
export function readMagicAndSet(r: Reader, magic: number, what: string): WhirParameterSet {
  const got = r.u32("magic");
  if (got !== magic)
    throw new PcsError("PCS_DECODE", `${what}: magic 0x${got.toString(16)} is not 0x${magic.toString(16)}`);
  const code = r.u32("set");
  const set = whirParameterSetByCode(code);
  if (set === undefined) throw new PcsError("PCS_DECODE", `${what}: unknown parameter set code ${code}`);
  return set;
}

function header(r: Reader, magic: number, what: string): { schedule: WhirSchedule; width: CommittedWidth } {
  const set = readMagicAndSet(r, magic, what);
  const m = r.u32("numVariables");
  let schedule: WhirSchedule;
  try {
    schedule = whirSchedule(set, m);
  } catch (e) {
    throw new PcsError("PCS_DECODE", `${what}: ${m} variables is outside set ${set.id}'s range`, { cause: String(e) });
  }
  const width = r.u32("width");
  if (width !== 1 && width !== 4) throw new PcsError("PCS_DECODE", `${what}: width ${width} is not 1 or 4`);
  return { schedule, width };
}

/** Encodes a commitment (§7.1). */
export function encodeWhirCommitment(c: WhirCommitment): Uint8Array {
  const w = new Writer();
  w.u32(WHIR_COMMITMENT_MAGIC);
  w.u32(whirParameterSet(c.set).code);
  w.u32(c.numVariables);
  w.u32(c.width);
  w.all(c.root);
  for (const a of c.oodAnswers) w.ext(a);
  return w.bytes();
}

/**
 * Decodes a commitment strictly (§7.1).
 * @throws PcsError `PCS_DECODE` naming the field and byte offset.
 */
export function decodeWhirCommitment(bytes: Uint8Array): WhirCommitment {
  const r = new Reader(bytes, "WHIR commitment");
  const { schedule, width } = header(r, WHIR_COMMITMENT_MAGIC, "WHIR commitment");
  const root = r.elements(8, "root");
  const oodAnswers: Ext[] = [];
  for (let i = 0; i < schedule.initialOodSamples; i++) oodAnswers.push(r.ext(`oodAnswers[${i}]`));
  r.end();
  return { set: schedule.set.id, numVariables: schedule.numVariables, width, root, oodAnswers };
}

/** Encodes an opening proof (§7.2). */
export function encodeWhirProof(p: WhirProof): Uint8Array {
  const w = new Writer();
  w.u32(WHIR_PROOF_MAGIC);
  w.u32(whirParameterSet(p.set).code);
  w.u32(p.numVariables);
  w.u32(p.width);
  writeRounds(w, p);
  return w.bytes();
}

/** The iterations and the final sumcheck of a proof (§7.2 after the header). */
export function writeRounds(w: Writer, p: Pick<WhirProof, "rounds" | "finalSumcheck">): void {
  for (const rp of p.rounds) {
    for (const [h0, h2] of rp.sumcheck) {
      w.ext(h0);
      w.ext(h2);
    }
    for (const x of rp.foldWitnesses) w.u32(x);
    if (rp.nextRoot !== null) w.all(rp.nextRoot);
    for (const a of rp.nextOodAnswers) w.ext(a);
    if (rp.finalCoefficients !== null) w.all(rp.finalCoefficients);
    if (rp.queryWitness !== null) w.u32(rp.queryWitness);
    w.u32(rp.rowCount);
    w.all(rp.rows);
    w.u32(rp.siblings.length / 8);
    w.all(rp.siblings);
  }
  for (const [h0, h2] of p.finalSumcheck) {
    w.ext(h0);
    w.ext(h2);
  }
}

/**
 * Decodes an opening proof strictly (§7.2–7.3): the layout is the named set's schedule; row and
 * sibling counts are bounded by the queries and the tree height before anything is read.
 * @throws PcsError `PCS_DECODE` naming the field and byte offset.
 */
export function decodeWhirProof(bytes: Uint8Array): WhirProof {
  const r = new Reader(bytes, "WHIR proof");
  const { schedule, width } = header(r, WHIR_PROOF_MAGIC, "WHIR proof");
  const { rounds, finalSumcheck } = readRounds(r, schedule, width, "WHIR proof");
  r.end();
  return { set: schedule.set.id, numVariables: schedule.numVariables, width, rounds, finalSumcheck };
}

/**
 * Reads the iterations and the final sumcheck of a proof (§7.2 after the header) for `schedule`:
 * the first iteration's rows have `firstWidth` words per value (1 or 4; 5 for a hiding proof, §12.5).
 */
export function readRounds(
  r: Reader,
  schedule: WhirSchedule,
  firstWidth: number,
  what: string,
): { rounds: WhirRoundProof[]; finalSumcheck: [Ext, Ext][] } {
  const rounds: WhirRoundProof[] = [];
  let rowWidth: number = firstWidth;
  schedule.rounds.forEach((round, i) => {
    const last = i === schedule.rounds.length - 1;
    const sumcheck: [Ext, Ext][] = [];
    for (let s = 0; s < round.foldingFactor; s++)
      sumcheck.push([r.ext(`rounds[${i}].sumcheck[${s}].h0`), r.ext(`rounds[${i}].sumcheck[${s}].h2`)]);
    const foldWitnesses: number[] = [];
    if (round.foldPowBits > 0)
      for (let s = 0; s < round.foldingFactor; s++)
        foldWitnesses.push(r.elements(1, `rounds[${i}].foldWitnesses[${s}]`)[0]!);
    const nextRoot = last ? null : r.elements(8, `rounds[${i}].nextRoot`);
    const nextOodAnswers: Ext[] = [];
    for (let j = 0; j < round.nextOodSamples; j++) nextOodAnswers.push(r.ext(`rounds[${i}].nextOodAnswers[${j}]`));
    const finalCoefficients = last ? r.elements(4 << schedule.finalVariables, `rounds[${i}].finalCoefficients`) : null;
    const queryWitness = round.queryPowBits > 0 ? r.elements(1, `rounds[${i}].queryWitness`)[0]! : null;
    const rowCount = r.u32(`rounds[${i}].rowCount`);
    const maxRows = Math.min(round.queries, 2 ** round.logRows);
    if (rowCount < 1 || rowCount > maxRows)
      throw new PcsError("PCS_DECODE", `${what}: rounds[${i}].rowCount ${rowCount} is outside [1, ${maxRows}]`);
    const rows = r.elements(rowCount * (1 << round.foldingFactor) * rowWidth, `rounds[${i}].rows`);
    const siblingCount = r.u32(`rounds[${i}].siblingCount`);
    const maxSiblings = rowCount * round.logRows;
    if (siblingCount > maxSiblings)
      throw new PcsError("PCS_DECODE", `${what}: rounds[${i}].siblingCount ${siblingCount} is above ${maxSiblings}`);
    const siblings = r.elements(8 * siblingCount, `rounds[${i}].siblings`);
    rounds.push({
      sumcheck,
      foldWitnesses,
      nextRoot,
      nextOodAnswers,
      finalCoefficients,
      queryWitness,
      rowCount,
      rows,
      siblings,
    });
    rowWidth = 4;
  });
  const finalSumcheck: [Ext, Ext][] = [];
  for (let s = 0; s < schedule.finalVariables; s++)
    finalSumcheck.push([r.ext(`finalSumcheck[${s}].h0`), r.ext(`finalSumcheck[${s}].h2`)]);
  return { rounds, finalSumcheck };
}
