/**
 * The public reads (docs/http.md), as one fastify plugin: the signed checkpoint (the head's, or
 * with `?size=N` a retained batch's; a mirror serves the primary's it stored), the root, the
 * history, a record, and a name's membership or absence proof at the current root or an earlier
 * one (JSON or the bare bytes), in compat-v1, profile v3 or its zero-knowledge mode (`?zk=1`).
 * Proofs are cached per (root, name, kind, profile and mode); a name-keyed
 * registry proves at any root of its retention window, a slot registry at earlier roots only
 * while cached. With a proving pool (src/proving) a proof not in the cache is made on a worker
 * at the root the request resolved (the head's when none is given), and requests for the same
 * proof while it is made share it; cached answers never wait for the pool.
 */
import type { FastifyInstance } from "fastify";
import { SsgkrError } from "../errors.js";
import { digestEquals } from "../hash/digest.js";
import { formatRoot, valueJson } from "../counterparty/claim.js";
import { isNameKeyed, nameState, proveNameRead, type AnyStore, type NameProof } from "../counterparty/prove.js";
import type { ReadStatementJson } from "../counterparty/claim.js";
import { signCheckpoint } from "../registry/checkpoint/signing-key.js";
import { ProofCache } from "./cache.js";
import { checkpointOf, nameOf, type HttpContext } from "./context.js";
import { HttpError } from "./errors.js";
import { nameFormJson, proofBody } from "./proof-answer.js";
import { SCHEMAS } from "./schemas.js";
import { queryInt, queryProofMode, queryRoot, type ProofMode } from "./values.js";

type Profile = ProofMode;

/**
 * The proof cache's kind of a read proof in a profile (v1 keeps its historical kinds; a v3-zk
 * proof is cached apart from the v3 proof of the same root and name).
 */
const cacheKind = (kind: string, profile: Profile) => (profile === "v1" ? kind : `${kind}@${profile}`);
/** The cache kinds a read of `profile` may find, membership first. */
const KINDS_OF = new Map<Profile, readonly string[]>(
  (["v1", "v3", "v3-zk"] as const).map((p) => [p, [cacheKind("membership", p), cacheKind("nonmembership", p)]]),
);
const kindsOf = (profile: Profile) => KINDS_OF.get(profile)!;

/** The prove options of a mode. */
const proveOptions = (profile: Profile) =>
  profile === "v3-zk" ? ({ profile: "v3", zk: true } as const) : ({ profile } as const);

