/**
 * The frontend's acceptance checks of one protocol 2 reply (docs/serving.md "Profile v2"), in
 * order, the first failure naming the rejection:
 *
 * 1. no server error (`server_error: …`);
 * 2. binding: protocol 2, run_id, fixture_id and kind equal the offered job's (`binding: …`);
 * 3. SHA-256 of the proof frame = `canonical_sha256` (`sha256_mismatch`);
 * 4. the frame is a served aggregate (`served_aggregate: …`, strict envelope decoder), its job
 *    inputs are n schema-valid `Job.input`s that pass the §16.2 input rules at this depth;
 * 5. the input at the job's operation index is the offered request (`binding: operation …`);
 * 6. `verifyAggregate` of the aggregate against the n requests, in the verification pool
 *    (`verify: CODE: reason`).
 *
 * Steps 4 and 6 run once per batch part (every byte of the frame but the index, identified by
 * its SHA-256): the replies of one batch share one parse and one aggregate verification, whose
 * worker time is recorded on the reply that started it (0 on the others). Accepting the aggregate
 * proves every statement of the list; step 5 makes the offered one of them.
 */
import type { OpRequest } from "../../smt/operation.js";
import { z } from "zod";
import { inputFromRequest, requestFromInput } from "../protocol/input.js";
import { decodeUtf8, jobInputSchema } from "../protocol/job.js";
import { parseJson, stringifyJson } from "../protocol/json.js";
import { PROTOCOL_VERSION_V2 } from "../protocol/limits.js";
import { sha256Hex, type Reply } from "../protocol/reply.js";
import { decodeServedAggregate } from "../protocol/served-aggregate.js";
import type { CheckVerdict, OfferedJob } from "./checker.js";
import type { VerifyPool } from "./verify-pool.js";

interface BatchEntry {
  /** Canonical JSON of each operation's request (`inputFromRequest`), or the batch's rejection. */
  readonly parsed:
    | { readonly ok: true; readonly canonical: readonly string[]; readonly requests: readonly OpRequest[] }
    | { readonly ok: false; readonly reason: string };
  verdict: Promise<{ readonly reason: string | null; readonly ms: number | null }> | null;
  /** Replies of the batch still to be checked (the entry is dropped at 0). */
  remaining: number;
}

const inputsSchema = z.array(jobInputSchema);

function canonicalOf(request: OpRequest): string {
  return stringifyJson(inputFromRequest(request));
}

/** Checks protocol 2 replies; one instance per run (it caches batch verifications). */
export class AggregateChecker {
  private readonly batches = new Map<string, BatchEntry>();
  private readonly own = new WeakMap<OpRequest, string>();

  constructor(
    private readonly pool: VerifyPool,
    private readonly depth: number,
  ) {}

  /** Batch parts being checked. */
  get openBatches(): number {
    return this.batches.size;
  }

  /** Runs every check of one reply (see the module comment). */
  async check(reply: Reply, proof: Uint8Array, job: OfferedJob, runId: string): Promise<CheckVerdict> {
    const fail = (reason: string, verifyMs: number | null = null): CheckVerdict => ({ ok: false, reason, verifyMs });
    if (reply.error !== null) return fail(`server_error: ${reply.error}`);
    if (reply.protocol !== PROTOCOL_VERSION_V2)
      return fail(`binding: protocol ${reply.protocol} ≠ ${PROTOCOL_VERSION_V2}`);
    if (reply.run_id !== runId)
      return fail(`binding: run_id ${JSON.stringify(reply.run_id)} ≠ ${JSON.stringify(runId)}`);
    if (reply.fixture_id !== job.fixtureId) return fail(`binding: fixture_id ${reply.fixture_id} ≠ ${job.fixtureId}`);
    if (reply.kind !== job.kind)
      return fail(`binding: kind ${JSON.stringify(reply.kind)} ≠ ${JSON.stringify(job.kind)}`);
    const hash = sha256Hex(proof);
    if (hash !== reply.canonical_sha256)
      return fail(`sha256_mismatch: bytes hash to ${hash}, reply says ${JSON.stringify(reply.canonical_sha256)}`);
    let served;
    try {
      served = decodeServedAggregate(proof);
    } catch (err) {
      return fail(`served_aggregate: ${(err as Error).message}`);
    }
    const key = sha256Hex(served.batchPart);
    let entry = this.batches.get(key);
    if (!entry) {
      entry = { parsed: this.parse(served.inputsJson, served.operations), verdict: null, remaining: served.operations };
      this.batches.set(key, entry);
    }
    if (--entry.remaining <= 0) this.batches.delete(key);
    const parsed = entry.parsed;
    if (!parsed.ok) return fail(parsed.reason);
    let mine = this.own.get(job.request);
    if (mine === undefined) this.own.set(job.request, (mine = canonicalOf(job.request)));
    if (parsed.canonical[served.index] !== mine)
      return fail(`binding: operation ${served.index} of the served aggregate is not the offered request`);
    let first = false;
    if (entry.verdict === null) {
      first = true;
      const aggregate = Uint8Array.from(served.aggregate);
      entry.verdict = this.pool.verifyAggregate(job.kind, this.depth, parsed.requests, aggregate).then((v) => {
        if (!v.ok) return { reason: `verifier_error: ${v.code}: ${v.message}`, ms: null };
        if (!v.accepted) return { reason: `verify: ${v.code}: ${v.reason}`, ms: v.ms };
        return { reason: null, ms: v.ms };
      });
    }
    const v = await entry.verdict;
    const ms = first ? v.ms : v.ms === null ? null : 0;
    return v.reason === null ? { ok: true, verifyMs: ms ?? 0 } : fail(v.reason, ms);
  }

  private parse(json: Uint8Array, n: number): BatchEntry["parsed"] {
    let value: unknown;
    try {
      value = parseJson(decodeUtf8(json));
    } catch (err) {
      return { ok: false, reason: `served_aggregate: the job inputs are not JSON: ${(err as Error).message}` };
    }
    const r = inputsSchema.safeParse(value);
    if (!r.success)
      return {
        ok: false,
        reason: `served_aggregate: the job inputs are not a list of Job.input: ${r.error.issues[0]?.message ?? "invalid"}`,
      };
    if (r.data.length !== n)
      return { ok: false, reason: `served_aggregate: ${r.data.length} job inputs for ${n} operations` };
    const requests: OpRequest[] = [];
    const canonical: string[] = [];
    for (let i = 0; i < n; i++) {
      const o = requestFromInput(r.data[i] as Parameters<typeof requestFromInput>[0], this.depth);
      if (!o.ok) return { ok: false, reason: `served_aggregate: job input ${i}: ${o.reason}` };
      requests.push(o.request);
      canonical.push(canonicalOf(o.request));
    }
    return { ok: true, canonical, requests };
  }
}
