/**
 * `GET /v1/consistency?from=SIZE&to=SIZE[&after=BATCH][&limit=N]` (docs/http.md "Consistency
 * between checkpoints"): the chain of kept block proofs that takes the root of size `from` to the
 * root of size `to`, one link per batch (a batch of more updates than one block proof holds proved in parts: one
 * link per part, `part` and `parts` saying which), a page at a time; and the background block prover
 * (registry/consistency/block-prover.ts) that makes the blocks after the commits, proving on a
 * worker thread, started with the route when the server may write the registry.
 *
 * Bounded work: a page holds the links of at most `limit` batches (default 16, at most 64) and at
 * most 8 MiB of proofs and block.json texts (at least one link; a batch proved in parts may be cut
 * between two parts, `next_part` then says where to go on), each link one read of a stored row;
 * no request proves anything. A link whose block is
 * still to be proved ends the page (its `next` says where to go on); when the page's first link is
 * still to be proved the answer is `202 PROOF_PENDING` with `Retry-After`. A batch whose block can
 * never be made (its changes not recorded, or its tree gone from the retention window before it
 * was proved) is `410 CHAIN_NOT_PROVABLE`.
 */
import type { FastifyInstance } from "fastify";
import { isNameKeyed, type AnyStore } from "../counterparty/prove.js";
import { bytesBase64 } from "../counterparty/body.js";
import { formatRoot } from "../counterparty/claim.js";
import type { NameStore } from "../registry/store/name-store.js";
import {
  BlockProver,
  type BlockProofKeeper,
  batchBlockParts,
  batchProofState,
  type BatchProofState,
  type BlockPartProver,
  blockProvedText,
} from "../registry/consistency/block-prover.js";
import type { StoredBlockSummary } from "../registry/store/block-rows.js";

/** One line on stderr per stored block (or part): what the background prover did. */
function logProved(s: StoredBlockSummary, ms: number): void {
  process.stderr.write(`block prover: ${blockProvedText(s, ms)}\n`);
}
import { HttpError } from "./errors.js";
import { queryInt } from "./values.js";

/** Batches per page unless asked (`limit`), and at most. */
const DEFAULT_LINKS = 16;
const MAX_LINKS = 64;
/** Bytes of proofs and block.json texts per page at most, unless the server sets another bound (a page always holds at least one link). */
export const DEFAULT_CONSISTENCY_PAGE_BYTES = 8 * 1024 * 1024;
/** Seconds a client waits before asking again for a block still being proved. */
export const RETRY_AFTER_SECONDS = 2;

const digest = { type: "string", pattern: "^[0-9a-f]{64}$" } as const;
/** A size (batch number) in a query. */
const size = { type: "integer", minimum: 0, maximum: 999_999_999 } as const;
const end = {
  type: "object",
  properties: { size: { type: "integer" }, root: digest },
  required: ["size", "root"],
} as const;
const error = {
  type: "object",
  properties: { code: { type: "string" }, message: { type: "string" }, batch: { type: "integer" } },
  required: ["code", "message"],
} as const;

