/**
 * The registry HTTP API (docs/http.md) on fastify: public reads of the root, the history, records
 * and their proofs, a verification route, bearer-token writes that return update proofs, an
 * OpenAPI document at /v1/openapi.json and the browser verifier at /verify.
 *
 * Names are one URL-encoded path segment (`@scope/pkg` → `%40scope%2Fpkg`). Proofs of the current
 * root are cached per (root, name, kind). Writes run one at a time (write-lock.ts). Verification
 * is of the configurations the server serves only, prepared before it listens (served-configs.ts);
 * the route also checks profile v3 registry blocks (`{block, proof}`, counterparty/block-body.ts).
 * Every error is `{"code", "message"}` with its code's status (errors.ts, `HTTP_STATUSES`).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import rateLimit from "@fastify/rate-limit";
import swagger from "@fastify/swagger";
import { SsgkrError } from "../errors.js";
import { digestEquals } from "../hash/digest.js";
import { nameBytes } from "../registry/mapping.js";
import { checkProofBody, bytesBase64, statementConfigOf } from "../counterparty/body.js";
import { blockConfigOf, checkBlockBody } from "../counterparty/block-body.js";
import {
  describeStatement,
  formatRoot,
  nameNotice,
  valueJson,
  type StatementJson,
  type UpdateOp,
} from "../counterparty/claim.js";
import {
  isNameKeyed,
  mappingOf,
  nameState,
  proveNameRead,
  proveNameUpdate,
  type AnyStore,
  type NameProof,
} from "../counterparty/prove.js";
import { BearerAuth } from "./auth.js";
import { ProofCache } from "./cache.js";
import { HttpError, statusOf, statusOfCode } from "./errors.js";
import { SCHEMAS } from "./schemas.js";
import { ServedConfigs, type VerifyConfig } from "./served-configs.js";
import { bodyRoot, bodyValue, queryInt, queryProfile, queryRoot } from "./values.js";
import { WriteLock } from "./write-lock.js";
import { signCheckpoint, type SigningKey } from "../registry/checkpoint/signing-key.js";
import { verifyCheckpoint } from "../registry/checkpoint/checkpoint.js";
import { registerConsistencyRoute } from "./consistency-route.js";

export interface RegistryHttpOptions {
  /** An open registry of either mapping: name-keyed (`NameStore`, record-leaf-v2) or slot (`RegistryStore`, record-leaf-v1); `openRegistry(dir).store` opens either. */
  readonly store: AnyStore;
  /** Bearer token of the write routes; without it the server is read-only. */
  readonly token?: string;
  /** Allowed CORS origin (`*` for any); CORS is off without it. */
  readonly cors?: string;
  /** Folder of the built verifier page (default dist/web: shipped in the package, built by `prepare`). */
  readonly webDir?: string;
  /** Requests per minute per client address (default 600); 0 turns rate limiting off. */
  readonly rateLimit?: number;
  /** Proof cache budget in bytes (default 128 MiB; 0: no cache). */
  readonly cacheBytes?: number;
  /** Longest request URL in bytes (default 4,096 + 512). */
  readonly maxUrlBytes?: number;
  /** Largest JSON body of POST /v1/verify (default 2 MiB) and of writes (default 256 KiB). */
  readonly verifyBodyBytes?: number;
  readonly writeBodyBytes?: number;
  /**
   * Configurations `POST /v1/verify` verifies besides the registry's own depth and leaf bound
   * (default none). Their circuits are prepared, with the registry's, before `createRegistryApp`
   * returns (once per process); a request of any other configuration gets 422 `CONFIG_NOT_SERVED`.
   */
  readonly verifyConfigs?: readonly VerifyConfig[];
  /** Writes waiting for the writer before new ones get 409 `WRITE_BUSY` (default 64). */
  readonly maxQueuedWrites?: number;
  /** fastify logger (default off). */
  readonly logger?: boolean;
  /**
   * The registry's signing key (`readSigningKey`): `GET /v1/checkpoint` serves the head's signed
   * checkpoint, and every proof body carries the checkpoint of the root it is about
   * (`checkpoint`). Without it `GET /v1/checkpoint` is 404 `CHECKPOINT_NOT_SERVED`.
   */
  readonly signingKey?: SigningKey;
  /** Run the block prover while serving (registry/consistency/block-prover.ts; default false, `registry http` turns it on; only when the store can be written). */
  readonly proveBlocks?: boolean;
}

