/**
 * The implementation of `ssgkr load`: the definitions (options, help) are in load.ts, which
 * imports this file only when the command runs.
 */
import type { Command } from "commander";
import { parseStrictArgs } from "../../serve/load/argv.js";
import { LoadError } from "../../serve/load/errors.js";
import { runLoad } from "../../serve/load/load.js";
import { LOAD_FLAG_NAMES, LOAD_OPTION_NAMES, parseLoadOptions } from "../../serve/load/options.js";
import { brokerEndpoint } from "../../serve/nats/connect.js";
import { natsTransport } from "../../serve/nats/frontend.js";
import { EXIT_OK, EXIT_VERDICT } from "../exit.js";
import { CliError } from "../errors.js";

/** The action of `ssgkr load`, with what commander parsed (the command's definition is in load.ts). */
export async function runLoadCommand(setExit: (code: number) => void, _opts: unknown, command: Command): Promise<void> {
  const tokens = command.args;
  const options = parseLoadOptions(parseStrictArgs(tokens, LOAD_OPTION_NAMES, process.env, LOAD_FLAG_NAMES));
  let result;
  try {
    const log = (line: string) => process.stderr.write(`load: ${line}\n`);
    const transport = options.broker !== null ? natsTransport(options, brokerEndpoint(options.broker), log) : undefined;
    result = await runLoad(options, { log, ...(transport ? { transport } : {}) });
  } catch (err) {
    if (err instanceof LoadError && err.code === "CONTROLS") throw new CliError(err.code, err.message, EXIT_VERDICT);
    throw err;
  }
  const s = result.summary;
  const c = s.counts;
  const l = s.latency_ms;
  process.stdout.write(
    `${s.status} offered=${c.offered} submitted=${c.submitted} accepted=${c.accepted} accepted_late=${c.accepted_late} rejected=${c.rejected} ` +
      `transport_errors=${c.transport_errors} generator_failures=${c.generator_failures} unresolved=${c.unresolved_at_drain} deadline_events=${c.deadline_events} ` +
      `unknown=${c.unknown_responses} duplicate=${c.duplicate_responses} p50_ms=${l.p50_ms ?? "-"} p99_ms=${l.p99_ms ?? "-"} out=${options.out}\n`,
  );
  if (s.guard.tripped) process.stderr.write(`load: semantic guard: ${s.guard.reason}\n`);
  setExit(s.status === "LOAD_OBSERVATIONS_COMPLETE" ? EXIT_OK : EXIT_VERDICT);
}
