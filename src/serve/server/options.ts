/**
 * Options of the proof server (compat-v1 §16.4) and their defaults.
 *
 * Defaults follow §16.4 (batch-max 96, max-wait-us 1000, max-queue 8192, run-ms 600000,
 * io-timeout-ms 5000, listen 127.0.0.1:9400, depth 24, control-samples 2) except `workers`,
 * which defaults to the number of cores of this machine (`os.availableParallelism()`) instead of
 * the reference's 48.
 */
import { availableParallelism } from "node:os";
import { KEY_BITS_CAP, MAX_SERVED_DEPTH } from "../protocol/limits.js";
import { ServerError } from "./errors.js";

/**
 * What a server proves: `compat-v1` (default) one inner-proof-v1 per job, serving protocol 1;
 * `v2` one profile v2 aggregate per batch, serving protocol 2 (docs/serving.md "Profile v2").
 */
export type ServingProfile = "compat-v1" | "v2";

/** How finished results reach the sockets. */
export type ReturnPath = "overlapped" | "serial";

/** Options of the proof server (`ssgkr serve`): listen address, queues and bounds, workers, batching; every field has a default (`defaultServerOptions`). */
export interface ServerOptions {
  /** Host to listen on (default 127.0.0.1). */
  readonly host: string;
  /** TCP port; 0 picks an ephemeral port (default 9400). */
  readonly port: number;
  /** Worker threads of the proving pool, 1..1024 (default: available cores). */
  readonly workers: number;
  /** Largest batch, jobs (default 96). */
  readonly batchMax: number;
  /** A kind becomes ready when its oldest job has waited this long, µs (default 1000). */
  readonly maxWaitUs: number;
  /** Jobs admitted and not yet flushed, over all kinds (default 8192). */
  readonly maxQueue: number;
  /** Tree depth of the prepared circuits, 1..32 (default 24). */
  readonly depth: number;
  /**
   * `overlapped` (default): finished batches go to a bounded return queue and are delivered
   * while the next batch computes. `serial`: each reply is hashed, framed and written (write
   * completed) one by one before the next batch starts, as the reference server does.
   */
  readonly returnPath: ReturnPath;
  /** Finished batches the return queue holds (overlapped path; default 2, at least 1). */
  readonly returnQueueBatches: number;
  /** `host_id` of replies (default `$HOSTNAME`, else `unspecified-host`). */
  readonly hostId: string;
  /**
   * A peer that stalls inside a frame, or does not take written bytes, for this long is
   * disconnected, ms (default 5000).
   */
  readonly ioTimeoutMs: number;
  /** Run limit: after this long the server stops, ms (default 600000). */
  readonly runMs: number;
  /**
   * Corpus fixtures per kind checked by the startup controls (default 2). 0 skips the controls;
   * only the programmatic API allows it (for tests of queueing); the CLI requires at least 1.
   */
  readonly controlSamples: number;
  /**
   * `compat-v1` (default) or `v2`: each batch proved as one aggregate in one worker thread
   * (`workers` is then not used), jobs and replies of serving protocol 2; batch-max ≤ 4096.
   */
  readonly profile: ServingProfile;
}

/** The defaults of §16.4 (workers: this machine's cores). */
export function defaultServerOptions(): ServerOptions {
  return {
    host: "127.0.0.1",
    port: 9400,
    workers: availableParallelism(),
    batchMax: 96,
    maxWaitUs: 1000,
    maxQueue: 8192,
    depth: 24,
    returnPath: "overlapped",
    returnQueueBatches: 2,
    hostId: process.env.HOSTNAME || "unspecified-host",
    ioTimeoutMs: 5000,
    runMs: 600000,
    controlSamples: 2,
    profile: "compat-v1",
  };
}

function int(name: string, v: number, min: number, max: number): void {
  if (!Number.isSafeInteger(v) || v < min || v > max) {
    throw new ServerError("BAD_OPTION", `--${name} must be an integer in [${min}, ${max}], got ${String(v)}`, {
      option: name,
    });
  }
}

/**
 * Completes and validates server options.
 * @throws ServerError `BAD_OPTION` naming the option.
 */
export function serverOptions(partial: Partial<ServerOptions> = {}): ServerOptions {
  const o = {
    ...defaultServerOptions(),
    ...Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined)),
  } as ServerOptions;
  int("port", o.port, 0, 65535);
  int("workers", o.workers, 1, 1024);
  int("batch-max", o.batchMax, 1, 1 << 20);
  int("max-wait-us", o.maxWaitUs, 0, 3_600_000_000);
  int("max-queue", o.maxQueue, 1, 1 << 24);
  int("depth", o.depth, 1, MAX_SERVED_DEPTH);
  int("return-queue-batches", o.returnQueueBatches, 1, 1024);
  int("io-timeout-ms", o.ioTimeoutMs, 1, 3_600_000);
  int("run-ms", o.runMs, 1, Number.MAX_SAFE_INTEGER);
  // fixture i has key i + 1, which must stay below 2^min(depth, 24)
  int("control-samples", o.controlSamples, 0, 2 ** Math.min(o.depth, KEY_BITS_CAP) - 1);
  if (o.returnPath !== "overlapped" && o.returnPath !== "serial") {
    throw new ServerError(
      "BAD_OPTION",
      `--return-path must be "overlapped" or "serial", got "${String(o.returnPath)}"`,
      { option: "return-path" },
    );
  }
  if (o.profile !== "compat-v1" && o.profile !== "v2") {
    throw new ServerError("BAD_OPTION", `--profile must be "compat-v1" or "v2", got "${String(o.profile)}"`, {
      option: "profile",
    });
  }
  if (o.profile === "v2") int("batch-max", o.batchMax, 1, 4096);
  if (typeof o.host !== "string" || o.host.length === 0)
    throw new ServerError("BAD_OPTION", "--listen needs a host", { option: "listen" });
  if (typeof o.hostId !== "string" || o.hostId.length === 0)
    throw new ServerError("BAD_OPTION", "--host-id must be non-empty", { option: "host-id" });
  return Object.freeze(o);
}

/**
 * Splits `HOST:PORT` (IPv6 hosts in brackets: `[::1]:9400`).
 * @throws ServerError `BAD_OPTION`.
 */
export function parseListen(value: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:\[\]]+)):([0-9]{1,5})$/.exec(value);
  if (!m || Number(m[3]) > 65535) {
    throw new ServerError("BAD_OPTION", `--listen must be HOST:PORT (port 0..65535), got "${value}"`, {
      option: "listen",
    });
  }
  return { host: (m[1] ?? m[2])!, port: Number(m[3]) };
}