/** Default location of the built page: dist/web beside dist/src (built by `prepare`, so by `npm ci`, and shipped in the package). */
export const DEFAULT_WEB_DIR = new URL("../../web/", import.meta.url).pathname;

/** The package's kernel module, served as the page's kernels.wasm when the page folder holds none (the package ships it once). */
const PACKAGE_KERNELS = new URL("../../../wasm/kernels.wasm", import.meta.url).pathname;

const WEB_TYPES: Readonly<Record<string, string>> = {
  "index.html": "text/html; charset=utf-8",
  "page.js": "text/javascript; charset=utf-8",
  "page.js.map": "application/json",
  "kernels.wasm": "application/wasm",
};

/** The API and page as a fastify instance (not listening: call `app.listen`), its proof cache and its routes. */
export interface RegistryApp {
  readonly app: FastifyInstance;
  readonly cache: ProofCache;
  /** The configurations `POST /v1/verify` verifies (the registry's first). */
  readonly verifyConfigs: readonly VerifyConfig[];
  /** Every route (method, URL pattern; hidden ones are left out of the OpenAPI document). */
  readonly routes: readonly { readonly method: string; readonly url: string; readonly hidden: boolean }[];
}

/**
 * Builds the API over an open store, after preparing the circuits of every configuration it
 * verifies (the registry's and `verifyConfigs`; seconds at start-up, nothing for those this
 * process prepared before).
 * @throws CompileError `UNSUPPORTED_CONFIG` for a `verifyConfigs` entry outside the engine's
 *   limits; otherwise nothing itself: routes answer errors as `{"code", "message"}`.
 * @example
 *   const { app } = await createRegistryApp({ store: openRegistry(dir, { readOnly: true }).store });
 *   await app.listen({ host: "127.0.0.1", port: 8080 });
 */

