import type { Command } from "commander";
import { DEFAULT_STREAM_SETTINGS, STREAM_OPTION_NAMES, type StreamSettings } from "../../serve/nats/stream-settings.js";

/**
 * `ssgkr nats setup --nats URLS [--replicas 3] …`: creates the job and result streams and the job
 * consumers (of `ssgkr serve --nats` and of the registry's proof jobs, `registry worker`), or updates them to the given settings (docs/scale-out.md). Prints one JSON line
 * with what was done; exit 0, or 2 with `error CODE: …` (unreachable broker, JetStream off,
 * incompatible existing stream).
 */
export function registerNats(program: Command, setExit: (code: number) => void): void {
  const nats = program
    .command("nats")
    .description("NATS JetStream broker set-up for scale-out serving (docs/scale-out.md)");
  const setup = nats
    .command("setup")
    .description(
      "create or update the SSGKR_JOBS and SSGKR_RESULTS streams, the registry's SSGKR_REGISTRY_JOBS and SSGKR_REGISTRY_RESULTS, and the job consumers (idempotent)",
    )
    .requiredOption("--nats <urls>", "broker nats://HOST:PORT[,…]")
    .option("--nats-creds <file>", "NATS credentials file")
    .option("--nats-tls-ca <file>", "CA certificate (PEM)")
    .option("--nats-tls-cert <file>", "client certificate (PEM) for mutual TLS")
    .option("--nats-tls-key <file>", "client key (PEM) for mutual TLS");
  for (const [key, name] of Object.entries(STREAM_OPTION_NAMES) as [keyof StreamSettings, string][]) {
    setup.option(`--${name} <n>`, `${key} (default ${DEFAULT_STREAM_SETTINGS[key]})`);
  }
  setup.action(async (opts) => (await import("./nats-run.js")).runSetupCommand(setExit, opts));
}
