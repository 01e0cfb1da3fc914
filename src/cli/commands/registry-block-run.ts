/**
 * The implementation of `ssgkr registry prove-block` and `verify-block`: the definitions (options,
 * help) are in registry-block.ts, which imports this file only when the command runs.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { CliExit, EXIT_OK, EXIT_VERDICT } from "../exit.js";
import { CliError } from "../errors.js";
import { readFileOrExit } from "../io.js";
import { RegistryError } from "../../registry/errors.js";
import { partDir, proveBlockToDirInParallel } from "../../registry/block-dir.js";
import { availableParallelism } from "node:os";
import { MAX_BLOCK_UPDATES, parseBlockUpdates } from "../../registry/name-block.js";
import { NAME_MAPPING_ID } from "../../registry/name-key.js";
import { NameStore } from "../../registry/store/name-store.js";
import { registryMapping } from "../../registry/store/open-any.js";
import { formatRoot, parseRoot } from "../../registry/root.js";
import { verifyRegistryBlock } from "../../registry/verify-block.js";
import { hasV3Encoding, hasV3ZkEncoding } from "../../codec/v3/message.js";

const rootCompact = formatRoot;

/** Largest updates file read (NDJSON). */
const MAX_UPDATES_BYTES = 64 << 20;

const MAX_REQUESTS_BYTES = 256 << 20;

const MAX_BLOCK_JSON_BYTES = 64 << 20;

const MAX_BLOCK_PROOF_BYTES = 64 << 20;

function outDirUsable(out: string): void {
  if (!existsSync(out)) return;
  if (!statSync(out).isDirectory())
    throw new CliError("OUT_EXISTS", `--out ${out} exists and is not a directory`, undefined, {
      option: "--out",
      path: out,
    });
  if (readdirSync(out).length > 0)
    throw new CliError("OUT_EXISTS", `--out ${out} is not empty; give a new or empty directory`, undefined, {
      option: "--out",
      path: out,
    });
}

/**
 * Opens the registry at `db` for block proofs (`prove-block`, `prove-blocks`).
 * @throws RegistryError `WRONG_MAPPING` (a slot registry), and what `NameStore.open` throws.
 */
export function openForBlocks(db: string): NameStore {
  const mapping = registryMapping(db);
  if (mapping !== undefined && mapping !== NAME_MAPPING_ID)
    throw new RegistryError(
      "WRONG_MAPPING",
      `registry at ${db} has mapping ${mapping}; block proofs are made for name-keyed registries (${NAME_MAPPING_ID})`,
      { mapping },
    );
  return NameStore.open(db);
}

function workersOption(text: string | undefined): number {
  if (text === undefined) return availableParallelism();
  if (!/^[0-9]+$/.test(text) || Number(text) < 1 || Number(text) > 64)
    throw new CliError(
      "BAD_OPTION",
      `--workers must be an integer in [1, 64], got ${JSON.stringify(text)}`,
      undefined,
      {
        option: "--workers",
      },
    );
  return Number(text);
}

/** --count, or undefined: every update of the file (more than MAX_BLOCK_UPDATES is refused by the parser). */
function countOption(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]+$/.test(text) || Number(text) < 1 || Number(text) > MAX_BLOCK_UPDATES)
    throw new CliError(
      "BAD_OPTION",
      `--count must be an integer in [1, ${MAX_BLOCK_UPDATES}], got ${JSON.stringify(text)}`,
      undefined,
      { option: "--count" },
    );
  return Number(text);
}

/** The action of `ssgkr registry prove-block`, with what commander parsed (the command's definition is in registry-block.ts). */
export async function runProveBlockCommand(
  setExit: (code: number) => void,
  opts: { db: string; updates: string; count?: string; out: string; profile?: string; zk?: boolean; workers?: string },
): Promise<void> {
  const count = countOption(opts.count);
  const workers = workersOption(opts.workers);
  const zk = opts.zk === true;
  const profile = opts.profile ?? (zk ? "v3" : "v2");
  if (profile !== "v2" && profile !== "v3")
    throw new CliError("BAD_OPTION", `--profile must be v2 or v3, got ${JSON.stringify(opts.profile)}`, undefined, {
      option: "--profile",
    });
  if (zk && profile !== "v3")
    throw new CliError(
      "BAD_OPTION",
      `--zk: a zero-knowledge block is a profile v3 block (v3-zk); it cannot be made with --profile ${profile}`,
      undefined,
      { option: "--zk" },
    );
  outDirUsable(opts.out);
  const text = readFileOrExit(opts.updates, "--updates", MAX_UPDATES_BYTES, "an updates file").toString("utf8");
  let updates;
  try {
    updates = parseBlockUpdates(text, count ?? MAX_BLOCK_UPDATES + 1);
  } catch (e) {
    if (e instanceof RegistryError)
      throw new RegistryError(e.code, `--updates ${opts.updates}: ${e.message}`, e.details as Record<string, unknown>);
    throw e;
  }
  const store = openForBlocks(opts.db);
  let written;
  try {
    const t0 = performance.now();
    written = await proveBlockToDirInParallel(store, updates, opts.out, {
      profile,
      zk,
      workers,
      onPart: (part, parts, ms) =>
        process.stderr.write(
          `block: part ${part + 1} of ${parts} proved in ${(ms / 1000).toFixed(1)} s (${((performance.now() - t0) / 1000).toFixed(1)} s so far)\n`,
        ),
    });
  } finally {
    await store.close();
  }
  const { applied: a, bytes, proveMs } = written;
  process.stdout.write(
    `block profile=${zk ? "v3-zk" : profile} batch=${a.entry.batch} operations=${a.updates.length} bytes=${bytes} prove_ms=${proveMs.toFixed(0)} from_root=${rootCompact(a.fromRoot)} to_root=${rootCompact(a.toRoot)}\n` +
      `check: ssgkr registry verify-block --from-root ${formatRoot(a.fromRoot)} --to-root ${formatRoot(a.toRoot)} --dir ${opts.out}\n`,
  );
  setExit(EXIT_OK);
}

