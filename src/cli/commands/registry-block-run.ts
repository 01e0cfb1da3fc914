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
import { proveBlockToDir } from "../../registry/block-dir.js";
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

function countOption(text: string | undefined): number {
  if (text === undefined) return MAX_BLOCK_UPDATES;
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
  opts: { db: string; updates: string; count?: string; out: string; profile?: string; zk?: boolean },
): Promise<void> {
  const count = countOption(opts.count);
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
    updates = parseBlockUpdates(text, count);
  } catch (e) {
    if (e instanceof RegistryError)
      throw new RegistryError(e.code, `--updates ${opts.updates}: ${e.message}`, e.details as Record<string, unknown>);
    throw e;
  }
  const mapping = registryMapping(opts.db);
  if (mapping !== undefined && mapping !== NAME_MAPPING_ID)
    throw new RegistryError(
      "WRONG_MAPPING",
      `registry at ${opts.db} has mapping ${mapping}; block proofs are made for name-keyed registries (${NAME_MAPPING_ID})`,
      { mapping },
    );
  const store = NameStore.open(opts.db);
  let written;
  try {
    written = proveBlockToDir(store, updates, opts.out, { profile, zk });
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

/** The action of `ssgkr registry verify-block`, with what commander parsed (the command's definition is in registry-block.ts). */
export async function runVerifyBlockCommand(
  setExit: (code: number) => void,
  opts: { fromRoot: string; toRoot: string; dir: string },
): Promise<void> {
  const fromRoot = parseRoot(opts.fromRoot, "--from-root");
  const toRoot = parseRoot(opts.toRoot, "--to-root");
  const file = (name: string, max: number, what: string) => readFileOrExit(join(opts.dir, name), "--dir", max, what);
  const blockJson = file("block.json", MAX_BLOCK_JSON_BYTES, "a block description").toString("utf8");
  const proof = new Uint8Array(file("block.bin", MAX_BLOCK_PROOF_BYTES, "a block proof"));
  const v3 = hasV3Encoding(proof);
  const requestsJson = v3 ? undefined : file("requests.json", MAX_REQUESTS_BYTES, "a requests file").toString("utf8");
  const verdict = verifyRegistryBlock(
    { fromRoot, toRoot },
    { blockJson, proof, ...(requestsJson !== undefined ? { requestsJson } : {}) },
  );
  if (!verdict.ok) throw new CliExit(EXIT_VERDICT, `REJECT ${verdict.code}: ${verdict.reason}`, "stdout");
  const k = (JSON.parse(blockJson) as { updates: unknown[] }).updates.length;
  process.stdout.write(
    `ACCEPT block profile=${hasV3ZkEncoding(proof) ? "v3-zk" : v3 ? "v3" : "v2"} operations=${k} from_root=${rootCompact(fromRoot)} to_root=${rootCompact(toRoot)}\n`,
  );
  setExit(EXIT_OK);
}
