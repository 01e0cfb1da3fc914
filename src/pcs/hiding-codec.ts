/**
 * The bytes of a hiding commitment (`pcs-whir-hiding-commitment-v1`) and of a masked opening
 * (`pcs-whir-hiding-proof-v1`), docs/pcs.md §12.5: little-endian u32 words, field elements
 * canonical, every length fixed by the set's hiding schedule and the counts the proof carries
 * (claims, rows, siblings), each bounded before anything is read; trailing bytes are refused.
 */
import type { Ext } from "../field/extension.js";
import { Reader, Writer, readMagicAndSet, readRounds, writeRounds } from "./codec.js";
import { PcsError } from "./errors.js";
import {
  hidingExtraVariables,
  hidingWidthCode,
  WHIR_HIDING_LAYOUTS,
  whirHidingSchedule,
  type WhirHidingSchedule,
} from "./hiding-params.js";
import { whirParameterSet } from "./params.js";
import type { WhirHidingCommitment, WhirHidingLayout, WhirHidingProof } from "./types.js";

/** "WHZC": the first word of a hiding commitment. */
export const WHIR_HIDING_COMMITMENT_MAGIC = 0x435a4857;
/** "WHZP": the first word of a masked opening proof. */
export const WHIR_HIDING_PROOF_MAGIC = 0x505a4857;
/**
 * The width code of a hiding commitment in the layout "extra-variable": F′ base-field words, then
 * G′ extension words, per row (§12.3); the layout "top-block" has the same rows under code 6 (§12.10).
 */
export const WHIR_HIDING_WIDTH_CODE = 5;

function header(r: Reader, magic: number, what: string): WhirHidingSchedule {
  const set = readMagicAndSet(r, magic, what);
  const committed = r.u32("committedVariables");
  const width = r.u32("width");
  const layout = WHIR_HIDING_LAYOUTS.find((l) => hidingWidthCode(l) === width);
  if (layout === undefined)
    throw new PcsError(
      "PCS_DECODE",
      `${what}: width code ${width} is neither 5 ("extra-variable") nor 6 ("top-block")`,
    );
  try {
    return whirHidingSchedule(set, committed - hidingExtraVariables(layout), layout);
  } catch (e) {
    throw new PcsError(
      "PCS_DECODE",
      `${what}: set ${set.id} has no hiding commitment of ${committed} committed variables in the ${layout} layout`,
      { cause: String(e) },
    );
  }
}

function writeHeader(
  w: Writer,
  magic: number,
  set: WhirHidingCommitment["set"],
  m: number,
  layout: WhirHidingLayout,
): void {
  w.u32(magic);
  w.u32(whirParameterSet(set).code);
  w.u32(m + hidingExtraVariables(layout));
  w.u32(hidingWidthCode(layout));
}

/** Encodes a hiding commitment (§12.5.1). */
export function encodeWhirHidingCommitment(c: WhirHidingCommitment): Uint8Array {
  const w = new Writer();
  writeHeader(w, WHIR_HIDING_COMMITMENT_MAGIC, c.set, c.numVariables, c.layout ?? "extra-variable");
  w.all(c.root);
  return w.bytes();
}

/**
 * Decodes a hiding commitment strictly (§12.5.1).
 * @throws PcsError `PCS_DECODE` naming the field and byte offset: a length not whole words, a wrong magic, an
 *   unknown set, a width code other than 5 and 6, committed variables outside the set's hiding range for the
 *   layout, a non-canonical root word,
 *   truncation, trailing bytes.
 */
export function decodeWhirHidingCommitment(bytes: Uint8Array): WhirHidingCommitment {
  if (!(bytes instanceof Uint8Array)) throw new PcsError("PCS_DECODE", "a hiding commitment is a Uint8Array");
  const r = new Reader(bytes, "WHIR hiding commitment");
  const hiding = header(r, WHIR_HIDING_COMMITMENT_MAGIC, "WHIR hiding commitment");
  const root = r.elements(8, "root");
  r.end();
  return { set: hiding.set.id, numVariables: hiding.numVariables, layout: hiding.layout, root };
}

/** Encodes a masked opening proof (§12.5.2). */
export function encodeWhirHidingProof(p: WhirHidingProof): Uint8Array {
  const w = new Writer();
  writeHeader(w, WHIR_HIDING_PROOF_MAGIC, p.set, p.numVariables, p.layout);
  w.u32(p.maskedValues.length);
  for (const v of p.maskedValues) w.ext(v);
  if (p.batchWitness !== null) w.u32(p.batchWitness);
  for (const a of p.oodAnswers) w.ext(a);
  writeRounds(w, p);
  return w.bytes();
}

/**
 * Decodes a masked opening proof strictly (§12.5.2–12.5.3): the claim count is bounded by the
 * bytes left (16 per σ′) before any σ′ is read, the rest is laid out by the hiding schedule.
 * @throws PcsError `PCS_DECODE` naming the field and byte offset.
 */
export function decodeWhirHidingProof(bytes: Uint8Array): WhirHidingProof {
  if (!(bytes instanceof Uint8Array)) throw new PcsError("PCS_DECODE", "a hiding proof is a Uint8Array");
  const what = "WHIR hiding proof";
  const r = new Reader(bytes, what);
  const hiding = header(r, WHIR_HIDING_PROOF_MAGIC, what);
  const count = r.u32("claimCount");
  if (count < 1 || 4 * count > r.remaining())
    throw new PcsError(
      "PCS_DECODE",
      `${what}: claimCount ${count} is 0 or longer than the ${4 * r.remaining()} bytes left`,
    );
  const maskedValues: Ext[] = [];
  for (let c = 0; c < count; c++) maskedValues.push(r.ext(`maskedValues[${c}]`));
  const batchWitness = hiding.batchPowBits > 0 ? r.elements(1, "batchWitness")[0]! : null;
  const oodAnswers: Ext[] = [];
  for (let j = 0; j < hiding.schedule.initialOodSamples; j++) oodAnswers.push(r.ext(`oodAnswers[${j}]`));
  const { rounds, finalSumcheck } = readRounds(r, hiding.schedule, 5, what); // 5 words per first-iteration value: F′'s, then G′'s four
  r.end();
  return {
    set: hiding.set.id,
    numVariables: hiding.numVariables,
    layout: hiding.layout,
    maskedValues,
    batchWitness,
    oodAnswers,
    rounds,
    finalSumcheck,
  };
}