export async function createRegistryApp(opts: RegistryHttpOptions): Promise<RegistryApp> {
  const store = opts.store;
  const auth = new BearerAuth(opts.token);
  const cache = new ProofCache(opts.cacheBytes ?? 128 * 1024 * 1024);
  const lock = new WriteLock(opts.maxQueuedWrites ?? 64);
  const maxUrl = opts.maxUrlBytes ?? 4096 + 512;
  const webDir = opts.webDir ?? DEFAULT_WEB_DIR;
  // Prepared here, before the server can listen, so no request ever prepares a circuit.
  const served = new ServedConfigs(
    { depth: store.config.depth, leafMaxFields: store.config.leafMaxFields },
    opts.verifyConfigs ?? [],
  );
  served.prepareAll();
  const cors = opts.cors;
  /** CORS headers of every answer: with one allowed origin every answer depends on Origin and says so (whatever the request's Origin and status), so a shared cache never serves one origin's variant to another. */
  const corsHeaders = (req: FastifyRequest, reply: FastifyReply): void => {
    if (cors === undefined) return;
    reply.header("vary", "Origin");
    if (cors === "*" || req.headers.origin === cors) {
      reply.header("access-control-allow-origin", cors);
      reply.header("access-control-expose-headers", "x-ssgkr-statement, x-ssgkr-root, retry-after");
    }
  };
  /** Spends the client's request budget; throws HttpError 429 `RATE_LIMITED` past it (set below when rate limiting is on). */
  let spendBudget: ((req: FastifyRequest, reply: FastifyReply) => Promise<unknown>) | undefined;
  // URLs the router cannot take (bad percent-encoding, a path segment over maxParamLength) are
  // answered here, without the hooks: they get the CORS headers, spend the budget and answer in
  // the API's error shape like any other request.
  const frameworkErrors = (err: { code?: string }, req: FastifyRequest, reply: FastifyReply): void => {
    corsHeaders(req, reply);
    const answer = (e: HttpError) => void reply.status(e.status).send({ code: e.code, message: e.message });
    const refusal =
      err.code === "FST_ERR_MAX_PARAM_LENGTH"
        ? new HttpError("URL_TOO_LONG", `URL: longer than ${maxUrl} bytes`)
        : new HttpError("BAD_INPUT", "URL: not a valid URL (bad percent-encoding)");
    (spendBudget ? spendBudget(req, reply) : Promise.resolve()).then(
      () => answer(refusal),
      (e: unknown) =>
        answer(
          e instanceof HttpError
            ? e
            : new HttpError("INTERNAL", "internal error (the server's standard error has the details)"),
        ),
    );
  };
  const app = Fastify({
    logger: opts.logger ?? false,
    routerOptions: { maxParamLength: 1 << 16 },
    bodyLimit: opts.writeBodyBytes ?? 256 * 1024,
    return503OnClosing: true,
    frameworkErrors,
  });
  const routes: { method: string; url: string; hidden: boolean }[] = [];
  app.addHook("onRoute", (r) => {
    for (const m of [r.method].flat())
      if (m !== "HEAD")
        routes.push({ method: m, url: r.url, hidden: (r.schema as { hide?: boolean } | undefined)?.hide === true });
  });
  // Inputs are checked by values.ts (messages name the field); schemas document the API.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  app.setErrorHandler((err: unknown, req, reply) => {
    const e = err as Error & { statusCode?: number; code?: string };
    let status = statusOf(err);
    let code = err instanceof SsgkrError ? err.code : "INTERNAL";
    let message = e.message;
    if (!(err instanceof SsgkrError) && typeof e.statusCode === "number" && e.statusCode < 500) {
      // A request the framework refused before any route: its code's status, but BAD_INPUT keeps
      // the framework's (415 for a body that is not JSON; docs/errors.md, HttpErrorCode).
      const s = e.statusCode;
      if (e.code === "FST_ERR_MAX_PARAM_LENGTH" || s === 414)
        [code, message] = ["URL_TOO_LONG", `URL: longer than ${maxUrl} bytes`];
      else if (s === 413)
        [code, message] = [
          "BODY_TOO_LARGE",
          `body: larger than this route accepts (${req.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit} bytes)`,
        ];
      else if (s === 429) [code, message] = ["RATE_LIMITED", e.message];
      else if (s === 415)
        [code, message] = [
          "BAD_INPUT",
          `content-type: send JSON (application/json), got ${JSON.stringify(req.headers["content-type"] ?? "")}`,
        ];
      else
        [code, message] = [
          "BAD_INPUT",
          e.code === "FST_ERR_CTP_EMPTY_JSON_BODY"
            ? "body: empty, but the content-type says JSON"
            : e instanceof SyntaxError || e.code === "FST_ERR_CTP_INVALID_JSON_BODY"
              ? `body: not valid JSON (${e.message})`
              : e.message,
        ];
      status = code === "BAD_INPUT" ? s : statusOfCode(code);
    }
    if (status >= 500 && !(err instanceof HttpError)) {
      if (opts.logger) req.log.error(err);
      else process.stderr.write(`error ${code}: ${req.method} ${req.url.split("?")[0]}: ${e.message}\n`);
    }
    if (code === "INTERNAL") message = "internal error (the server's standard error has the details)";
    if (status === 401) reply.header("www-authenticate", 'Bearer realm="ssgkr registry"');
    // A root outside the retention window: the body names the oldest provable root and its size.
    const window =
      err instanceof HttpError && code === "ROOT_NOT_PROVABLE" && typeof err.details["oldest_root"] === "string"
        ? { oldest_root: err.details["oldest_root"], oldest_size: err.details["oldest_size"] }
        : {};
    void reply.status(status).send({ code, message, ...window });
  });
  app.setNotFoundHandler((req, reply) => {
    const e = new HttpError("NOT_FOUND", `no route ${req.method} ${req.url.split("?")[0]}`);
    void reply.status(e.status).send({ code: e.code, message: e.message });
  });

  // Hooks in order: CORS headers (so every answer carries them, errors and 429s included), the
  // request budget (before the URL check and before any route's token check), the URL length.
  app.addHook("onRequest", async (req, reply) => corsHeaders(req, reply));

  const limit = opts.rateLimit ?? 600;
  if (limit > 0) {
    await app.register(rateLimit, {
      global: false,
      max: limit,
      timeWindow: 60_000,
      // The socket's address: forwarding headers (X-Forwarded-For, Forwarded, …) never choose the client.
      keyGenerator: (req) => req.socket.remoteAddress ?? "unknown",
      errorResponseBuilder: (_req, ctx) =>
        new HttpError(
          "RATE_LIMITED",
          `more than ${ctx.max} requests per minute from this client; retry in ${Math.ceil(ctx.ttl / 1000)} s`,
        ),
    });
    // One global hook: every request (reads, writes, refused ones, unknown routes) spends the client's budget before any route hook compares a token.
    const spend = app.rateLimit();
    spendBudget = spend;
    app.addHook("onRequest", spend);
  }

  app.addHook("onRequest", async (req) => {
    if (Buffer.byteLength(req.url) > maxUrl) throw new HttpError("URL_TOO_LONG", `URL: longer than ${maxUrl} bytes`);
  });

  await app.register(swagger, {
    openapi: {
      openapi: "3.0.3",
      info: {
        title: "statesync-gkr registry API",
        version: "1",
        description:
          "Reads, proofs and writes of an authenticated registry (compat-v1 sumcheck/GKR proofs). See docs/http.md.",
      },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    },
  });

  const writeGuard = async (req: FastifyRequest) => auth.check(req.headers.authorization);
  const nameOf = (req: FastifyRequest): string => {
    const name = (req.params as { name: string }).name;
    try {
      nameBytes(name);
    } catch (err) {
      if (err instanceof SsgkrError) throw new HttpError("BAD_NAME", `path name: ${err.message}`, { field: "name" });
      throw err;
    }
    return name;
  };

  /** The proof cache's kind of a read proof in a profile (v1 keeps its historical kinds). */
  const cacheKind = (kind: string, profile: "v1" | "v3") => (profile === "v1" ? kind : `${kind}@${profile}`);
  /** The proof body of a name at the current root, or at an earlier root while cached. */
  const readProof = (name: string, root: Uint32Array | undefined, profile: "v1" | "v3") => {
    const head = store.head();
    if (profile !== "v1" && !isNameKeyed(store))
      throw new HttpError(
        "BAD_INPUT",
        `query.profile: a ${mapping} registry proves in compat-v1 only (profile v3 is for name-keyed registries)`,
        { field: "query.profile" },
      );
    if (root !== undefined && !digestEquals(root, head.root)) {
      for (const kind of ["membership", "nonmembership"]) {
        const hit = cache.get(ProofCache.key(root, name, cacheKind(kind, profile)));
        if (hit) return { ...hit, cached: true };
      }
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
    const state = nameState(store, name);
    const kind = "absent" in state.side ? "nonmembership" : "membership";
    const hit0 = cache.get(ProofCache.key(head.root, name, cacheKind(kind, profile)));
    if (hit0) return { ...hit0, cached: true };
    const p = proveNameRead(store, name, undefined, { profile });
    return keep(
      p,
      ProofCache.key(p.statement.root, name, cacheKind(p.statement.kind, profile)),
      checkpointOf(p.statement.batch, p.statement.root),
    );
  };

  /** Caches a read proof's body (its JSON, and the JSON marked cached) under `key`; the answer is the fresh one. */
  const keep = (p: ReturnType<typeof proveNameRead>, key: string, checkpoint: string | undefined) => {
    const body = proofBody(p, { root: p.statement.root, batch: p.statement.batch }, checkpoint);
    const json = JSON.stringify(body);
    const hit = Buffer.from(`${json.slice(0, -1)},"cached":true}`);
    const entry = { body, json, hit, bytes: p.proof, size: 2 * json.length + hit.length + p.proof.length };
    cache.set(key, entry);
    return { ...entry, cached: false };
  };

  /** A name-keyed registry's proof at an earlier root of its retention window (cached like head proofs). */
  const proveAt = (name: string, root: Uint32Array, profile: "v1" | "v3") => {
    let p: ReturnType<typeof proveNameRead>;
    try {
      p = proveNameRead(store, name, root, { profile });
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
    return keep(p, ProofCache.key(root, name, cacheKind(p.statement.kind, profile)), undefined);
  };

  const mapping = mappingOf(store);
  /** The signed checkpoint of a head (batch, root), when the server signs. */
  const checkpointOf = (batch: number | undefined, root: string): string | undefined =>
    opts.signingKey !== undefined && batch !== undefined
      ? signCheckpoint(opts.signingKey, { size: batch, root })
      : undefined;
  app.get("/v1/checkpoint", { schema: SCHEMAS.checkpoint }, async (_req, reply) => {
    if (opts.signingKey === undefined)
      throw new HttpError(
        "CHECKPOINT_NOT_SERVED",
        "this server signs no checkpoints (start it with --signing-key KEYFILE)",
      );
    const head = store.head();
    void reply.type("text/plain; charset=utf-8");
    return signCheckpoint(opts.signingKey, { size: head.batch, root: head.root });
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
      registry_mapping: mapping,
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

  // The profile v3 block proofs the registry committed (`registry prove-block --profile v3`), kept in its database.
  const blockOf = (req: FastifyRequest) => {
    const text = (req.params as { batch: string }).batch;
    if (!/^[0-9]{1,10}$/.test(text))
      throw new HttpError("BAD_INPUT", `path batch: must be a batch number, got ${JSON.stringify(text.slice(0, 40))}`, {
        field: "batch",
      });
    const batch = Number(text);
    const b = isNameKeyed(store) ? store.blockProof(batch) : undefined;
    if (b === undefined)
      throw new HttpError(
        "BLOCK_NOT_FOUND",
        `batch ${batch} has no profile v3 block proof in this registry (GET /v1/blocks lists those it has: the batches \`registry prove-block --profile v3\` committed)`,
        { batch },
      );
    return b;
  };
  app.get("/v1/blocks", { schema: SCHEMAS.blocks }, async (req) => {
    const q = req.query as { after?: unknown; limit?: unknown };
    const after = q.after === undefined ? undefined : queryInt(q.after, "query.after", 0, 999_999_999);
    const limit = queryInt(q.limit, "query.limit", 100, 1000);
    const list =
      isNameKeyed(store) && limit > 0
        ? store.blockProofs({ ...(after !== undefined ? { after } : {}), limit: limit + 1 })
        : [];
    return { blocks: list.slice(0, limit), more: list.length > limit };
  });
  app.get("/v1/blocks/:batch", { schema: SCHEMAS.block }, async (req, reply) => {
    const b = blockOf(req);
    // block.json's text is kept as written; the body is {"block": <block.json>, "proof": "<base64>"}.
    void reply.type("application/json; charset=utf-8");
    return `{"block":${b.blockJson.trimEnd()},"proof":${JSON.stringify(bytesBase64(b.proof))},"batch":${b.summary.batch}}`;
  });
  app.get("/v1/blocks/:batch/block.json", { schema: SCHEMAS.blockJson }, async (req, reply) => {
    const b = blockOf(req);
    void reply.type("application/json; charset=utf-8");
    return b.blockJson;
  });
  app.get("/v1/blocks/:batch/block.bin", { schema: SCHEMAS.blockBin }, async (req, reply) => {
    const b = blockOf(req);
    void reply
      .header("content-type", "application/octet-stream")
      .header("x-ssgkr-from-root", b.summary.from_root)
      .header("x-ssgkr-to-root", b.summary.to_root);
    return Buffer.from(b.proof.buffer, b.proof.byteOffset, b.proof.byteLength);
  });

  registerConsistencyRoute(app, store, opts.proveBlocks ?? false);

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
    const q = req.query as { root?: unknown; profile?: unknown };
    const r = readProof(nameOf(req), queryRoot(q.root), queryProfile(q.profile));
    // The stored serialization with the "cached" flag (the JSON text ends with "}").
    void reply.type("application/json; charset=utf-8");
    return r.cached ? r.hit : `${r.json.slice(0, -1)},"cached":false}`;
  });

  app.get("/v1/records/:name/proof.bin", { schema: SCHEMAS.proofBin }, async (req, reply) => {
    const q = req.query as { root?: unknown; profile?: unknown };
    const r = readProof(nameOf(req), queryRoot(q.root), queryProfile(q.profile));
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

  app.post(
    "/v1/verify",
    { schema: SCHEMAS.verify, bodyLimit: opts.verifyBodyBytes ?? 2 * 1024 * 1024 },
    async (req) => {
      const body = req.body as Record<string, unknown> | undefined;
      if (typeof body !== "object" || body === null || Array.isArray(body))
        throw new HttpError(
          "BAD_INPUT",
          "body: must be {statement, request, proof[, trusted_root]} or {block, proof[, from_root, to_root]}",
          { field: "body" },
        );
      if (body.block !== undefined) return verifyBlock(body);
      for (const f of ["statement", "proof"])
        if (body[f] === undefined) throw new HttpError("BAD_INPUT", `body.${f}: missing`, { field: `body.${f}` });
      let trusted = bodyRoot(body.trusted_root, "body.trusted_root");
      // A compat-v1 proof is checked with its request (whose configuration must be served); a
      // profile v3 proof from the statement alone, whose depth and leaf bound must be served.
      if (body.request !== undefined) served.check(body.request);
      else {
        const config = statementConfigOf(body.statement);
        if (config !== undefined) served.checkConfig(config.depth, config.leafMaxFields, "body.statement");
      }
      // With verifier_key, the trusted root is the checkpoint's, once its signature verifies.
      let checkpoint: { origin: string; size: number } | undefined;
      if (body.verifier_key !== undefined) {
        if (typeof body.verifier_key !== "string")
          throw new HttpError("BAD_INPUT", "body.verifier_key: must be a verifier key NAME+HASH+KEY", {
            field: "body.verifier_key",
          });
        if (typeof body.checkpoint !== "string")
          throw new HttpError(
            "BAD_INPUT",
            "body.checkpoint: a verifier key checks a signed checkpoint (its note text)",
            { field: "body.checkpoint" },
          );
        const c = verifyCheckpoint(body.checkpoint, body.verifier_key, "body.verifier_key");
        const refused = !c.ok
          ? { code: c.code, reason: c.reason }
          : trusted !== undefined && !digestEquals(trusted, c.root)
            ? {
                code: "ROOT_NOT_TRUSTED",
                reason: `the checkpoint's root ${formatRoot(c.root)} is not the trusted root ${formatRoot(trusted)}`,
              }
            : undefined;
        if (refused !== undefined)
          return {
            ok: false,
            ...refused,
            statement: statementWords(body.statement),
            root_source: "checkpoint",
            prepare_ms: 0,
            verify_ms: 0,
          };
        if (c.ok) {
          trusted = c.root;
          checkpoint = { origin: c.origin, size: c.size };
        }
      }
      const v = checkProofBody(body, undefined, trusted);
      return {
        ok: v.ok,
        ...(v.ok ? {} : { code: v.code, reason: v.reason }),
        statement: v.statement,
        ...(v.trustedRoot ? { trusted_root: v.trustedRoot } : {}),
        root_source: checkpoint !== undefined ? "checkpoint" : v.rootSource,
        ...(checkpoint !== undefined ? { checkpoint } : {}),
        ...(v.notice ? { notice: v.notice } : {}),
        ...(v.scope ? { scope: v.scope } : {}),
        ...(v.nfcName !== undefined ? { nfc_name: v.nfcName, name_notice: v.nameNotice } : {}),
        prepare_ms: round(v.prepareMs),
        verify_ms: round(v.verifyMs),
      };
    },
  );

  /** A profile v3 block body `{block, proof[, from_root, to_root]}` (docs/http.md "Verify a block"). */
  const verifyBlock = (body: Record<string, unknown>) => {
    for (const f of ["statement", "request", "trusted_root", "verifier_key", "checkpoint"]) {
      if (body[f] !== undefined)
        throw new HttpError(
          "BAD_INPUT",
          `body.${f}: not a field of a block body {block, proof[, from_root, to_root]}`,
          { field: `body.${f}` },
        );
    }
    if (body.proof === undefined) throw new HttpError("BAD_INPUT", "body.proof: missing", { field: "body.proof" });
    const fromRoot = bodyRoot(body.from_root, "body.from_root");
    const toRoot = bodyRoot(body.to_root, "body.to_root");
    const config = blockConfigOf(body.block);
    if (config !== undefined) served.checkConfig(config.depth, config.leafMaxFields, "body.block");
    const v = checkBlockBody(body, { ...(fromRoot ? { fromRoot } : {}), ...(toRoot ? { toRoot } : {}) });
    return {
      ok: v.ok,
      kind: "block",
      ...(v.ok ? {} : { code: v.code, reason: v.reason }),
      ...(v.operation !== undefined ? { operation: v.operation } : {}),
      statement: v.statement,
      ...(v.operations !== undefined ? { operations: v.operations } : {}),
      ...(v.trustedRoot ? { trusted_root: v.trustedRoot } : {}),
      root_source: v.rootSource,
      ...(v.fromRoot ? { from_root: v.fromRoot, to_root: v.toRoot, to_root_source: v.toRootSource } : {}),
      ...(v.notice ? { notice: v.notice } : {}),
      prepare_ms: round(v.prepareMs),
      verify_ms: round(v.verifyMs),
    };
  };

  const write = (op: "put" | UpdateOp) => async (req: FastifyRequest) => {
    const name = nameOf(req);
    const value = op === "delete" ? undefined : bodyValue(req.body, op === "put");
    if (op === "delete" && req.body !== undefined && req.body !== null && Object.keys(req.body as object).length > 0)
      throw new HttpError("BAD_INPUT", "body: DELETE takes no body", { field: "body" });
    return lock.run(() => {
      let actual: UpdateOp = op === "put" ? "insert" : op;
      if (op === "put") {
        const state = nameState(store, name);
        if (state.status === "deleted")
          throw new HttpError(
            "NAME_DELETED",
            `${JSON.stringify(name)} is deleted; restore it with POST /v1/records/{name}/restore (a name keeps its ${isNameKeyed(store) ? "key" : "slot"})`,
          );
        actual = state.status === "live" ? "replace" : "insert";
      }
      const p = proveNameUpdate(store, actual, name, value);
      const head = store.head();
      return proofBody(
        p,
        { root: p.statement.new_root, batch: p.statement.batch },
        checkpointOf(head.batch, formatRoot(head.root)),
      );
    });
  };
  app.put("/v1/records/:name", { schema: SCHEMAS.put, onRequest: writeGuard }, write("put"));
  app.delete("/v1/records/:name", { schema: SCHEMAS.del, onRequest: writeGuard }, write("delete"));
  app.post("/v1/records/:name/restore", { schema: SCHEMAS.restore, onRequest: writeGuard }, write("restore"));

  if (opts.cors !== undefined) {
    app.options("/v1/*", { schema: { hide: true } }, async (_req, reply) => {
      void reply
        .header("access-control-allow-methods", "GET, POST, PUT, DELETE, OPTIONS")
        .header("access-control-allow-headers", "authorization, content-type")
        .header("access-control-max-age", "600")
        .status(204);
      return "";
    });
  }

  app.get("/v1/openapi.json", { schema: { hide: true } }, async () => app.swagger());

  // The verifier page. Cross-origin isolation lets it use shared WASM memory (the kernels).
  const files = new Map<string, Buffer>();
  const serve = (file: string, reply: FastifyReply) => {
    const type = WEB_TYPES[file];
    if (!type) throw new HttpError("NOT_FOUND", `no file ${file} in the verifier page`);
    let bytes = files.get(file);
    if (!bytes) {
      let path = join(webDir, file);
      if (file === "kernels.wasm" && !existsSync(path) && existsSync(PACKAGE_KERNELS)) path = PACKAGE_KERNELS;
      if (!existsSync(path))
        throw new HttpError(
          "WEB_NOT_BUILT",
          `the verifier page is not built (${path} is missing): the package ships it in dist/web and \`npm ci\` in a clone builds it there (\`npm run build:web\` rebuilds it); reinstall, or give the folder of a built page (--web DIR)`,
        );
      bytes = readFileSync(path);
      files.set(file, bytes);
    }
    void reply
      .header("content-type", type)
      .header("cross-origin-opener-policy", "same-origin")
      .header("cross-origin-embedder-policy", "require-corp")
      .header("cross-origin-resource-policy", "same-origin")
      .header("cache-control", "no-cache");
    return bytes;
  };
  app.get("/verify", { schema: { hide: true } }, async (_req, reply) => reply.redirect("/verify/"));
  app.get("/verify/", { schema: SCHEMAS.page }, async (_req, reply) => serve("index.html", reply));
  app.get("/verify/:file", { schema: { hide: true } }, async (req, reply) =>
    serve((req.params as { file: string }).file, reply),
  );

  return { app, cache, routes, verifyConfigs: served.list };
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
  if (isNameKeyed(store))
    return store.history().map((e) => ({
      batch: e.batch,
      kind: e.kind,
      committedAt: e.committedAt,
      records: e.records,
      live: e.live,
      deleted: e.deleted,
      root: e.root,
      ...(e.name !== undefined ? { name: e.name } : {}),
    }));
  return store.history().map((e) => ({
    batch: e.batch,
    kind: e.kind,
    committedAt: e.committedAt,
    records: e.records,
    live: e.live,
    deleted: e.deleted,
    root: e.root,
    nextSlot: e.nextSlot,
    ...(e.slot !== undefined ? { slot: e.slot } : {}),
  }));
}

function proofBody(
  p: NameProof<{ readonly name: string }>,
  at: { root: string; batch: number | undefined },
  checkpoint: string | undefined,
): Record<string, unknown> {
  return {
    statement: p.statement,
    ...(p.request !== undefined ? { request: p.request } : {}),
    profile: p.profile,
    proof: bytesBase64(p.proof),
    root: at.root,
    batch: at.batch,
    ...(checkpoint !== undefined ? { checkpoint } : {}),
    proof_bytes: p.proof.length,
    prove_ms: round(p.proveMs),
    ...nameFormJson(p.statement.name),
  };
}

/** `nfc_name` and `name_notice` of an answer about a name that is not in Unicode NFC (nothing for an NFC name). */
function nameFormJson(name: string): { nfc_name?: string; name_notice?: string } {
  const n = nameNotice(name);
  return n === undefined ? {} : { nfc_name: n.nfc, name_notice: n.notice };
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/** What a statement says, in words, or a placeholder for one that cannot be read. */
function statementWords(s: unknown): string {
  try {
    return describeStatement(s as StatementJson);
  } catch {
    return "(no statement)";
  }
}
