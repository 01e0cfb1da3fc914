/**
 * `ssgkr registry worker --nats URLS --from URL --key VERIFIERKEY --db DIR [--threads N]
 * [--max-deliveries N] [--sync-wait-ms MS] [--nak-delay-ms MS] [--follow-ms MS]
 * [--pull-expires-ms MS] [--timeout S] [--host-id ID] [--log-jobs]` (docs/scale-out.md "Registry proof
 * jobs"): proves a registry's proof jobs from a NATS JetStream broker — names' proofs at a root in
 * every profile and parts of committed batches' v3 blocks — from its own verified copy of the
 * primary's registry in DIR (src/mirror; created when absent). Prints one JSON line
 * `{"status":"REGISTRY_WORKER_READY",…}` once it pulls, and `{"status":"REGISTRY_WORKER_STOPPED",…}`
 * when it stops (SIGINT/SIGTERM: exit 0). Exit 2 with `error CODE: message` for a bad option, an
 * unreachable broker or primary, or a copy that halted (a fork, a bad signature, a chain that
 * does not verify). This file defines the options; registry-worker-run.ts runs the command.
 */
import type { Command } from "commander";

/** Registers `registry worker`. */
export function registerRegistryWorker(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("worker")
    .description(
      "prove the registry's proof jobs from a NATS JetStream broker, from a verified copy of the primary's registry (docs/scale-out.md)",
    )
    .requiredOption("--nats <urls>", "broker nats://HOST:PORT[,…]")
    .option("--nats-creds <file>", "NATS credentials file")
    .option("--nats-tls-ca <file>", "CA certificate (PEM) of the broker")
    .option("--nats-tls-cert <file>", "client certificate (PEM) for mutual TLS")
    .option("--nats-tls-key <file>", "client key (PEM) for mutual TLS")
    .requiredOption("--from <url>", "the primary's HTTP API, e.g. http://10.0.0.1:8080")
    .requiredOption(
      "--key <verifierkey>",
      "the primary's verifier key NAME+HASH+KEY (`ssgkr registry keygen` prints it)",
    )
    .requiredOption("--db <dir>", "the worker's own copy of the registry (created when absent)")
    .option("--threads <n>", "proving threads (1..64)", "1")
    .option("--max-deliveries <n>", "deliveries after which a job is answered worker_delivery_limit (1..1000)", "5")
    .option("--sync-wait-ms <ms>", "how long a job waits for the copy to reach its root or batch (0..600000)", "20000")
    .option("--nak-delay-ms <ms>", "delay of a job handed back because the copy is behind (0..600000)", "2000")
    .option("--follow-ms <ms>", "milliseconds between follows of the primary (100..3600000)", "2000")
    .option("--pull-expires-ms <ms>", "expiry of each pull from the broker (5..60000)", "2000")
    .option("--timeout <seconds>", "seconds per request to the primary and the broker (1..3600)", "30")
    .option("--host-id <id>", "this worker's name in results (default HOST/PID)")
    .option("--log-jobs", "one line on stderr per job taken (its id and kind)")
    .action(async (opts) => (await import("./registry-worker-run.js")).runWorkerCommand(setExit, opts));
}
