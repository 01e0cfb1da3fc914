/**
 * `ssgkr registry prove-block` and `ssgkr registry verify-block` (docs/registry.md "Block
 * proofs"): the next K updates of a name-keyed registry committed as one batch with one profile
 * v2 aggregate proof of the K Update operations, and the auditor's check of it.
 *
 *   prove-block  --db D --updates U.ndjson [--count K] [--profile v2|v3] [--zk] --out DIR
 *                DIR (new or empty) receives block.bin (inner-proof-v2 aggregate), requests.json
 *                (the K Update requests, in order) and block.json (roots, K, the updates); with
 *                --profile v3 only block.bin (inner-proof-v3 block) and block.json; --zk (profile
 *                v3 implied) the same files of a zero-knowledge block (inner-proof-v3zk).
 *                A v3 block of more updates than one proof holds at the registry's depth
 *                (`maxBlockUpdates`: 2,048 at depth 48; v3-zk 1,024) is proved in parts, on
 *                --workers threads at once (default one per core), into DIR/part-0 … part-(n−1).
 *   verify-block --from-root A --to-root B --dir DIR
 *                reads the profile from the proof; prints ACCEPT … (exit 0) or REJECT CODE:
 *                reason (exit 1); unusable input exits 2.
 *
 * Crash safety (src/registry/block-dir.ts): the pending block is recorded in the registry before
 * any file is written; the batch is applied, proved, verified and its files written into a
 * hidden sibling `.DIR.block-<pid>` inside the registry's write transaction, which commits the
 * batch and marks the record committed together; the sibling is then renamed to DIR and the
 * record removed. A failure removes the sibling and the record; after a kill, the next command
 * that opens the registry settles the record by the registry's head.
 */
import type { Command } from "commander";
import { MAX_BLOCK_UPDATES } from "../../registry/block-limits.js";

export function registerRegistryBlock(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("prove-block")
    .description(
      "apply the next K updates (NDJSON, one a line) as one committed batch and write its block proof (profile v2 aggregate; --profile v3: checked from the roots and block.json alone) into DIR",
    )
    .requiredOption("--db <dir>", "registry database directory (name-keyed)")
    .requiredOption(
      "--updates <file>",
      'updates, one JSON object a line: {"op":"insert|replace|delete|restore","name":…,"value"|"null"|"fields":…}',
    )
    .option("--count <k>", `apply the first K updates of the file (default all, at most ${MAX_BLOCK_UPDATES})`)
    .requiredOption(
      "--out <dir>",
      "new or empty directory for block.bin, requests.json and block.json (v3: block.bin and block.json)",
    )
    .option(
      "--profile <profile>",
      "v2 (default: the auditor also needs requests.json, every path) or v3 (checked from the roots and block.json alone)",
    )
    .option(
      "--workers <n>",
      "worker threads proving the parts of a v3 block of more updates than one proof holds (default: one per core; 1: on the main thread)",
    )
    .option(
      "--zk",
      "a zero-knowledge block (profile v3-zk, docs/profile-v3.md §11): checked as a v3 block, and its bytes reveal nothing about the paths and old values beyond the roots and block.json; implies --profile v3",
    )
    .action(async (opts) => (await import("./registry-block-run.js")).runProveBlockCommand(setExit, opts));

  registry
    .command("prove-blocks")
    .description(
      "prove the block of every committed batch that has none yet (imports in parts), on --workers threads, and exit when every batch is settled (what `registry http` does in the background)",
    )
    .requiredOption("--db <dir>", "registry database directory (name-keyed)")
    .option("--workers <n>", "proving worker threads (default: one per core), all of them proving blocks")
    .action(async (opts) => (await import("./registry-blocks-run.js")).runProveBlocksCommand(setExit, opts));

  registry
    .command("verify-block")
    .description(
      "check a block proof: the registry went from root A to root B by exactly the updates of DIR/block.json, in order; prints ACCEPT (exit 0) or REJECT CODE: reason (exit 1)",
    )
    .requiredOption(
      "--from-root <digest>",
      "the root you trust before the block: 64 hex characters, or its 8 elements as [a, b, …] or a,b,…",
    )
    .requiredOption("--to-root <digest>", "the root after the block you are told of")
    .requiredOption(
      "--dir <dir>",
      "the block directory (block.bin, block.json; requests.json for a v2 block; a block in parts: part-0 … part-(n−1), each checked, chained from A to B)",
    )
    .action(async (opts) => (await import("./registry-block-run.js")).runVerifyBlockCommand(setExit, opts));
}
