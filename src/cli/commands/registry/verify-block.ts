/**
 * `ssgkr registry verify-block --from-root A --to-root B --dir DIR` (docs/registry.md "Block
 * proofs"): the auditor's check that the registry went from root A to root B by exactly the
 * updates of DIR/block.json, in order. Reads the profile from the proof; prints ACCEPT … (exit 0)
 * or REJECT CODE: reason (exit 1); unusable input exits 2.
 */
import type { Command } from "commander";
import { join } from "node:path";
import { CliExit, EXIT_OK, EXIT_VERDICT } from "../../exit.js";
import { readFileOrExit } from "../../io.js";
import { parseRoot } from "../../../registry/root.js";
import { verifyRegistryBlock } from "../../../registry/verify-block.js";
import { digestText } from "./output.js";

const MAX_REQUESTS_BYTES = 256 << 20;
const MAX_BLOCK_JSON_BYTES = 64 << 20;
const MAX_BLOCK_PROOF_BYTES = 64 << 20;

/** Registers `registry verify-block`. */
export function registerVerifyBlock(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("verify-block")
    .description("check a block proof: the registry went from root A to root B by exactly the updates of DIR/block.json, in order; prints ACCEPT (exit 0) or REJECT CODE: reason (exit 1)")
    .requiredOption("--from-root <digest>", "the root you trust before the block: 64 hex characters, or its 8 elements as [a, b, …] or a,b,…")
    .requiredOption("--to-root <digest>", "the root after the block you are told of")
    .requiredOption("--dir <dir>", "the block directory (block.bin, block.json; requests.json for a v2 block)")
    .action((opts: { fromRoot: string; toRoot: string; dir: string }) => {
      const fromRoot = parseRoot(opts.fromRoot, "--from-root");
      const toRoot = parseRoot(opts.toRoot, "--to-root");
      const file = (name: string, max: number, what: string) => readFileOrExit(join(opts.dir, name), "--dir", max, what);
      const blockJson = file("block.json", MAX_BLOCK_JSON_BYTES, "a block description").toString("utf8");
      const proof = new Uint8Array(file("block.bin", MAX_BLOCK_PROOF_BYTES, "a block proof"));
      const v3 = proof.length >= 10 && (proof[8]! | (proof[9]! << 8)) === 3;
      const requestsJson = v3 ? undefined : file("requests.json", MAX_REQUESTS_BYTES, "a requests file").toString("utf8");
      const verdict = verifyRegistryBlock({ fromRoot, toRoot }, { blockJson, proof, ...(requestsJson !== undefined ? { requestsJson } : {}) });
      if (!verdict.ok) throw new CliExit(EXIT_VERDICT, `REJECT ${verdict.code}: ${verdict.reason}`, "stdout");
      const k = (JSON.parse(blockJson) as { updates: unknown[] }).updates.length;
      process.stdout.write(`ACCEPT block profile=${v3 ? "v3" : "v2"} operations=${k} from_root=${digestText(fromRoot)} to_root=${digestText(toRoot)}\n`);
      setExit(EXIT_OK);
    });
}
