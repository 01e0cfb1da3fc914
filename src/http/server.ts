/**
 * The registry HTTP API (docs/http.md) on fastify, as plugins over one shared context
 * (context.ts): error handling (error-handling.ts: every error is `{"code", "message"}` with its
 * code's status, errors.ts `HTTP_STATUSES`), the guards every request passes (guards.ts: CORS,
 * the request budget, the URL length), the OpenAPI document (`@fastify/swagger`, at
 * /v1/openapi.json), then the routes: public reads of the checkpoint, root, history, records and
 * their proofs (read-routes.ts), kept block proofs and consistency chains (block-routes.ts),
 * verification (verify-route.ts), bearer-token writes applied in epochs by the sequencer
 * (write-routes.ts) and the browser verifier at /verify
 * (page-routes.ts).
 *
 * Names are one URL-encoded path segment (`@scope/pkg` → `%40scope%2Fpkg`). Inputs are checked
 * by values.ts, so each 400 names its field in words; the route schemas (schemas.ts) make the
 * OpenAPI document, and test/http/schemas.test.ts holds every schema to what its route accepts.
 */
import Fastify from "fastify";
import swagger from "@fastify/swagger";
import { BearerAuth } from "./auth.js";
import { blockRoutes } from "./block-routes.js";
import { ProofCache } from "./cache.js";
import { createHttpContext } from "./context.js";
import { clientErrorAnswer, errorHandlingPlugin, frameworkErrorAnswer, REQUEST_TIMEOUT_MS } from "./error-handling.js";
import { guardsPlugin } from "./guards.js";
import { pageRoutes } from "./page-routes.js";
import { readRoutes } from "./read-routes.js";
import { DEFAULT_CONSISTENCY_PAGE_BYTES } from "./consistency-route.js";
import { ServedConfigs, type VerifyConfig } from "./served-configs.js";
import { verifyRoute } from "./verify-route.js";
import { writeRoutes } from "./write-routes.js";
import { WriteLock } from "./write-lock.js";
import { isNameKeyed } from "../counterparty/prove.js";
import { Sequencer, type EpochStats } from "../registry/sequencer/sequencer.js";
import type { FastifyInstance } from "fastify";
import type { AnyStore } from "../counterparty/prove.js";
import type { SigningKey } from "../registry/checkpoint/signing-key.js";
import type { ProverPool } from "../proving/pool.js";

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
  /** Milliseconds a request has to arrive whole (default 60,000; `REQUEST_TIMEOUT` 408 past it). */
  readonly requestTimeoutMs?: number;
  /**
   * Configurations `POST /v1/verify` verifies besides the registry's own depth and leaf bound
   * (default none). Their circuits are prepared, with the registry's, before `createRegistryApp`
   * returns (once per process); a request of any other configuration gets 422 `CONFIG_NOT_SERVED`.
   */
  readonly verifyConfigs?: readonly VerifyConfig[];
  /** Slot registries: writes waiting for the writer before new ones get 409 `WRITE_BUSY` (default 64). */
  readonly maxQueuedWrites?: number;
  /**
   * Name-keyed registries: where epochs are hashed and written — `"thread"` (default: a writer
   * thread, so the serving thread never hashes an epoch nor waits on LMDB's write lock) or
   * `"inline"` (the serving thread).
   */
  readonly epochWriter?: "thread" | "inline";
  /** Name-keyed registries: an epoch of writes closes every `epochMs` ms (default 1,000; the sequencer, registry/sequencer/sequencer.ts). */
  readonly epochMs?: number;
  /** … or once `epochMax` writes wait (default 4,096), whichever comes first. */
  readonly epochMax?: number;
  /** Writes waiting for an epoch before new ones get 503 `WRITE_QUEUE_FULL` (default 100,000). */
  readonly writeQueue?: number;
  /** Called after each committed epoch (`registry http` logs one line). */
  readonly onEpoch?: (e: EpochStats) => void;
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
  /**
   * The proving pool (`ProvingPool.start({ dir: store.dir })`, src/proving, or a broker's pool of
   * remote workers, src/proof-jobs) that makes every proof off the serving thread: name proofs not in the cache and, with `proveBlocks`, the blocks of
   * committed batches. The caller owns it (closes it after the app). Without it (the default)
   * proofs are made on the calling thread, and blocks on one worker thread.
   */
  readonly pool?: ProverPool;
  /** Bytes of proofs and block.json texts a page of `GET /v1/consistency` holds at most (default 8 MiB; a page holds at least one link). */
  readonly consistencyPageBytes?: number;
  /**
   * Stored signed checkpoints instead of signing (a mirror, src/mirror: it serves the primary's
   * checkpoints it verified and signs nothing): the note text of a size, or undefined when none
   * is stored. `GET /v1/checkpoint` and proof bodies then carry these texts; give it or
   * `signingKey`, not both.
   */
  readonly checkpoints?: (size: number) => string | undefined;
  /** A `mirror` section of `GET /v1/status` (a mirror's position, lag and problem), read on each request. */
  readonly mirrorStatus?: () => Record<string, unknown>;
}

