/**
 * The implementation of `ssgkr nats setup`: the definitions (options, help) are in nats.ts, which
 * imports this file only when the command runs.
 */
import { brokerEndpoint } from "../../serve/nats/connect.js";
import { connectBroker } from "../../serve/nats/connect.js";
import { ensureStreams, streamSettings, STREAM_OPTION_NAMES, type StreamSettings } from "../../serve/nats/setup.js";
import { ensureRegistryStreams } from "../../proof-jobs/streams.js";
import { EXIT_OK } from "../exit.js";
import { parseIntOption } from "../io.js";

/** The action of `ssgkr nats setup`, with what commander parsed (the command's definition is in nats.ts). */
export async function runSetupCommand(
  setExit: (code: number) => void,
  opts: Record<string, string | undefined>,
): Promise<void> {
  let nc;
  try {
    const endpoint = brokerEndpoint({
      nats: opts.nats,
      "nats-creds": opts.natsCreds,
      "nats-tls-ca": opts.natsTlsCa,
      "nats-tls-cert": opts.natsTlsCert,
      "nats-tls-key": opts.natsTlsKey,
    });
    const partial: Partial<Record<keyof StreamSettings, number>> = {};
    for (const [key, name] of Object.entries(STREAM_OPTION_NAMES) as [keyof StreamSettings, string][]) {
      const camel = name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
      const v = opts[camel];
      if (v !== undefined) partial[key] = parseIntOption(v, `--${name}`, 0, Number.MAX_SAFE_INTEGER);
    }
    const settings = streamSettings(partial);
    nc = await connectBroker(endpoint, "ssgkr-nats-setup");
    const report = await ensureStreams(nc, settings, true);
    const registry = await ensureRegistryStreams(nc, settings, true);
    // a broker outside a cluster keeps one copy of each stream, whatever --replicas asked for
    if (settings.replicas > 1 && nc.info?.cluster === undefined)
      process.stderr.write(
        `notice: ${nc.getServer()} is not part of a cluster: the streams have one copy on it, not the ${settings.replicas} --replicas asks for\n`,
      );
    process.stdout.write(
      JSON.stringify({
        status: "NATS_SETUP_DONE",
        servers: endpoint.servers,
        actions: { ...report.actions, ...registry },
        max_payload: report.maxPayload,
        settings,
      }) + "\n",
    );
    setExit(EXIT_OK);
  } finally {
    await nc?.close().catch(() => undefined);
  }
}
