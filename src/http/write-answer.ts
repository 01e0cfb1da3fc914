/**
 * What a write answers (docs/http.md "Writes"), and the two request headers a write reads:
 * `Idempotency-Key` (1..128 visible ASCII characters; 400 `BAD_IDEMPOTENCY_KEY` otherwise) and
 * `Prefer: respond-async` (RFC 7240; other preferences are ignored, as the RFC asks).
 */
import type { FastifyRequest } from "fastify";
import { SsgkrError } from "../errors.js";
import type { StoredResult } from "../registry/sequencer/sequencer.js";
import { checkpointOf, type HttpContext } from "./context.js";
import { HttpError } from "./errors.js";

/** Longest `Idempotency-Key`. */
export const MAX_IDEMPOTENCY_KEY = 128;

/**
 * The request's `Idempotency-Key`, or undefined.
 * @throws HttpError 400 `BAD_IDEMPOTENCY_KEY`: given twice, empty, longer than 128 characters, or
 *   with a character outside visible ASCII (0x21..0x7E).
 */
export function idempotencyKeyOf(req: FastifyRequest): string | undefined {
  const h = req.headers["idempotency-key"];
  if (h === undefined) return undefined;
  if (typeof h !== "string")
    throw new HttpError("BAD_IDEMPOTENCY_KEY", "Idempotency-Key: give the header once", { field: "Idempotency-Key" });
  if (h.length < 1 || h.length > MAX_IDEMPOTENCY_KEY || !/^[\x21-\x7e]+$/.test(h))
    throw new HttpError(
      "BAD_IDEMPOTENCY_KEY",
      `Idempotency-Key: must be 1..${MAX_IDEMPOTENCY_KEY} visible ASCII characters (0x21..0x7E), got ${h.length} characters${/^[\x21-\x7e]*$/.test(h) ? "" : " with others"}`,
      { field: "Idempotency-Key" },
    );
  return h;
}

/** Whether the request asks for `Prefer: respond-async` (RFC 7240; tokens are case-insensitive). */
export function prefersAsync(req: FastifyRequest): boolean {
  const h = req.headers["prefer"];
  if (h === undefined) return false;
  const all = (Array.isArray(h) ? h : h === undefined ? [] : [h]).join(",");
  return all.split(",").some((p) => p.split(";")[0]!.trim().toLowerCase() === "respond-async");
}

/** The URL path of a name's record (one URL-encoded segment). */
function recordPath(name: string): string {
  return `/v1/records/${encodeURIComponent(name)}`;
}

/** The answer of a write whose epoch has committed (200). */
export function committedAnswer(
  ctx: HttpContext,
  name: string,
  r: Extract<StoredResult, { ok: true }>,
): Record<string, unknown> {
  const checkpoint = checkpointOf(ctx, r.batch, r.root);
  const proof = `${recordPath(name)}/proof?root=${r.root}`;
  return {
    status: "committed",
    op: r.op,
    name,
    batch: r.batch,
    position: r.position,
    root: r.root,
    ...(checkpoint !== undefined ? { checkpoint } : {}),
    proof,
    prove: `GET ${proof}${proveTail(r.batch)}`,
  };
}

/** The parts of a committed answer that every write of one epoch shares. */
interface EpochParts {
  readonly batch: number;
  readonly root: string;
  /** `,"root":…` and, when there is one, `,"checkpoint":…` (JSON). */
  readonly rootJson: string;
  /** The `prove` text after the proof path, escaped as inside a JSON string. */
  readonly proveTail: string;
}

/** The last epoch's shared parts, by app (its `HttpContext`). */
const EPOCH_PARTS = new WeakMap<HttpContext, EpochParts>();

/**
 * `committedAnswer` as its JSON text, byte for byte `JSON.stringify(committedAnswer(…))`: the
 * root, the checkpoint and the block's consistency range are serialized once per epoch, not
 * once per write (an epoch answers thousands of writes with the same signed checkpoint).
 */
export function committedAnswerJson(ctx: HttpContext, name: string, r: Extract<StoredResult, { ok: true }>): string {
  let e = EPOCH_PARTS.get(ctx);
  if (e === undefined || e.batch !== r.batch || e.root !== r.root) {
    const checkpoint = checkpointOf(ctx, r.batch, r.root);
    e = {
      batch: r.batch,
      root: r.root,
      rootJson: `,"root":${JSON.stringify(r.root)}${checkpoint !== undefined ? `,"checkpoint":${JSON.stringify(checkpoint)}` : ""}`,
      proveTail: JSON.stringify(proveTail(r.batch)).slice(1, -1),
    };
    EPOCH_PARTS.set(ctx, e);
  }
  const proof = JSON.stringify(`${recordPath(name)}/proof?root=${r.root}`);
  return `{"status":"committed","op":${JSON.stringify(r.op)},"name":${JSON.stringify(name)},"batch":${r.batch},"position":${r.position}${e.rootJson},"proof":${proof},"prove":"GET ${proof.slice(1, -1)}${e.proveTail}"}`;
}

/** The `prove` text of a committed answer after `GET <proof path>`. */
function proveTail(batch: number): string {
  return ` proves the name's state at this root (add &profile=v3 or &zk=1 for the other profiles); GET /v1/consistency?from=${batch - 1}&to=${batch} serves the epoch's block once it is proved`;
}

/** The answer of a write accepted under `Prefer: respond-async` (202): durable, applied by a coming epoch. */
export function acceptedAnswer(op: string, name: string, epochMs: number): Record<string, unknown> {
  return {
    status: "accepted",
    op,
    name,
    record: recordPath(name),
    message: `the write is durable and will be applied by an epoch within about ${epochMs} ms; GET ${recordPath(name)} shows the record once it is applied (a write that does not fit the record's state then fails alone)`,
  };
}

/** The error of a write that failed in its epoch (its code and message, as first answered). */
export function storedError(r: Extract<StoredResult, { ok: false }>): SsgkrError {
  return new SsgkrError(r.code, r.message);
}
