/**
 * The implementation of `ssgkr registry verify-consistency` (docs/registry.md "Consistency
 * between checkpoints"): the definitions (options, help) are in registry-verify-consistency.ts,
 * which imports this file only when the command runs. Checks both signed checkpoints with the
 * verifier key, fetches the chain of block proofs between their sizes from `GET /v1/consistency`
 * (every page; a `202 PROOF_PENDING` is waited out by its `Retry-After`, for at most `--wait`
 * seconds in all) and checks it in one call (`verifyConsistency`).
 */
import { verifyCheckpoint } from "../../registry/checkpoint/checkpoint.js";
import { formatRoot } from "../../registry/root.js";
import { verifyConsistency } from "../../registry/consistency/verify-consistency.js";
import { fetchChain, registryBase } from "../registry-client.js";
import { CliError } from "../errors.js";
import { CliExit, EXIT_OK, EXIT_VERDICT } from "../exit.js";
import { parseIntOption, readFileOrExit } from "../io.js";

/** Bytes of a checkpoint file at most. */
const CHECKPOINT_BYTES = 64 * 1024;

interface Opts {
  url: string;
  key: string;
  from: string;
  to: string;
  wait: string;
}

/**
 * The action of `ssgkr registry verify-consistency`, with what commander parsed (the command's
 * definition is in registry-verify-consistency.ts). Prints `ACCEPT …` and sets exit 0.
 * @throws CliExit exit 1 with `REJECT CODE: reason` on stdout: a checkpoint whose signature does
 * not verify, or a chain that does not take one root to the other.
 * @throws CliError `BAD_OPTION` (a `--url` that is not http or https, `--from` newer than `--to`,
 * a bad `--wait`), `CANNOT_READ` / `FILE_TOO_LARGE` (a checkpoint file), `PROOF_PENDING` (blocks
 * still being proved after `--wait` seconds), the server's code when it answered with one
 * (`CHAIN_NOT_PROVABLE`, `SIZE_UNKNOWN`, …), `NETWORK_ERROR` otherwise.
 */
export async function runVerifyConsistencyCommand(setExit: (code: number) => void, opts: Opts): Promise<void> {
  const waitMs = parseIntOption(opts.wait, "--wait", 0, 86_400) * 1000;
  const base = registryBase(opts.url);
  const ends = [
    ["--from", opts.from],
    ["--to", opts.to],
  ] as const;
  const checked = ends.map(([option, path]) => {
    const note = readFileOrExit(path, option, CHECKPOINT_BYTES, "checkpoint").toString("utf8");
    const c = verifyCheckpoint(note, opts.key, "--key");
    if (!c.ok) throw new CliExit(EXIT_VERDICT, `REJECT ${c.code}: ${option} ${path}: ${c.reason}`, "stdout");
    return c;
  });
  const [a, b] = checked as [
    Extract<(typeof checked)[number], { ok: true }>,
    Extract<(typeof checked)[number], { ok: true }>,
  ];
  if (a.size > b.size)
    throw new CliError(
      "BAD_OPTION",
      `--from is the checkpoint of size ${a.size}, after --to's size ${b.size}: give the older one as --from`,
    );
  const links = await fetchChain(base, a.size, b.size, waitMs);
  const v = verifyConsistency({ from: { size: a.size, root: a.root }, to: { size: b.size, root: b.root } }, links);
  if (!v.ok) throw new CliExit(EXIT_VERDICT, `REJECT ${v.code}: ${v.reason}`, "stdout");
  process.stdout.write(
    `ACCEPT ${a.origin}: size ${a.size} (root ${formatRoot(a.root)}) and size ${b.size} (root ${formatRoot(b.root)}) are one history: ${v.blocks} block${v.blocks === 1 ? "" : "s"}${v.unchanged > 0 ? `, ${v.unchanged} unchanged batch${v.unchanged === 1 ? "" : "es"}` : ""}, each checked\n`,
  );
  setExit(EXIT_OK);
}
