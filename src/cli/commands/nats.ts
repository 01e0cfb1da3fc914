import type { Command } from "commander";
import { brokerEndpoint } from "../../serve/nats/connect.js";
import { connectBroker } from "../../serve/nats/connect.js";
import { DEFAULT_STREAM_SETTINGS, ensureStreams, streamSettings, STREAM_OPTION_NAMES, type StreamSettings } from "../../serve/nats/setup.js";
import { EXIT_OK } from "../exit.js";
import { parseIntOption } from "../io.js";

/**
 * `ssgkr nats setup --nats URLS [--replicas 3] …`: creates the job and result streams and the job
 * consumers, or updates them to the given settings (docs/scale-out.md). Prints one JSON line
 * with what was done; exit 0, or 2 with `error CODE: …` (unreachable broker, JetStream off,
 * incompatible existing stream).
 */
export function registerNats(program: Command, setExit: (code: number) => void): void {
  const nats = program.command("nats").description("NATS JetStream broker set-up for scale-out serving (docs/scale-out.md)");
  const setup = nats
    .command("setup")
    .description("create or update the SSGKR_JOBS and SSGKR_RESULTS streams and the job consumers (idempotent)")
    .requiredOption("--nats <urls>", "broker nats://HOST:PORT[,…]")
    .option("--nats-creds <file>", "NATS credentials file")
    .option("--nats-tls-ca <file>", "CA certificate (PEM)")
    .option("--nats-tls-cert <file>", "client certificate (PEM) for mutual TLS")
    .option("--nats-tls-key <file>", "client key (PEM) for mutual TLS");
  for (const [key, name] of Object.entries(STREAM_OPTION_NAMES) as [keyof StreamSettings, string][]) {
    setup.option(`--${name} <n>`, `${key} (default ${DEFAULT_STREAM_SETTINGS[key]})`);
  }
  setup.action(async (opts: Record<string, string | undefined>) => {
    let nc;
    try {
      const endpoint = brokerEndpoint({ nats: opts.nats, "nats-creds": opts.natsCreds, "nats-tls-ca": opts.natsTlsCa, "nats-tls-cert": opts.natsTlsCert, "nats-tls-key": opts.natsTlsKey });
      const partial: Partial<Record<keyof StreamSettings, number>> = {};
      for (const [key, name] of Object.entries(STREAM_OPTION_NAMES) as [keyof StreamSettings, string][]) {
        const camel = name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
        const v = opts[camel];
        if (v !== undefined) partial[key] = parseIntOption(v, `--${name}`, 0, Number.MAX_SAFE_INTEGER);
      }
      const settings = streamSettings(partial);
      nc = await connectBroker(endpoint, "ssgkr-nats-setup");
      const report = await ensureStreams(nc, settings, true);
      process.stdout.write(JSON.stringify({ status: "NATS_SETUP_DONE", servers: endpoint.servers, actions: report.actions, max_payload: report.maxPayload, settings }) + "\n");
      setExit(EXIT_OK);
    } finally {
      await nc?.close().catch(() => undefined);
    }
  });
}