/** The route schema (OpenAPI; test/http/route-schemas.test.ts holds it to what the route accepts). */
export const CONSISTENCY_SCHEMA = {
  summary: "the chain of block proofs from the root of one size (checkpoint) to another's, a page at a time",
  description:
    "One link per batch from+1..to: {batch, from_root, to_root, block: <block.json>, proof: <block.bin, base64>} or {batch, from_root, to_root, unchanged: true} for a batch that left the root as it was; a batch of more updates than one block proof holds (an import) is proved in parts, one link per part in a row, each with part (from 0) and parts. Check the links of every page in one call with verifyConsistency (statesync-gkr/v3) or `ssgkr registry verify-consistency`.",
  tags: ["blocks"],
  querystring: {
    type: "object",
    properties: {
      from: { ...size, description: "the older size (a checkpoint's size: a batch number)" },
      to: { ...size, description: "the newer size (at most the head's)" },
      after: {
        ...size,
        description: "paging: the `next` of the previous page (the last batch it held), in [from, to]",
      },
      after_part: {
        ...size,
        maximum: 99_999,
        description:
          "paging inside a batch proved in parts: the `next_part` of the previous page (with after = its `next`)",
      },
      limit: {
        type: "integer",
        minimum: 0,
        maximum: MAX_LINKS,
        description: `the links of at most N batches (default ${DEFAULT_LINKS}, at most ${MAX_LINKS}; 0 is taken as 1); a page also stops at 8 MiB of proofs and block.json texts, inside a batch proved in parts if need be (next_part)`,
      },
    },
    required: ["from", "to"],
  },
  response: {
    200: {
      type: "object",
      properties: {
        from: end,
        to: end,
        links: {
          type: "array",
          items: {
            type: "object",
            properties: {
              batch: { type: "integer" },
              part: { type: "integer", description: "a batch proved in parts: this link's part, from 0" },
              parts: { type: "integer", description: "a batch proved in parts: its parts (links in a row)" },
              from_root: digest,
              to_root: digest,
              unchanged: { type: "boolean" },
              block: { type: "object", additionalProperties: true },
              proof: { type: "string", description: "block.bin (inner-proof-v3, proof kind 2) in base64" },
            },
            required: ["batch", "from_root", "to_root"],
            additionalProperties: false,
          },
        },
        next: {
          anyOf: [{ type: "integer" }, { type: "null" }],
          description:
            "null on the last page; else ask again with after = next (and after_part = next_part when there is one)",
        },
        next_part: {
          type: "integer",
          description:
            "the page ended inside batch next + 1, a batch proved in parts, after this part: ask again with after = next and after_part = next_part",
        },
      },
      required: ["from", "to", "links", "next"],
      additionalProperties: false,
    },
    202: {
      description: "PROOF_PENDING: the page's first block is still being proved; ask again after Retry-After seconds",
      ...error,
    },
    400: error,
    404: error,
    410: error,
  },
} as const;

const NOT_PROVABLE: Partial<Record<BatchProofState, string>> = {
  "not-recorded": "its changes were not recorded (committed before the registry kept its change log)",
  "not-provable": "the tree of the batch before left the retention window before its block was proved",
  failed: "proving it failed (the server's standard error has the details)",
};

/**
 * Registers `GET /v1/consistency` and, when `prove` is set and the store can be written, starts
 * the block prover (stopped when the app closes). `pageBytes` bounds a page's proofs and
 * block.json texts.
 * @returns the prover, or undefined when none runs.
 */
