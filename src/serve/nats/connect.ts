/**
 * Connecting to the broker: `--nats nats://HOST:PORT[,…]` (or `tls://…`), with optional NATS
 * credentials (`--nats-creds FILE`, a user JWT + nkey seed as `nsc` writes them) and TLS
 * (`--nats-tls-ca FILE`, and `--nats-tls-cert FILE` + `--nats-tls-key FILE` for mutual TLS).
 * The client reconnects forever, to any server of the list or of the cluster it learns of.
 */
import { readFileSync } from "node:fs";
import { connect, credsAuthenticator, type ConnectionOptions, type NatsConnection } from "nats";
import { BrokerError } from "./errors.js";
import { errnoText } from "../../errors.js";

/** Where and how to reach the broker. */
export interface BrokerEndpoint {
  /** `nats://host:port` or `tls://host:port`, at least one. */
  readonly servers: readonly string[];
  /** NATS credentials file. */
  readonly creds?: string;
  /** CA certificate (PEM) that signed the servers' certificates. */
  readonly tlsCa?: string;
  /** Client certificate and key (PEM) for mutual TLS; both or neither. */
  readonly tlsCert?: string;
  readonly tlsKey?: string;
}

/** The `--nats*` option names. */
export const BROKER_OPTION_NAMES = ["nats", "nats-creds", "nats-tls-ca", "nats-tls-cert", "nats-tls-key"] as const;

function bad(option: string, message: string): BrokerError {
  return new BrokerError("BAD_OPTION", `--${option} ${message}`, { option: `--${option}` });
}

/**
 * Parses `nats://HOST:PORT[,nats://HOST:PORT…]` (scheme `nats` or `tls`; IPv6 hosts in brackets).
 * @throws BrokerError `BAD_OPTION`.
 */
export function parseNatsServers(text: string): string[] {
  if (text.trim() === "") throw bad("nats", "is empty (expected nats://HOST:PORT[,…])");
  return text.split(",").map((part) => {
    const p = part.trim();
    const m = /^(nats|tls):\/\/(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):([0-9]{1,5})$/.exec(p);
    if (!m) throw bad("nats", `entry ${JSON.stringify(part)} is not nats://HOST:PORT (or tls://HOST:PORT)`);
    const port = Number(m[2]);
    if (port < 1 || port > 65535) throw bad("nats", `port of ${JSON.stringify(part)} must be in [1, 65535]`);
    return p;
  });
}

/**
 * The endpoint from option texts (`nats` required).
 * @throws BrokerError `BAD_OPTION`.
 */
export function brokerEndpoint(
  o: Readonly<Partial<Record<(typeof BROKER_OPTION_NAMES)[number], string>>>,
): BrokerEndpoint {
  if (o.nats === undefined) throw bad("nats", "is required");
  if ((o["nats-tls-cert"] === undefined) !== (o["nats-tls-key"] === undefined))
    throw bad("nats-tls-cert", "and --nats-tls-key go together (give both or neither)");
  return {
    servers: parseNatsServers(o.nats),
    ...(o["nats-creds"] !== undefined ? { creds: o["nats-creds"] } : {}),
    ...(o["nats-tls-ca"] !== undefined ? { tlsCa: o["nats-tls-ca"] } : {}),
    ...(o["nats-tls-cert"] !== undefined ? { tlsCert: o["nats-tls-cert"], tlsKey: o["nats-tls-key"]! } : {}),
  };
}

function readOption(path: string, option: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new BrokerError("BROKER_CONNECT", `cannot read --${option} ${path}: ${errnoText(err)}`, {
      option: `--${option}`,
      path,
    });
  }
}

/**
 * Connects within `timeoutMs` (then reconnects forever).
 * @param name client name shown by the server's monitoring.
 * @throws BrokerError `BROKER_CONNECT` naming the servers and the cause.
 */
export async function connectBroker(ep: BrokerEndpoint, name: string, timeoutMs = 5000): Promise<NatsConnection> {
  const opts: ConnectionOptions = {
    servers: [...ep.servers],
    name,
    timeout: timeoutMs,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    pingInterval: 10_000,
  };
  if (ep.creds !== undefined) opts.authenticator = credsAuthenticator(readOption(ep.creds, "nats-creds"));
  const tlsWanted =
    ep.tlsCa !== undefined || ep.tlsCert !== undefined || ep.servers.some((s) => s.startsWith("tls://"));
  if (tlsWanted) {
    opts.tls = {
      ...(ep.tlsCa !== undefined ? { ca: Buffer.from(readOption(ep.tlsCa, "nats-tls-ca")).toString("utf8") } : {}),
      ...(ep.tlsCert !== undefined
        ? {
            cert: Buffer.from(readOption(ep.tlsCert, "nats-tls-cert")).toString("utf8"),
            key: Buffer.from(readOption(ep.tlsKey!, "nats-tls-key")).toString("utf8"),
          }
        : {}),
    };
  }
  try {
    return await connect(opts);
  } catch (err) {
    const e = err as { code?: string; message?: string };
    throw new BrokerError(
      "BROKER_CONNECT",
      `cannot connect to ${ep.servers.join(",")}: ${causeText(e.code, e.message ?? String(err))}`,
      { servers: [...ep.servers] },
    );
  }
}

/** "CODE: message", or the one of them when they say the same. */
function causeText(code: string | undefined, message: string): string {
  if (code === undefined) return `ERROR: ${message}`;
  return message === code || message === "" ? code : `${code}: ${message}`;
}

/**
 * Closes a connection within about `ms` (default 5 s), whether or not the broker is there: it is
 * drained (subscriptions ended, publishes flushed) when the broker answers in time, and closed
 * outright otherwise, so that a process whose broker went away still stops. Never throws.
 * @example
 *   await closeBroker(nc); // nc.isClosed() === true
 */
export async function closeBroker(nc: NatsConnection | null | undefined, ms = 5000): Promise<void> {
  if (nc === undefined || nc === null || nc.isClosed()) return;
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  const drained = (nc.isDraining() ? nc.closed() : nc.drain()).then(
    () => undefined,
    () => undefined,
  );
  await Promise.race([drained, waited]);
  clearTimeout(timer);
  // the close is bounded too, by a timer that does not keep the process alive
  if (!nc.isClosed())
    await Promise.race([nc.close().catch(() => undefined), new Promise((r) => setTimeout(r, ms).unref())]);
}

/**
 * Logs the connection's losses and recoveries (`disconnected from nats://…; reconnecting`,
 * `reconnected to nats://…`) until it closes, and keeps `state.connected` current.
 * @example
 *   const state = watchBroker(nc, (line) => console.error(`broker: ${line}`));
 */
export function watchBroker(nc: NatsConnection, log: ((line: string) => void) | undefined): { connected: boolean } {
  const state = { connected: true };
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect") {
        state.connected = false;
        log?.(`disconnected from ${String(s.data)}; reconnecting`);
      } else if (s.type === "reconnect") {
        state.connected = true;
        log?.(`reconnected to ${String(s.data)}`);
      }
    }
  })().catch(() => undefined);
  return state;
}