/** The parts of a block directory in parts: part-0's block.json names them (2..4,096), and each part-N is there. */
function partsOf(dir: string): number {
  const text = readFileOrExit(join(dir, "part-0", "block.json"), "--dir", MAX_BLOCK_JSON_BYTES, "a block description");
  let parts: unknown;
  try {
    parts = (JSON.parse(text.toString("utf8")) as { parts?: unknown }).parts;
  } catch {
    parts = undefined;
  }
  if (typeof parts !== "number" || !Number.isInteger(parts) || parts < 2 || parts > 4096)
    throw new CliError(
      "BAD_INPUT",
      `--dir ${join(dir, "part-0", "block.json")}: a block in parts names its parts (2..4096) in "parts"`,
      undefined,
      { option: "--dir", path: join(dir, "part-0", "block.json") },
    );
  return parts;
}

/** The root a part (not the last) ends at, from its block.json; the part's number and count must be its place. */
function partEnd(
  described: { to_root?: unknown; part?: unknown; parts?: unknown },
  part: number,
  parts: number,
  dir: string,
): ReturnType<typeof parseRoot> {
  if (described.part !== part || described.parts !== parts)
    throw new CliExit(
      EXIT_VERDICT,
      `REJECT BAD_BLOCK: ${join(dir, "block.json")} names part ${JSON.stringify(described.part)} of ${JSON.stringify(described.parts)}, not part ${part} of ${parts}`,
      "stdout",
    );
  return parseRoot(String(described.to_root), `--dir ${join(dir, "block.json")}: to_root`);
}

/** The action of `ssgkr registry verify-block`, with what commander parsed (the command's definition is in registry-block.ts). */
export async function runVerifyBlockCommand(
  setExit: (code: number) => void,
  opts: { fromRoot: string; toRoot: string; dir: string },
): Promise<void> {
  const fromRoot = parseRoot(opts.fromRoot, "--from-root");
  const toRoot = parseRoot(opts.toRoot, "--to-root");
  const parted = !existsSync(join(opts.dir, "block.json")) && existsSync(join(opts.dir, "part-0", "block.json"));
  const parts = parted ? partsOf(opts.dir) : 1;
  let from = fromRoot;
  let operations = 0;
  let profileName = "v2";
  for (let p = 0; p < parts; p++) {
    const dir = partDir(opts.dir, p, parts);
    const file = (name: string, max: number, what: string) => readFileOrExit(join(dir, name), "--dir", max, what);
    const blockJson = file("block.json", MAX_BLOCK_JSON_BYTES, "a block description").toString("utf8");
    const proof = new Uint8Array(file("block.bin", MAX_BLOCK_PROOF_BYTES, "a block proof"));
    const v3 = hasV3Encoding(proof);
    const requestsJson = v3 ? undefined : file("requests.json", MAX_REQUESTS_BYTES, "a requests file").toString("utf8");
    const described = JSON.parse(blockJson) as {
      updates?: unknown[];
      to_root?: unknown;
      part?: unknown;
      parts?: unknown;
    };
    // a part's end is the next part's start, as its block.json says; the last part ends at --to-root
    const end = parts > 1 ? partEnd(described, p, parts, dir) : undefined;
    const to = p === parts - 1 || end === undefined ? toRoot : end;
    const verdict = verifyRegistryBlock(
      { fromRoot: from, toRoot: to },
      { blockJson, proof, ...(requestsJson !== undefined ? { requestsJson } : {}) },
    );
    if (!verdict.ok)
      throw new CliExit(
        EXIT_VERDICT,
        `REJECT ${verdict.code}: ${parts > 1 ? `part ${p} of ${parts}: ` : ""}${verdict.reason}`,
        "stdout",
      );
    operations += Array.isArray(described.updates) ? described.updates.length : 0;
    profileName = hasV3ZkEncoding(proof) ? "v3-zk" : v3 ? "v3" : "v2";
    from = to;
  }
  process.stdout.write(
    `ACCEPT block profile=${profileName} operations=${operations}${parts > 1 ? ` parts=${parts}` : ""} from_root=${rootCompact(fromRoot)} to_root=${rootCompact(toRoot)}\n`,
  );
  setExit(EXIT_OK);
}