export function registerConsistencyRoute(
  app: FastifyInstance,
  store: AnyStore,
  prove: boolean,
  pageBytes: number = DEFAULT_CONSISTENCY_PAGE_BYTES,
  pool?: BlockPartProver,
  keeper?: BlockProofKeeper,
): BlockProver | undefined {
  const names = isNameKeyed(store) ? (store as NameStore) : undefined;
  const prover =
    names !== undefined && prove && !names.readOnly
      ? new BlockProver(
          names,
          pool !== undefined
            ? { pool, onProved: logProved, ...(keeper !== undefined ? { keeper } : {}) }
            : { worker: true },
        )
      : undefined;
  if (prover !== undefined) {
    app.addHook("onReady", async () => prover.start());
    app.addHook("onClose", async () => prover.stop());
  }
  app.get("/v1/consistency", { schema: CONSISTENCY_SCHEMA }, async (req, reply) => {
    const q = req.query as { from?: unknown; to?: unknown; after?: unknown; after_part?: unknown; limit?: unknown };
    if (q.from === undefined || q.to === undefined)
      throw new HttpError("BAD_INPUT", "query: give from=SIZE and to=SIZE (the sizes of two checkpoints)", {
        field: q.from === undefined ? "query.from" : "query.to",
      });
    const from = queryInt(q.from, "query.from", 0, 999_999_999);
    const to = queryInt(q.to, "query.to", 0, 999_999_999);
    const limit = queryInt(q.limit, "query.limit", DEFAULT_LINKS, MAX_LINKS);
    if (from > to)
      throw new HttpError("BAD_INPUT", `query.from: size ${from} is after size ${to} (a chain goes forward)`, {
        field: "query.from",
      });
    if (names === undefined)
      throw new HttpError("SIZE_UNKNOWN", "consistency chains are served by name-keyed registries (record-leaf-v2)");
    const head = names.head().batch;
    if (to > head) throw new HttpError("SIZE_UNKNOWN", `size ${to} is after the head's size ${head}`, { batch: to });
    const after = q.after === undefined ? from : queryInt(q.after, "query.after", 0, 999_999_999);
    if (after < from || after > to)
      throw new HttpError(
        "BAD_INPUT",
        `query.after: must be in [from, to] = [${from}, ${to}] (the next of the previous page)`,
        { field: "query.after" },
      );
    // Inside a batch proved in parts: the page before ended after part `afterPart` of batch after + 1.
    const afterPart = q.after_part === undefined ? undefined : queryInt(q.after_part, "query.after_part", 0, 99_999);
    if (afterPart !== undefined) {
      const parts = after < to ? batchBlockParts(names, after + 1) : 0;
      if (q.after === undefined || afterPart >= parts - 1)
        throw new HttpError(
          "BAD_INPUT",
          `query.after_part: goes with after = the next of the previous page, and names a part of batch after + 1 before its last (its next_part)`,
          { field: "query.after_part" },
        );
    }
    const links: Record<string, unknown>[] = [];
    let bytes = 0;
    let batches = 0;
    let b = after + 1;
    /** Set when the page ends inside a batch: the last part it holds. */
    let endPart: number | undefined;
    for (; b <= to && batches < Math.max(1, limit); b++, batches++) {
      const state = prover?.state(b) ?? batchProofState(names, b);
      if (state === "kept") {
        // A batch proved in parts is one link per part; a page ends inside it only at the byte bound.
        const parts = batchBlockParts(names, b);
        const first = b === after + 1 && afterPart !== undefined ? afterPart + 1 : 0;
        let stop = false;
        for (let p = first; p < parts; p++) {
          const k = names.blockProof(b, parts > 1 ? p : undefined)!;
          const size = k.proof.length + Buffer.byteLength(k.blockJson, "utf8");
          if (links.length > 0 && bytes + size > pageBytes) {
            // The page ends before batch b, or inside it after part p − 1.
            if (p > first) endPart = p - 1;
            stop = true;
            break;
          }
          bytes += size;
          links.push({
            batch: b,
            ...(parts > 1 ? { part: p, parts } : {}),
            from_root: k.summary.from_root,
            to_root: k.summary.to_root,
            block: JSON.parse(k.blockJson) as unknown,
            proof: bytesBase64(k.proof),
          });
        }
        if (stop) break;
        continue;
      }
      if (state === "unchanged") {
        const root = formatRoot(names.batchEntry(b).root);
        links.push({ batch: b, from_root: root, to_root: root, unchanged: true });
        continue;
      }
      if (state === "pending") {
        if (links.length > 0) break;
        void reply.header("retry-after", String(RETRY_AFTER_SECONDS));
        void reply.status(202);
        return {
          code: "PROOF_PENDING",
          message: `the block of batch ${b} is still being proved${prover === undefined ? " (this server runs no block prover: it serves the blocks a prover that can write the registry made)" : ""}; ask again in ${RETRY_AFTER_SECONDS} s`,
          batch: b,
        };
      }
      throw new HttpError("CHAIN_NOT_PROVABLE", `no chain crosses batch ${b}: ${NOT_PROVABLE[state] ?? state}`, {
        batch: b,
      });
    }
    const next = b <= to ? b - 1 : null;
    return {
      from: { size: from, root: formatRoot(names.batchEntry(from).root) },
      to: { size: to, root: formatRoot(names.batchEntry(to).root) },
      links,
      next,
      ...(endPart !== undefined ? { next_part: endPart } : {}),
    };
  });
  return prover;
}
