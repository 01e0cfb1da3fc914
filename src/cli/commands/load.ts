import type { Command } from "commander";
import { LOAD_FLAG_NAMES, LOAD_OPTION_NAMES } from "../../serve/load/options.js";

const HELP: Record<string, string> = {
  targets: "proof servers HOST:PORT[,HOST:PORT…], offers round-robin (default 127.0.0.1:9400)",
  rate: "offers per second, 0 < rate ≤ 10^6 (default 100)",
  duration: "timed offers = round(rate × S) (excludes --jobs)",
  jobs: "timed offers after the warmup (default 128)",
  mixture: "kind:weight list, each weight consecutive copies (default membership:1,nonmembership:1,update:1)",
  corpus: "fixtures 0 … N−1 of the §16.6 corpus, N < 2^min(depth, 24) (default 768)",
  warmup: "warmup offers, excluded from timed statistics (default 32)",
  "deadline-ms": "deadline after each offer's scheduled time (default 1000)",
  "verify-workers": "verification worker threads (default: available cores)",
  "verify-queue": "replies in verification before reading pauses (default 256)",
  depth: "tree depth of the fixtures and circuits, 1..32 (default 24)",
  "run-id": "run id bound into every job and reply (default pilot)",
  repeat: "run repeat number (default 1)",
  "control-samples": "control fixtures per kind, 0 = no controls (default 2)",
  "max-pending": "pending map bound; overflow = frontend_max_pending (default 8192)",
  "sender-queue":
    "frames per target waiting for the socket; overflow = frontend_sender_queue_full_or_closed (default 1024)",
  "deadline-poll-ms": "deadline scanner period (default 10)",
  "drain-ms": "wait for outstanding replies after the last offer (default 30000)",
  "connect-timeout-ms": "connection timeout per target (default 5000)",
  profile:
    "compat-v1 (protocol 1, one proof per reply) or v2 (protocol 2, served aggregates verified once per batch) (default compat-v1)",
  out: "new output directory: records.ndjson, summary.json, report.html (required)",
  nats: "NATS JetStream broker nats://HOST:PORT[,…] in place of --targets (docs/scale-out.md)",
  "nats-creds": "NATS credentials file (user JWT + nkey seed)",
  "nats-tls-ca": "CA certificate (PEM) of the brokers' TLS certificates",
  "nats-tls-cert": "client certificate (PEM) for mutual TLS (with --nats-tls-key)",
  "nats-tls-key": "client key (PEM) for mutual TLS",
  resume:
    "(flag, with --nats) continue the run recorded in --out: same run id and schedule, results read back from the broker",
};

/**
 * `ssgkr load --out DIR [--targets …] [--rate R] (--duration S | --jobs N) …`: the open-loop load
 * generator with its verifying frontend (compat-v1 §16.5). Prints the terminal status line;
 * exit 0 for LOAD_OBSERVATIONS_COMPLETE, 1 for FAIL_SEMANTIC_GUARD or failed controls, 2 for
 * unusable options, an existing --out, or an unreachable target.
 */
export function registerLoad(program: Command, setExit: (code: number) => void): void {
  const cmd = program
    .command("load")
    .description(
      "open-loop load generator with a verifying frontend (compat-v1 §16.5); every option is --name VALUE, or SSGR_NAME in the environment",
    )
    .allowUnknownOption()
    .allowExcessArguments()
    .addHelpText(
      "after",
      "\nOptions (each --name VALUE):\n" +
        [...LOAD_OPTION_NAMES, ...LOAD_FLAG_NAMES].map((n) => `  --${n.padEnd(20)} ${HELP[n] ?? ""}`).join("\n") +
        "\n",
    );
  cmd.action(async (_opts, command) => (await import("./load-run.js")).runLoadCommand(setExit, _opts, command));
}
