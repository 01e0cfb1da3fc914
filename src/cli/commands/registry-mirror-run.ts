/**
 * The implementation of `ssgkr registry mirror` (the definitions are in registry-mirror.ts, which
 * imports this file only when the command runs): opens or creates the mirror (src/mirror), serves
 * the read API from it with `--listen`, and runs rounds — once with `--once`, else every
 * `--interval` seconds until SIGINT or SIGTERM.
 */
import { createRegistryApp, LISTEN_BACKLOG } from "../../http/server.js";
import { Mirror } from "../../mirror/mirror.js";
import { haltsMirror } from "../../mirror/errors.js";
import { parseListen } from "../../serve/server/options.js";
import { CliError } from "../errors.js";
import { watchStop } from "./stop-watch.js";
import { EXIT_OK } from "../exit.js";
import { checkPrimaryUrl, parseIntOption } from "../io.js";
import { SsgkrError } from "../../errors.js";

interface Opts {
  from: string;
  key: string;
  db: string;
  listen?: string;
  once?: boolean;
  interval: string;
  wait: string;
  timeout: string;
  evidence?: string;
}

const say = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);

/**
 * The action of `ssgkr registry mirror`, with what commander parsed.
 * @throws CliError `BAD_OPTION`; RegistryError `BAD_VERIFIER_KEY`; MirrorError of the round that
 *   failed (with `--once`) or halted the mirror (without `--listen`).
 */
export async function runMirrorCommand(setExit: (code: number) => void, opts: Opts): Promise<void> {
  const intervalMs = parseIntOption(opts.interval, "--interval", 1, 86_400) * 1000;
  const waitMs = parseIntOption(opts.wait, "--wait", 0, 86_400) * 1000;
  const timeoutMs = parseIntOption(opts.timeout, "--timeout", 1, 3_600) * 1000;
  checkPrimaryUrl(opts.from, "--from");
  let listen: { host: string; port: number } | undefined;
  if (opts.listen !== undefined) {
    try {
      listen = parseListen(opts.listen);
    } catch (e) {
      throw new CliError("BAD_OPTION", (e as Error).message);
    }
  }
  const mirror = await Mirror.open({
    from: opts.from,
    key: opts.key,
    db: opts.db,
    timeoutMs,
    pendingWaitMs: waitMs,
    ...(opts.evidence !== undefined ? { evidenceDir: opts.evidence } : {}),
  });
  let app: Awaited<ReturnType<typeof createRegistryApp>>["app"] | undefined;
  if (listen !== undefined) {
    app = (
      await createRegistryApp({
        store: mirror.store,
        checkpoints: (size) => mirror.checkpointText(size),
        mirrorStatus: () => mirror.status(),
      })
    ).app;
    let address: string;
    try {
      address = await app.listen({ ...listen, backlog: LISTEN_BACKLOG });
    } catch (e) {
      mirror.close();
      throw new CliError("BAD_OPTION", `--listen ${opts.listen}: ${(e as Error).message}`);
    }
    process.stdout.write(
      `listening on ${address} (read-only mirror of ${mirror.base}, origin ${mirror.key.name}; status at ${address}/v1/status)\n`,
    );
  }
  let stopped = false;
  let first = true;
  let wake: (() => void) | undefined;
  const stop = () => {
    stopped = true;
    mirror.stop();
    wake?.();
  };
  const dispose = watchStop((why) => {
    say(`stopping (${why})`);
    stop();
  });
  const finish = async () => {
    await app?.close();
    mirror.close();
  };
  try {
    for (;;) {
      try {
        const r = await mirror.sync();
        // A round that changed nothing is not logged (but for the first and with --once): GET /v1/status has the position.
        if (r.batches > 0 || first || opts.once)
          say(
            `mirror at size ${r.size} (primary's head ${r.target}): ${r.batches} batch${r.batches === 1 ? "" : "es"}, ${r.updates} update${r.updates === 1 ? "" : "s"} verified and applied`,
          );
        first = false;
        if (opts.once) break;
      } catch (e) {
        if (opts.once) throw e;
        const halting = haltsMirror(e);
        if (halting && app === undefined) throw e;
        if (!(e instanceof SsgkrError)) throw e;
        process.stderr.write(
          halting
            ? `mirror halted: ${e.code}: ${e.message}; serving the last verified state (size ${mirror.store.head().batch})\n`
            : `mirror: ${e.code}: ${e.message}; retrying in ${intervalMs / 1000} s\n`,
        );
        if (halting) {
          await new Promise<void>((r) => {
            wake = r;
            if (stopped) r();
          });
          break;
        }
      }
      if (stopped) break;
      // the wait between rounds keeps the process alive (a mirror without --listen follows until stopped)
      await new Promise<void>((r) => {
        const timer = setTimeout(r, intervalMs);
        wake = () => {
          clearTimeout(timer);
          r();
        };
      });
      if (stopped) break;
    }
  } finally {
    dispose();
    await finish();
  }
  if (stopped) say("stopped");
  setExit(EXIT_OK);
}
