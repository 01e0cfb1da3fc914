/**
 * The implementation of `ssgkr registry worker` (the definitions are in registry-worker.ts, which
 * imports this file only when the command runs).
 */
import { RegistryWorker } from "../../proof-jobs/worker.js";
import { brokerEndpoint } from "../../serve/nats/connect.js";
import { streamSettings } from "../../serve/nats/setup.js";
import { CliError } from "../errors.js";
import { EXIT_OK } from "../exit.js";
import { checkPrimaryUrl, parseIntOption } from "../io.js";

interface Opts {
  nats: string;
  natsCreds?: string;
  natsTlsCa?: string;
  natsTlsCert?: string;
  natsTlsKey?: string;
  from: string;
  key: string;
  db: string;
  threads: string;
  maxDeliveries: string;
  syncWaitMs: string;
  nakDelayMs: string;
  followMs: string;
  pullExpiresMs: string;
  timeout: string;
  hostId?: string;
  logJobs?: boolean;
}

/**
 * The action of `ssgkr registry worker`, with what commander parsed.
 * @throws CliError `BAD_OPTION`; BrokerError `BAD_OPTION`, `BROKER_CONNECT`, `BROKER_SETUP`;
 *   RegistryError `BAD_VERIFIER_KEY`; MirrorError (the copy could not follow, or halted).
 */
export async function runWorkerCommand(setExit: (code: number) => void, opts: Opts): Promise<void> {
  if (opts.hostId !== undefined && !/^[A-Za-z0-9_.:/-]{1,64}$/.test(opts.hostId))
    throw new CliError("BAD_OPTION", "--host-id must be 1..64 of [A-Za-z0-9_.:/-]");
  const endpoint = brokerEndpoint({
    nats: opts.nats,
    "nats-creds": opts.natsCreds,
    "nats-tls-ca": opts.natsTlsCa,
    "nats-tls-cert": opts.natsTlsCert,
    "nats-tls-key": opts.natsTlsKey,
  });
  checkPrimaryUrl(opts.from, "--from");
  const options = {
    endpoint,
    streams: streamSettings(),
    from: opts.from,
    key: opts.key,
    db: opts.db,
    threads: parseIntOption(opts.threads, "--threads", 1, 64),
    maxDeliveries: parseIntOption(opts.maxDeliveries, "--max-deliveries", 1, 1000),
    syncWaitMs: parseIntOption(opts.syncWaitMs, "--sync-wait-ms", 0, 600_000),
    nakDelayMs: parseIntOption(opts.nakDelayMs, "--nak-delay-ms", 0, 600_000),
    followMs: parseIntOption(opts.followMs, "--follow-ms", 100, 3_600_000),
    pullExpiresMs: parseIntOption(opts.pullExpiresMs, "--pull-expires-ms", 5, 60_000),
    ioTimeoutMs: parseIntOption(opts.timeout, "--timeout", 1, 3600) * 1000,
    ...(opts.hostId !== undefined ? { hostId: opts.hostId } : {}),
  };
  const log = (line: string): void => void process.stderr.write(`${new Date().toISOString()} ${line}\n`);
  const worker = await RegistryWorker.start(options, {
    log,
    ...(opts.logJobs === true ? { onJob: (job) => log(`job ${job.id} ${job.kind}`) } : {}),
  });
  const head = worker.mirror.store.head();
  process.stdout.write(
    JSON.stringify({
      status: "REGISTRY_WORKER_READY",
      host_id: worker.hostId,
      primary: worker.mirror.base,
      size: head.batch,
      threads: options.threads,
      ack_wait_ms: worker.ackWaitMs,
      servers: endpoint.servers,
    }) + "\n",
  );
  const stop = () => void worker.stop();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  await worker.done;
  process.removeListener("SIGINT", stop);
  process.removeListener("SIGTERM", stop);
  process.stdout.write(
    JSON.stringify({
      status: "REGISTRY_WORKER_STOPPED",
      host_id: worker.hostId,
      size: worker.stoppedAt ?? head.batch,
      stats: worker.stats,
      ...(worker.halted !== undefined ? { halted: { code: worker.halted.code, message: worker.halted.message } } : {}),
    }) + "\n",
  );
  if (worker.halted !== undefined) throw worker.halted;
  setExit(EXIT_OK);
}
