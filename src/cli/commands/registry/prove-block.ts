/**
 * `ssgkr registry prove-block --db D --updates U.ndjson [--count K] [--profile v2|v3] --out DIR`
 * (docs/registry.md "Block proofs"): the next K updates of a name-keyed registry committed as one
 * batch with one block proof of the K Update operations. DIR (new or empty) receives block.bin
 * (inner-proof-v2 aggregate), requests.json (the K Update requests, in order) and block.json
 * (roots, K, the updates); with --profile v3 only block.bin (inner-proof-v3 block) and block.json.
 *
 * Crash safety (src/registry/block-dir.ts): the pending block is recorded in the registry before
 * any file is written; the batch is applied, proved, verified and its files written into a
 * hidden sibling `.DIR.block-<pid>` inside the registry's write transaction, which commits the
 * batch and marks the record committed together; the sibling is then renamed to DIR and the
 * record removed. A failure removes the sibling and the record; after a kill, the next command
 * that opens the registry settles the record by the registry's head.
 */
import type { Command } from "commander";
import { existsSync, readdirSync, statSync } from "node:fs";
import { EXIT_OK } from "../../exit.js";
import { CliError } from "../../errors.js";
import { readFileOrExit } from "../../io.js";
import { RegistryError } from "../../../registry/errors.js";
import { proveBlockToDir } from "../../../registry/block-dir.js";
import { MAX_BLOCK_UPDATES, parseBlockUpdates } from "../../../registry/name-block.js";
import { NAME_MAPPING_ID } from "../../../registry/name-key.js";
import { NameStore } from "../../../registry/store/name-store.js";
import { registryMapping } from "../../../registry/store/open-any.js";
import { formatRoot } from "../../../registry/root.js";
import { digestText } from "./output.js";

/** Largest updates file read (NDJSON). */
const MAX_UPDATES_BYTES = 64 << 20;

function outDirUsable(out: string): void {
  if (!existsSync(out)) return;
  if (!statSync(out).isDirectory()) throw new CliError("OUT_EXISTS", `--out ${out} exists and is not a directory`, undefined, { option: "--out", path: out });
  if (readdirSync(out).length > 0) throw new CliError("OUT_EXISTS", `--out ${out} is not empty; give a new or empty directory`, undefined, { option: "--out", path: out });
}

function countOption(text: string | undefined): number {
  if (text === undefined) return MAX_BLOCK_UPDATES;
  if (!/^[0-9]+$/.test(text) || Number(text) < 1 || Number(text) > MAX_BLOCK_UPDATES) throw new CliError("BAD_OPTION", `--count must be an integer in [1, ${MAX_BLOCK_UPDATES}], got ${JSON.stringify(text)}`, undefined, { option: "--count" });
  return Number(text);
}

/** Registers `registry prove-block`. */
export function registerProveBlock(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("prove-block")
    .description("apply the next K updates (NDJSON, one a line) as one committed batch and write its block proof (profile v2 aggregate) into DIR")
    .requiredOption("--db <dir>", "registry database directory (name-keyed)")
    .requiredOption("--updates <file>", "updates, one JSON object a line: {\"op\":\"insert|replace|delete|restore\",\"name\":…,\"value\"|\"null\"|\"fields\":…}")
    .option("--count <k>", `apply the first K updates of the file (default all, at most ${MAX_BLOCK_UPDATES})`)
    .requiredOption("--out <dir>", "new or empty directory for block.bin, requests.json and block.json (v3: block.bin and block.json)")
    .option("--profile <profile>", "v2 (default: the auditor also needs requests.json, every path) or v3 (checked from the roots and block.json alone)")
    .action(async (opts: { db: string; updates: string; count?: string; out: string; profile?: string }) => {
      const count = countOption(opts.count);
      const profile = opts.profile ?? "v2";
      if (profile !== "v2" && profile !== "v3") throw new CliError("BAD_OPTION", `--profile must be v2 or v3, got ${JSON.stringify(opts.profile)}`, undefined, { option: "--profile" });
      outDirUsable(opts.out);
      const text = readFileOrExit(opts.updates, "--updates", MAX_UPDATES_BYTES, "an updates file").toString("utf8");
      let updates;
      try {
        updates = parseBlockUpdates(text, count);
      } catch (e) {
        if (e instanceof RegistryError) throw new RegistryError(e.code, `--updates ${opts.updates}: ${e.message}`, e.details as Record<string, unknown>);
        throw e;
      }
      const mapping = registryMapping(opts.db);
      if (mapping !== undefined && mapping !== NAME_MAPPING_ID) throw new RegistryError("WRONG_MAPPING", `registry at ${opts.db} has mapping ${mapping}; block proofs are made for name-keyed registries (${NAME_MAPPING_ID})`, { mapping });
      const store = NameStore.open(opts.db);
      let written;
      try {
        written = proveBlockToDir(store, updates, opts.out, { profile });
      } finally {
        await store.close();
      }
      const { applied: a, bytes, proveMs } = written;
      process.stdout.write(
        `block profile=${profile} batch=${a.entry.batch} operations=${a.updates.length} bytes=${bytes} prove_ms=${proveMs.toFixed(0)} from_root=${digestText(a.fromRoot)} to_root=${digestText(a.toRoot)}\n` +
          `check: ssgkr registry verify-block --from-root ${formatRoot(a.fromRoot)} --to-root ${formatRoot(a.toRoot)} --dir ${opts.out}\n`,
      );
      setExit(EXIT_OK);
    });
}