/** The read routes plugin (options: the app's `HttpContext`). */
export async function readRoutes(app: FastifyInstance, ctx: HttpContext): Promise<void> {
  const { store, cache } = ctx;

  /** Caches a read proof's body (its JSON, and the JSON marked cached) under `key`; the answer is the fresh one. */
  const keep = (p: NameProof<ReadStatementJson>, key: string, checkpoint: string | undefined) => {
    const body = proofBody(p, { root: p.statement.root, batch: p.statement.batch }, checkpoint);
    const json = JSON.stringify(body);
    const hit = Buffer.from(`${json.slice(0, -1)},"cached":true}`);
    const entry = { body, json, hit, bytes: p.proof, size: 2 * json.length + hit.length + p.proof.length };
    cache.set(key, entry);
    return { ...entry, cached: false };
  };

  /** Proofs being made on the pool, by cache key: a second request for one waits for the same. */
  const making = new Map<string, Promise<NameProof<ReadStatementJson>>>();

  /** A name's read proof at `root` (undefined: the head) on the pool when there is one, else on this thread. */
  const prove = async (name: string, root: Uint32Array | undefined, profile: Profile) => {
    const pool = ctx.pool;
    if (pool === undefined || !isNameKeyed(store)) return proveNameRead(store, name, root, proveOptions(profile));
    const at = root ?? store.head().root;
    const key = `${formatRoot(at)}/${name}/${profile}`;
    let p = making.get(key);
    if (p === undefined) {
      p = pool.proveRead(name, at, profile).finally(() => making.delete(key));
      making.set(key, p);
    }
    return p;
  };

  /** A name-keyed registry's proof at an earlier root of its retention window (cached like head proofs, with that root's checkpoint). */
  const proveAt = async (name: string, root: Uint32Array, profile: Profile) => {
    let p: NameProof<ReadStatementJson>;
    try {
      p = await prove(name, root, profile);
    } catch (err) {
      if (err instanceof SsgkrError && err.code === "ROOT_NOT_PROVABLE") {
        const d = err.details as { oldestRoot: string; oldestSize: number };
        throw new HttpError("ROOT_NOT_PROVABLE", `query.root: ${err.message}`, {
          field: "query.root",
          oldest_root: d.oldestRoot,
          oldest_size: d.oldestSize,
        });
      }
      if (err instanceof SsgkrError && err.code === "ROOT_UNKNOWN")
        throw new HttpError("ROOT_UNKNOWN", "query.root: not a root of this registry's history", {
          field: "query.root",
        });
      throw err;
    }
    // the checkpoint of the root it is about: a retained batch's (size, root), signed as the head's is
    return keep(
      p,
      ProofCache.key(root, name, cacheKind(p.statement.kind, profile)),
      checkpointOf(ctx, p.statement.batch, p.statement.root),
    );
  };

  /** The proof body of a name at the current root, or at an earlier root. */
  const readProof = async (name: string, root: Uint32Array | undefined, profile: Profile) => {
    const head = store.head();
    if (profile !== "v1" && !isNameKeyed(store))
      throw new HttpError(
        "BAD_INPUT",
        `${profile === "v3-zk" ? "query.zk" : "query.profile"}: a ${ctx.mapping} registry proves in compat-v1 only (profile v3 and its zero-knowledge mode are for name-keyed registries)`,
        { field: profile === "v3-zk" ? "query.zk" : "query.profile" },
      );
    if (root !== undefined && !digestEquals(root, head.root)) {
      const hit = cache.find(root, name, kindsOf(profile));
      if (hit) return { ...hit, cached: true };
      if (isNameKeyed(store)) return proveAt(name, root, profile);
      const known = historyOf(store).some((e) => digestEquals(e.root, root));
      if (known)
        throw new HttpError(
          "ROOT_NOT_PROVABLE",
          `query.root: an earlier root of the history; a slot registry keeps only its current tree, so proofs for earlier roots are served only while cached, and this one is not (current root: batch ${head.batch})`,
          { field: "query.root" },
        );
      throw new HttpError("ROOT_UNKNOWN", "query.root: not a root of this registry's history", { field: "query.root" });
    }
    const hit0 = cache.find(head.root, name, kindsOf(profile));
    if (hit0) return { ...hit0, cached: true };
    const p = await prove(name, undefined, profile);
    return keep(
      p,
      ProofCache.key(p.statement.root, name, cacheKind(p.statement.kind, profile)),
      checkpointOf(ctx, p.statement.batch, p.statement.root),
    );
  };

  app.get("/v1/checkpoint", { schema: SCHEMAS.checkpoint }, async (req, reply) => {
    if (ctx.signingKey === undefined && ctx.checkpoints === undefined)
      throw new HttpError(
        "CHECKPOINT_NOT_SERVED",
        "this server signs no checkpoints (start it with --signing-key KEYFILE)",
      );
    const q = req.query as { size?: unknown };
    const head = store.head();
    // ?size=N: the checkpoint of a retained batch (its size and root), signed as the head's is
    const size = q.size === undefined ? head.batch : queryInt(q.size, "query.size", 0, 999_999_999);
    if (size > head.batch)
      throw new HttpError("SIZE_UNKNOWN", `size ${size} is after the head's size ${head.batch}`, { batch: size });
    let text: string | undefined;
    if (ctx.checkpoints !== undefined) text = ctx.checkpoints(size);
    else {
      const root = size === head.batch ? head.root : batchRootOf(store, size);
      text = root === undefined ? undefined : signCheckpoint(ctx.signingKey!, { size, root });
    }
    if (text === undefined)
      throw new HttpError("SIZE_UNKNOWN", `no checkpoint of size ${size} is kept`, { batch: size });
    void reply.type("text/plain; charset=utf-8");
    return text;
  });

  app.get("/v1/root", { schema: SCHEMAS.root }, async () => {
    const h = store.head();
    const where = "nextSlot" in h ? { next_slot: h.nextSlot } : {};
    return {
      root: formatRoot(h.root),
      batch: h.batch,
      records: h.live,
      deleted: h.deleted,
      ...where,
      depth: store.config.depth,
      leaf_max_fields: store.config.leafMaxFields,
      registry_mapping: ctx.mapping,
    };
  });

  app.get("/v1/history", { schema: SCHEMAS.history }, async (req) => {
    const n = queryInt((req.query as { limit?: unknown }).limit, "query.limit", 1000, 100_000);
    const all = historyOf(store);
    const entries = all.slice(Math.max(0, all.length - n)).map((e) => ({
      batch: e.batch,
      kind: e.kind,
      committed_at: e.committedAt,
      records: e.records,
      live: e.live,
      deleted: e.deleted,
      ...(e.nextSlot !== undefined ? { next_slot: e.nextSlot } : {}),
      root: formatRoot(e.root),
      ...(e.slot !== undefined ? { slot: e.slot } : {}),
      ...(e.name !== undefined ? { name: e.name } : {}),
    }));
    return { entries, total: all.length };
  });

  app.get("/v1/records/:name", { schema: SCHEMAS.record }, async (req) => {
    const name = nameOf(req);
    const head = store.head();
    const state = nameState(store, name);
    const where = {
      ...(state.slot !== undefined ? { slot: state.slot } : {}),
      ...(state.key !== undefined ? { key: state.key } : {}),
      root: formatRoot(head.root),
      batch: head.batch,
      ...nameFormJson(name),
    };
    if (!("value" in state.side)) return { name, status: state.status, absent: true, ...where };
    return { name, status: "live", value: valueJson(state.side.value), ...where };
  });

  app.get("/v1/records/:name/proof", { schema: SCHEMAS.proof }, async (req, reply) => {
    const q = req.query as { root?: unknown; profile?: unknown; zk?: unknown };
    const r = await readProof(nameOf(req), queryRoot(q.root), queryProofMode(q.profile, q.zk));
    // The stored serialization with the "cached" flag (the JSON text ends with "}").
    void reply.type("application/json; charset=utf-8");
    return r.cached ? r.hit : `${r.json.slice(0, -1)},"cached":false}`;
  });

  app.get("/v1/records/:name/proof.bin", { schema: SCHEMAS.proofBin }, async (req, reply) => {
    const q = req.query as { root?: unknown; profile?: unknown; zk?: unknown };
    const r = await readProof(nameOf(req), queryRoot(q.root), queryProofMode(q.profile, q.zk));
    const statement = JSON.stringify(r.body.statement);
    // Header values are ASCII: the statement JSON is sent percent-encoded.
    void reply
      .header("content-type", "application/octet-stream")
      .header("x-ssgkr-statement", encodeURIComponent(statement))
      .header("x-ssgkr-root", r.body.root as string);
    if (typeof r.body.checkpoint === "string")
      void reply.header("x-ssgkr-checkpoint", encodeURIComponent(r.body.checkpoint));
    return Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength);
  });
}

