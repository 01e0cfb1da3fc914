/**
 * The implementation of `ssgkr registry http`: the definitions (options, help) are in http.ts,
 * which imports this file only when the command runs.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { SsgkrError } from "../../errors.js";
import { openRegistry } from "../../registry/store/open-any.js";
import { parseListen } from "../../serve/server/options.js";
import { readTokenFile } from "../../http/auth.js";
import { readSigningKey } from "../../registry/checkpoint/signing-key.js";
import { createRegistryApp, DEFAULT_WEB_DIR, LISTEN_BACKLOG } from "../../http/server.js";
import { configText, type VerifyConfig } from "../../http/served-configs.js";
import { syncConfig } from "../../smt/config.js";
import { EXIT_OK } from "../exit.js";
import { CliError } from "../errors.js";
import { watchStop } from "./stop-watch.js";
import { checkListenFree } from "../listen-check.js";
import { holdFolder } from "../../registry/store/folder-hold.js";
import { parseIntOption } from "../io.js";
import { SEQUENCER_LIMITS } from "../../registry/sequencer/sequencer.js";
import { availableParallelism } from "node:os";
import { ProvingPool, type ProverPool } from "../../proving/pool.js";
import { brokerEndpoint } from "../../serve/nats/connect.js";
import { streamSettings } from "../../serve/nats/setup.js";
import { isNameKeyed } from "../../counterparty/prove.js";

interface HttpOpts {
  db: string;
  listen: string;
  tokenFile?: string;
  cors?: string;
  rateLimit: string;
  cacheMb: string;
  epochMs: string;
  epochMax: string;
  writeQueue: string;
  web?: string;
  verifyConfig?: string[];
  signingKey?: string;
  proveBlocks?: boolean;
  workers?: string;
  nats?: string;
  natsCreds?: string;
  natsTlsCa?: string;
  natsTlsCert?: string;
  natsTlsKey?: string;
  natsBlockCapacity?: string;
  natsReadTimeoutMs?: string;
  natsBlockTimeoutMs?: string;
}

/**
 * One `--verify-config DEPTH:LEAF_MAX_FIELDS` value, within the engine's limits (depth 1..64,
 * leaf bound 10..63).
 * @throws CliError `BAD_OPTION`.
 */
export function parseVerifyConfig(text: string): VerifyConfig {
  const m = /^(\d{1,9}):(\d{1,9})$/.exec(text.trim());
  if (!m)
    throw new CliError(
      "BAD_OPTION",
      `--verify-config ${JSON.stringify(text)}: must be DEPTH:LEAF_MAX_FIELDS, e.g. 24:31`,
    );
  try {
    const cfg = syncConfig({ depth: Number(m[1]), leafMaxFields: Number(m[2]) });
    return { depth: cfg.depth, leafMaxFields: cfg.leafMaxFields };
  } catch (e) {
    if (e instanceof SsgkrError) throw new CliError("BAD_OPTION", `--verify-config ${text}: ${e.message}`);
    throw e;
  }
}

/** The default page folder (shipped in the package, built by `prepare`); built on the spot when missing in a clone with esbuild installed. */
async function ensureWeb(): Promise<string> {
  if (existsSync(join(DEFAULT_WEB_DIR, "index.html"))) return DEFAULT_WEB_DIR;
  try {
    const script = new URL("../../../../scripts/build-web.mjs", import.meta.url).href;
    const { buildWeb } = (await import(script)) as { buildWeb: (dir: string) => Promise<unknown> };
    await buildWeb(DEFAULT_WEB_DIR);
  } catch (e) {
    process.stderr.write(
      `notice: the verifier page is not built and cannot be built here (${e instanceof SsgkrError ? e.message : (e as Error).message.split("\n")[0]}); /verify answers 503 WEB_NOT_BUILT; in a clone, \`npm ci\` builds the page; an installed package ships it, so reinstall it, or give --web DIR\n`,
    );
  }
  return DEFAULT_WEB_DIR;
}

/**
 * The `--nats*` options: the broker and the pool's settings, or undefined without `--nats`.
 * @throws CliError / BrokerError `BAD_OPTION` (a value out of range, or a `--nats-…` option without `--nats`).
 */
function natsOptions(opts: HttpOpts) {
  const given = (
    [
      ["--nats-creds", opts.natsCreds],
      ["--nats-tls-ca", opts.natsTlsCa],
      ["--nats-tls-cert", opts.natsTlsCert],
      ["--nats-tls-key", opts.natsTlsKey],
      ["--nats-block-capacity", opts.natsBlockCapacity],
      ["--nats-read-timeout-ms", opts.natsReadTimeoutMs],
      ["--nats-block-timeout-ms", opts.natsBlockTimeoutMs],
    ] as const
  ).find(([, v]) => v !== undefined);
  if (opts.nats === undefined) {
    if (given !== undefined)
      throw new CliError("BAD_OPTION", `${given[0]} goes with --nats (the broker the proofs go to)`);
    return undefined;
  }
  return {
    endpoint: brokerEndpoint({
      nats: opts.nats,
      "nats-creds": opts.natsCreds,
      "nats-tls-ca": opts.natsTlsCa,
      "nats-tls-cert": opts.natsTlsCert,
      "nats-tls-key": opts.natsTlsKey,
    }),
    blockCapacity: parseIntOption(opts.natsBlockCapacity ?? "2", "--nats-block-capacity", 1, 1024),
    readTimeoutMs: parseIntOption(opts.natsReadTimeoutMs ?? "60000", "--nats-read-timeout-ms", 100, 86_400_000),
    blockTimeoutMs: parseIntOption(opts.natsBlockTimeoutMs ?? "900000", "--nats-block-timeout-ms", 100, 86_400_000),
  };
}

