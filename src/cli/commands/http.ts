import type { Command } from "commander";

/**
 * `ssgkr registry http --db DIR [--listen 127.0.0.1:8080] [--token-file F] [--cors ORIGIN]
 * [--verify-config DEPTH:LEAF]… [--no-prove-blocks] [--epoch-ms MS] [--epoch-max N] [--write-queue N]
 * [--nats URLS …]`:
 * the registry HTTP API and the browser
 * verifier page (docs/http.md), with the block prover running in the background
 * (GET /v1/consistency serves what it proves; the registry is then opened for writing). Prepares
 * the circuits of the configurations `POST /v1/verify` takes (the registry's and each
 * `--verify-config`) before it listens, then prints one line
 * `listening on http://HOST:PORT (…)` on stdout once bound, serves until SIGINT/SIGTERM, then
 * closes the database. With `--nats` every proof is a job on the broker, proved by `registry
 * worker` processes (docs/scale-out.md "Registry proof jobs") instead of threads. Exit 2 for a bad option, an unusable token file or an address that cannot
 * be bound.
 */
export function registerRegistryHttp(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("http")
    .description(
      "serve the registry over HTTP: reads, proofs, verification, token-guarded writes, the verifier page at /verify (docs/http.md)",
    )
    .requiredOption("--db <dir>", "registry database directory")
    .option("--listen <host:port>", "listen address; port 0 picks a free port", "127.0.0.1:8080")
    .option(
      "--token-file <file>",
      "file holding the bearer token of the write routes (trimmed); without it the server is read-only",
    )
    .option("--cors <origin>", "allow this origin (or *) to call the API from a browser; off by default")
    .option("--rate-limit <n>", "requests per minute per client address; 0 = unlimited", "600")
    .option("--cache-mb <n>", "proof cache budget, MiB; 0 = no cache", "128")
    .option(
      "--epoch-ms <ms>",
      "writes are applied in epochs: an epoch closes every this many ms (1..60000), or at --epoch-max writes",
      "1000",
    )
    .option("--epoch-max <n>", "largest epoch, in writes (1..65536); a full epoch closes at once", "4096")
    .option(
      "--write-queue <n>",
      "writes waiting for an epoch before new ones get 503 WRITE_QUEUE_FULL (1..10000000)",
      "100000",
    )
    .option(
      "--web <dir>",
      "folder of the built verifier page (default dist/web: shipped in the package, built by `npm ci` in a clone)",
    )
    .option(
      "--verify-config <depth:leaf>",
      "let POST /v1/verify also verify proofs of this depth and leaf bound, e.g. 24:31 (repeatable; prepared at start-up); it always verifies the registry's own",
      (v: string, all: string[] | undefined) => [...(all ?? []), v],
    )
    .option(
      "--signing-key <keyfile>",
      "sign checkpoints with this key (`ssgkr registry keygen`): GET /v1/checkpoint serves the head's, and every proof carries the checkpoint it is about",
    )
    .option(
      "--workers <n>",
      "proving worker threads (default: one per core): every proof not in the cache, and the blocks of committed batches, are made on them; 0 proves on the serving thread (name-keyed registries)",
    )
    .option(
      "--nats <urls>",
      'prove on `ssgkr registry worker` processes behind this NATS JetStream broker nats://HOST:PORT[,…] instead of threads (docs/scale-out.md "Registry proof jobs")',
    )
    .option("--nats-creds <file>", "NATS credentials file")
    .option("--nats-tls-ca <file>", "CA certificate (PEM) of the broker")
    .option("--nats-tls-cert <file>", "client certificate (PEM) for mutual TLS")
    .option("--nats-tls-key <file>", "client key (PEM) for mutual TLS")
    .option("--nats-block-capacity <n>", "with --nats: block parts on the broker at once (1..1024; default 2)")
    .option(
      "--nats-read-timeout-ms <ms>",
      "with --nats: a read proof's time before 503 PROVER_TIMEOUT (100..86400000; default 60000)",
    )
    .option(
      "--nats-block-timeout-ms <ms>",
      "with --nats: a block part's time before its job is published again (100..86400000; default 900000)",
    )
    .option(
      "--no-prove-blocks",
      "do not run the block prover (by default the server proves each committed batch in the background, for GET /v1/consistency)",
    )
    .action(async (opts) => (await import("./http-run.js")).runHttpCommand(setExit, opts));
}
