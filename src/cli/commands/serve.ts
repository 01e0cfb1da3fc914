import { Option, type Command } from "commander";
import { availableParallelism } from "node:os";

/** An option that may also come from the environment as SSGR_<NAME> (the command line wins). */
function envOption(flags: string, description: string, name: string, fallback?: string): Option {
  const o = new Option(flags, description).env(`SSGR_${name.toUpperCase().replace(/-/g, "_")}`);
  return fallback === undefined ? o : o.default(fallback);
}

/**
 * `ssgkr serve`: the proof server of serving protocol 1 (compat-v1 §16.4; docs/serving.md).
 *
 * Prepares the three kinds at --depth, runs the startup controls, prints `CONTROLS_PASS` and
 * `SERVER_READY` (one JSON line each on stdout, the latter with the bound `listen` address),
 * serves until the run limit or SIGINT/SIGTERM, then prints `SERVER_STOPPED` with counts.
 * Every option may also be given as SSGR_<NAME> in the environment.
 *
 * Exit codes: 0 stopped normally; 1 a control failed (`CONTROLS_FAIL` line); 2 bad option or
 * the address cannot be bound.
 */
export function registerServe(program: Command, setExit: (code: number) => void): void {
  program
    .command("serve")
    .description("serve proofs over TCP (serving protocol 1, compat-v1 §16; docs/serving.md)")
    .addOption(
      envOption("--listen <host:port>", "listen address; port 0 picks a free port", "listen", "127.0.0.1:9400"),
    )
    .addOption(
      envOption(
        "--workers <n>",
        `proving worker threads (default: available cores, here ${availableParallelism()})`,
        "workers",
      ),
    )
    .addOption(envOption("--batch-max <n>", "largest batch, jobs", "batch-max", "96"))
    .addOption(
      envOption(
        "--max-wait-us <us>",
        "a kind is flushed once its oldest job waited this long, µs (timer resolution 1 ms)",
        "max-wait-us",
        "1000",
      ),
    )
    .addOption(
      envOption(
        "--max-queue <n>",
        "queued jobs over all kinds before refusing (server_total_queue_full)",
        "max-queue",
        "8192",
      ),
    )
    .addOption(envOption("--depth <d>", "tree depth, 1..32", "depth", "24"))
    .addOption(
      envOption(
        "--return-path <mode>",
        "overlapped: deliver replies while the next batch computes; serial: deliver each reply before the next batch",
        "return-path",
        "overlapped",
      ).choices(["overlapped", "serial"]),
    )
    .addOption(envOption("--host-id <id>", "host_id of replies (default $HOSTNAME, else unspecified-host)", "host-id"))
    .addOption(
      envOption(
        "--io-timeout-ms <ms>",
        "drop a peer stalled inside a frame or not reading its replies after this long",
        "io-timeout-ms",
        "5000",
      ),
    )
    .addOption(envOption("--run-ms <ms>", "run limit: stop after this long", "run-ms", "600000"))
    .addOption(
      envOption("--control-samples <n>", "corpus fixtures per kind checked at startup", "control-samples", "2"),
    )
    .addOption(
      envOption(
        "--profile <profile>",
        "compat-v1: one inner-proof-v1 per job (protocol 1); v2: one aggregate per batch (protocol 2, docs/serving.md)",
        "profile",
        "compat-v1",
      ).choices(["compat-v1", "v2"]),
    )
    .addOption(
      envOption(
        "--nats <urls>",
        "run as a worker of a NATS JetStream broker nats://HOST:PORT[,…] instead of listening (docs/scale-out.md)",
        "nats",
      ),
    )
    .addOption(envOption("--nats-creds <file>", "NATS credentials file (user JWT + nkey seed)", "nats-creds"))
    .addOption(
      envOption("--nats-tls-ca <file>", "CA certificate (PEM) of the brokers' TLS certificates", "nats-tls-ca"),
    )
    .addOption(
      envOption(
        "--nats-tls-cert <file>",
        "client certificate (PEM) for mutual TLS (with --nats-tls-key)",
        "nats-tls-cert",
      ),
    )
    .addOption(envOption("--nats-tls-key <file>", "client key (PEM) for mutual TLS", "nats-tls-key"))
    .addOption(
      envOption(
        "--max-deliveries <n>",
        "with --nats: a job delivered more often is answered with an error reply",
        "max-deliveries",
        "5",
      ),
    )
    .addOption(
      envOption(
        "--pull-expires-ms <ms>",
        "with --nats: expiry of each pull request (a pull returns as soon as jobs arrive)",
        "pull-expires-ms",
        "2000",
      ),
    )
    .action(async (opts, cmd) => (await import("./serve-run.js")).runServeCommand(setExit, opts, cmd));
}