/** The action of `ssgkr registry http`, with what commander parsed (the command's definition is in http.ts). */
export async function runHttpCommand(setExit: (code: number) => void, opts: HttpOpts): Promise<void> {
  let host: string;
  let port: number;
  try {
    ({ host, port } = parseListen(opts.listen));
  } catch (e) {
    throw new CliError("BAD_OPTION", (e as Error).message);
  }
  const rateLimit = parseIntOption(opts.rateLimit, "--rate-limit", 0, 1_000_000_000);
  const cacheMb = parseIntOption(opts.cacheMb, "--cache-mb", 0, 1 << 20);
  const L = SEQUENCER_LIMITS;
  const epochMs = parseIntOption(opts.epochMs, "--epoch-ms", L.epochMs.min, L.epochMs.max);
  const epochMax = parseIntOption(opts.epochMax, "--epoch-max", L.epochMax.min, L.epochMax.max);
  const writeQueue = parseIntOption(opts.writeQueue, "--write-queue", L.writeQueue.min, L.writeQueue.max);
  const verifyConfigs = (opts.verifyConfig ?? []).map(parseVerifyConfig);
  const token = opts.tokenFile !== undefined ? readTokenFile(opts.tokenFile) : undefined;
  const signingKey = opts.signingKey !== undefined ? readSigningKey(opts.signingKey) : undefined;
  const webDir = opts.web ?? (await ensureWeb());
  // The block prover writes the registry (its kept block proofs), so it opens it for writing; writes over HTTP still need the token.
  const proveBlocks = opts.proveBlocks !== false;
  const workers =
    opts.workers === undefined ? availableParallelism() : parseIntOption(opts.workers, "--workers", 0, 64);
  const nats = natsOptions(opts);
  await checkListenFree(host, port, opts.listen);
  // one writable server per registry (each runs a sequencer); read-only servers are many
  const hold = token === undefined ? undefined : await holdFolder(opts.db, "server");
  if (token !== undefined && hold === undefined)
    throw new CliError(
      "DB_IN_USE",
      `--db ${opts.db}: another registry http with --token-file serves this registry (one writable server per registry); stop it first, or start this one without --token-file (read-only)`,
    );
  const { store } = openRegistry(opts.db, { readOnly: token === undefined && !proveBlocks });
  // the registry closes, then the hold ends (another writable server may start)
  const closeRegistry = async () => {
    await store.close();
    hold?.release();
  };
  // The workers open the registry read-only and prepare their circuits before the server listens.
  let pool: ProverPool | undefined;
  if (nats !== undefined) {
    if (!isNameKeyed(store)) {
      await closeRegistry();
      throw new CliError("BAD_OPTION", "--nats: proof jobs on a broker are for name-keyed registries");
    }
    const { NatsProvingPool } = await import("../../proof-jobs/pool.js");
    const names = store;
    try {
      pool = await NatsProvingPool.start({
        ...nats,
        streams: streamSettings(),
        batchRoot: (b) => {
          try {
            return b < 0 || b > names.head().batch ? undefined : names.batchEntry(b).root;
          } catch {
            return undefined;
          }
        },
        log: (line) => process.stderr.write(`proof jobs: ${line}\n`),
      });
    } catch (e) {
      await closeRegistry();
      throw e;
    }
    process.stderr.write(
      `proving pool: jobs on the broker ${nats.endpoint.servers.join(",")} (registry workers prove)\n`,
    );
  } else if (workers > 0 && isNameKeyed(store)) {
    const t0 = performance.now();
    try {
      pool = await ProvingPool.start({ dir: store.dir, workers });
    } catch (e) {
      await closeRegistry();
      throw e;
    }
    process.stderr.write(
      `proving pool: ${workers} workers ready in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    );
  }
  const { app, verifyConfigs: served } = await createRegistryApp({
    ...(pool !== undefined ? { pool } : {}),
    store,
    ...(token !== undefined ? { token } : {}),
    ...(opts.cors !== undefined ? { cors: opts.cors } : {}),
    webDir,
    rateLimit,
    cacheBytes: cacheMb * 1024 * 1024,
    verifyConfigs,
    ...(signingKey !== undefined ? { signingKey } : {}),
    proveBlocks,
    epochMs,
    epochMax,
    writeQueue,
    onEpoch: (e) =>
      process.stderr.write(
        `epoch: batch ${e.batch}, ${e.updates} update${e.updates === 1 ? "" : "s"}, ${e.failed} failed, ${e.ms} ms\n`,
      ),
  });
  let address: string;
  try {
    address = await app.listen({ host, port, backlog: LISTEN_BACKLOG });
  } catch (e) {
    // the block prover and the sequencer stop with the app, before the pool and the registry close
    await app.close().catch(() => undefined);
    await pool?.close();
    await closeRegistry();
    throw new CliError("BAD_OPTION", `--listen ${opts.listen}: ${(e as Error).message}`);
  }
  process.stdout.write(
    `listening on ${address} (${token === undefined ? "read-only" : "writes need the bearer token"}${opts.cors !== undefined ? `, CORS for ${opts.cors}` : ""}${signingKey !== undefined ? `, checkpoints signed by ${signingKey.verifierKey}` : ""}); verifier page at ${address}/verify/; verifies depth:leaf bound ${served.map(configText).join(", ")}\n`,
  );
  const why = await new Promise<string>((resolve) => {
    const dispose = watchStop((reason) => {
      dispose();
      resolve(reason);
    });
  });
  process.stderr.write(`stopping (${why}): closing connections, the proving pool and the registry\n`);
  await app.close();
  await pool?.close();
  await closeRegistry();
  process.stderr.write("stopped\n");
  setExit(EXIT_OK);
}
