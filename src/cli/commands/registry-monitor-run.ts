/**
 * The implementation of `ssgkr registry monitor` (the definitions are in registry-monitor.ts,
 * which imports this file only when the command runs). One check: fetch the registry's signed
 * checkpoint, verify its signature with the trusted key, compare it with the last accepted one
 * (`monitorStep`), check the chain of block proofs between them (`verifyConsistency`) when it is
 * newer, and save it as the new state (written to a temporary file and renamed, so a kill never
 * leaves half a state).
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, basename } from "node:path";
import { verifyCheckpoint, type CheckpointBody } from "../../registry/checkpoint/checkpoint.js";
import { monitorStep } from "../../registry/consistency/monitor-step.js";
import { verifyConsistency } from "../../registry/consistency/verify-consistency.js";
import { formatRoot } from "../../registry/root.js";
import { CliError } from "../errors.js";
import { CliExit, EXIT_OK, EXIT_VERDICT } from "../exit.js";
import { parseIntOption } from "../io.js";
import { fetchChain, fetchCheckpoint, registryBase } from "../registry-client.js";

interface Opts {
  url: string;
  key: string;
  state: string;
  once?: boolean;
  interval: string;
  wait: string;
}

/** The state file: the last accepted signed checkpoint. */
const STATE_FORMAT = "ssgkr-monitor-state-1";
const STATE_BYTES = 64 * 1024;

/** The saved checkpoint note, or undefined when there is no state yet. @throws CliError `CANNOT_READ` for a state file that is not one. */
function readState(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  let s: { format?: unknown; checkpoint?: unknown };
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new CliError("CANNOT_READ", `cannot read --state ${path}: ${(e as Error).message}`);
  }
  if (text.length > STATE_BYTES)
    throw new CliError(
      "CANNOT_READ",
      `cannot read --state ${path}: ${text.length} bytes, more than a monitor state holds`,
    );
  try {
    s = JSON.parse(text) as typeof s;
  } catch (e) {
    throw new CliError("CANNOT_READ", `cannot read --state ${path}: not JSON (${(e as Error).message})`);
  }
  if (s === null || typeof s !== "object" || s.format !== STATE_FORMAT || typeof s.checkpoint !== "string")
    throw new CliError("CANNOT_READ", `cannot read --state ${path}: not a monitor state (${STATE_FORMAT})`);
  return s.checkpoint;
}

/** Saves the accepted checkpoint: a temporary sibling, then a rename. @throws CliError `CANNOT_WRITE`. */
function writeState(path: string, url: string, note: string): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, JSON.stringify({ format: STATE_FORMAT, url, checkpoint: note }, null, 2) + "\n", {
      mode: 0o600,
    });
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new CliError("CANNOT_WRITE", `cannot write --state ${path}: ${(e as Error).message}`);
  }
}

const say = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);

/** A proven inconsistency: the reason and both signed notes on stdout, exit 1. */
function inconsistent(code: string, reason: string, accepted: string, current: string): never {
  throw new CliExit(
    EXIT_VERDICT,
    `REJECT ${code}: ${reason}\n--- the checkpoint accepted before:\n${accepted.trimEnd()}\n--- the checkpoint the registry signs now:\n${current.trimEnd()}`,
    "stdout",
  );
}

function verified(note: string, key: string, what: string): CheckpointBody {
  const c = verifyCheckpoint(note, key, "--key");
  if (!c.ok) throw new CliExit(EXIT_VERDICT, `REJECT ${c.code}: ${what}: ${c.reason}`, "stdout");
  return c;
}

/** One check: the current checkpoint against the saved one; saves it when it is accepted and new. */
async function checkOnce(base: string, opts: Opts, waitMs: number): Promise<void> {
  const note = await fetchCheckpoint(base);
  const current = verified(note, opts.key, `the checkpoint of ${base}`);
  const saved = readState(opts.state);
  if (saved === undefined) {
    writeState(opts.state, base, note);
    say(
      `ACCEPT first checkpoint of ${current.origin}: size ${current.size}, root ${formatRoot(current.root)} (signature checked; saved to ${opts.state})`,
    );
    return;
  }
  const accepted = verified(saved, opts.key, `the checkpoint saved in --state ${opts.state}`);
  const step = monitorStep(accepted, current);
  if (step.step === "reject") inconsistent(step.code, step.reason, saved, note);
  if (step.step === "same") {
    say(`ACCEPT no new checkpoint: size ${current.size}, root ${formatRoot(current.root)}`);
    return;
  }
  const links = await fetchChain(base, accepted.size, current.size, waitMs);
  const v = verifyConsistency(
    { from: { size: accepted.size, root: accepted.root }, to: { size: current.size, root: current.root } },
    links,
  );
  if (!v.ok) inconsistent(v.code, v.reason, saved, note);
  writeState(opts.state, base, note);
  say(
    `ACCEPT size ${accepted.size} → ${current.size} (root ${formatRoot(current.root)}): ${v.blocks} block${v.blocks === 1 ? "" : "s"}${v.unchanged > 0 ? `, ${v.unchanged} unchanged` : ""}, each checked`,
  );
}

/**
 * The action of `ssgkr registry monitor`, with what commander parsed.
 * @throws CliExit exit 1 with `REJECT CODE: reason` and both signed notes on stdout (a fork, a
 *   rollback, a chain that does not verify, a checkpoint whose signature does not verify).
 * @throws CliError `BAD_OPTION`, `CANNOT_READ` / `CANNOT_WRITE` (the state), and with `--once`
 *   `NETWORK_ERROR`, `PROOF_PENDING` or the server's code.
 */
export async function runMonitorCommand(setExit: (code: number) => void, opts: Opts): Promise<void> {
  const base = registryBase(opts.url);
  const intervalMs = parseIntOption(opts.interval, "--interval", 1, 86_400) * 1000;
  const waitMs = parseIntOption(opts.wait, "--wait", 0, 86_400) * 1000;
  if (opts.once) {
    await checkOnce(base, opts, waitMs);
    setExit(EXIT_OK);
    return;
  }
  for (;;) {
    try {
      await checkOnce(base, opts, waitMs);
    } catch (e) {
      // a verdict or an unusable state ends the monitor; a fault of the network or the server is retried
      if (e instanceof CliError && (e.code === "NETWORK_ERROR" || e.code === "PROOF_PENDING"))
        process.stderr.write(`monitor: ${e.message}; retrying in ${intervalMs / 1000} s\n`);
      else throw e;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
