import { Option, type Command } from "commander";
import { NPM_REPOS_PACKAGE, NPM_REPOS_VERSION } from "../../registry/import/dataset.js";

/**
 * `ssgkr demo [--dir DIR | --keep] [--source npm-repos] [--limit N|all] [--depth D] [--json]`:
 * imports the npm package → repository map into a name-keyed registry, prepares the three
 * circuits once, proves statements about package names (a present package, a never-registered
 * name, delete, the deleted name's absence, restore, replace, insert) and checks each with the
 * counterparty call, plus negative controls that must be rejected (src/demo/registry-demo.ts). Prints
 * the verdicts, the roots and, per step, the `ssgkr registry verify` line that repeats the check.
 * Without --dir the work happens in a temporary directory that is removed at the end unless
 * --keep is given.
 *
 * Exit codes: 0 every verdict is the expected one; 1 some verdict differs; 2 unusable input.
 */
export function registerDemo(program: Command, setExit: (code: number) => void): void {
  program
    .command("demo")
    .description(
      `prove and check statements about real package names on the npm package → repository map (${NPM_REPOS_PACKAGE}@${NPM_REPOS_VERSION})`,
    )
    .option(
      "--dir <dir>",
      "working directory, new or empty, kept afterwards (default: a temporary directory, removed at the end)",
    )
    .option("--keep", "keep the temporary directory (its request, proof and statement files) after the demo")
    .option("--source <name>", "dataset: npm-repos", "npm-repos")
    .option(
      "--limit <n>",
      'records to import: N (up to 100000 offline) or "all" (full dataset, fetched with scripts/npm-repos-fetch.mjs)',
      "100000",
    )
    .option(
      "--depth <d>",
      "tree depth of the demo registry (1..48; keys are the first d bits of Keccak-256 of the names)",
      "48",
    )
    .option("--threads <n>", "hash worker threads of the import")
    .option("--json", "print the report as JSON")
    .addOption(
      new Option(
        "--fault <step>",
        "flip one bit of this step's proof before it is verified (checks that a wrong verdict fails)",
      ).hideHelp(),
    )
    .action(async (opts) => (await import("./demo-run.js")).runDemoCommand(setExit, opts));
}