/** The root of batch `size` from the history, or undefined when the history does not hold it. */
function batchRootOf(store: AnyStore, size: number): Uint32Array | undefined {
  if (isNameKeyed(store)) {
    try {
      return store.batchEntry(size).root;
    } catch {
      return undefined;
    }
  }
  return store.history().find((e) => e.batch === size)?.root;
}

/** The fields both stores' history entries have. */
interface HistoryCommon {
  readonly batch: number;
  readonly kind: string;
  readonly committedAt: string;
  readonly records: number;
  readonly live: number;
  readonly deleted: number;
  readonly root: Uint32Array;
}

/** History entries of either store in one shape (slot fields only for slot registries). */
function historyOf(store: AnyStore): {
  batch: number;
  kind: string;
  committedAt: string;
  records: number;
  live: number;
  deleted: number;
  root: Uint32Array;
  nextSlot?: number;
  slot?: number;
  name?: string;
}[] {
  const common = (e: HistoryCommon) => ({
    batch: e.batch,
    kind: e.kind,
    committedAt: e.committedAt,
    records: e.records,
    live: e.live,
    deleted: e.deleted,
    root: e.root,
  });
  if (isNameKeyed(store))
    return store.history().map((e) => ({ ...common(e), ...(e.name !== undefined ? { name: e.name } : {}) }));
  return store
    .history()
    .map((e) => ({ ...common(e), nextSlot: e.nextSlot, ...(e.slot !== undefined ? { slot: e.slot } : {}) }));
}