/**
 * The listen backlog of the registry's servers (`registry http`, `registry mirror --listen`):
 * connections the kernel completes before the server accepts them. Node's default (511) overflows
 * when thousands of clients connect at once; the kernel caps this at `net.core.somaxconn`.
 */
export const LISTEN_BACKLOG = 4096;
/** Default location of the built page: dist/web beside dist/src (built by `prepare`, so by `npm ci`, and shipped in the package). */
export const DEFAULT_WEB_DIR = new URL("../../web/", import.meta.url).pathname;

/** The API and page as a fastify instance (not listening: call `app.listen`), its proof cache and its routes. */
export interface RegistryApp {
  readonly app: FastifyInstance;
  readonly cache: ProofCache;
  /** The write sequencer (name-keyed registries served with a token), or undefined. */
  readonly sequencer: Sequencer | undefined;
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
  // Prepared here, before the server can listen, so no request ever prepares a circuit.
  const served = new ServedConfigs(
    { depth: store.config.depth, leafMaxFields: store.config.leafMaxFields },
    opts.verifyConfigs ?? [],
  );
  served.prepareAll();
  // Every write of a name-keyed registry goes through the sequencer; writes accepted by an
  // earlier process and not yet applied are applied before the server answers anything.
  const sequencer =
    isNameKeyed(store) && opts.token !== undefined && !store.readOnly
      ? new Sequencer(store, {
          ...(opts.epochMs !== undefined ? { epochMs: opts.epochMs } : {}),
          ...(opts.epochMax !== undefined ? { epochMax: opts.epochMax } : {}),
          ...(opts.writeQueue !== undefined ? { writeQueue: opts.writeQueue } : {}),
          ...(opts.onEpoch !== undefined ? { onEpoch: opts.onEpoch } : {}),
          onError: (e) => process.stderr.write(`error: an epoch failed: ${(e as Error).message}\n`),
          writer: opts.epochWriter ?? "thread",
        })
      : undefined;
  await sequencer?.start();
  const ctx = createHttpContext({
    store,
    auth:
      opts.mirrorStatus !== undefined
        ? new BearerAuth(undefined, "a mirror serves its verified copy read-only: write to the primary")
        : new BearerAuth(opts.token),
    cache: new ProofCache(opts.cacheBytes ?? 128 * 1024 * 1024),
    lock: new WriteLock(opts.maxQueuedWrites ?? 64),
    sequencer,
    served,
    signingKey: opts.signingKey,
    checkpoints: opts.checkpoints,
    mirrorStatus: opts.mirrorStatus,
    cors: opts.cors,
    maxUrl: opts.maxUrlBytes ?? 4096 + 512,
    rateLimit: opts.rateLimit ?? 600,
    verifyBodyBytes: opts.verifyBodyBytes ?? 2 * 1024 * 1024,
    webDir: opts.webDir ?? DEFAULT_WEB_DIR,
    proveBlocks: opts.proveBlocks ?? false,
    pool: opts.pool,
    consistencyPageBytes: opts.consistencyPageBytes ?? DEFAULT_CONSISTENCY_PAGE_BYTES,
    logger: opts.logger ?? false,
  });
  const requestTimeout = opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const app = Fastify({
    logger: ctx.logger,
    routerOptions: { maxParamLength: 1 << 16 },
    bodyLimit: opts.writeBodyBytes ?? 256 * 1024,
    return503OnClosing: true,
    frameworkErrors: frameworkErrorAnswer(ctx),
    clientErrorHandler: clientErrorAnswer(requestTimeout),
    // a request (headers and body) arrives whole within requestTimeout, checked every 5 s (given
    // when Node's server is made: its connection checks take their limits from there)
    requestTimeout,
    http: { requestTimeout, connectionsCheckingInterval: Math.min(5000, requestTimeout) },
  });
  // Bodies are JSON only: without fastify's default text/plain parser a text body is refused with 415 like any other
  // content-type that is not JSON (docs/http.md), not read as a string and refused later as a 400.
  app.removeContentTypeParser("text/plain");
  const routes: { method: string; url: string; hidden: boolean }[] = [];
  app.addHook("onRoute", (r) => {
    for (const m of [r.method].flat())
      if (m !== "HEAD")
        routes.push({ method: m, url: r.url, hidden: (r.schema as { hide?: boolean } | undefined)?.hide === true });
  });
  // Inputs are checked by values.ts (messages name the field); schemas document the API.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  await app.register(errorHandlingPlugin, ctx);
  await app.register(guardsPlugin, ctx);
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
  await app.register(readRoutes, ctx);
  await app.register(blockRoutes, ctx);
  await app.register(verifyRoute, ctx);
  await app.register(writeRoutes, ctx);
  // a graceful stop applies every queued write first
  app.addHook("onClose", async () => sequencer?.close());
  app.get("/v1/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  await app.register(pageRoutes, ctx);

  return { app, cache: ctx.cache, sequencer, routes, verifyConfigs: served.list };
}
