/**
 * `ssgkr registry prove <statement> --db DIR (--name N | --slot S) … --out DIR`: proves a membership, non-membership or update (which it also commits) and writes the proof with the files that check it.
 */
import type { Command } from "commander";

/** Registers `registry prove`. */
export function registerRegistryProve(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("prove")
    .description(
      "prove a registry statement; insert/replace/delete/restore also commit the update (writes request.json, proof.bin and statement.json; --profile v3 or --zk: proof.bin and statement.json only)",
    )
    .argument("<statement>", "membership | nonmembership | insert | replace | delete | restore")
    .requiredOption("--db <dir>", "registry database directory")
    .option("--name <name>", "record name")
    .option("--slot <s>", "slot number")
    .option("--value <text>", "new text value (insert, replace, restore)")
    .option("--null", "the null value")
    .option("--fields <list>", "comma-separated field elements")
    .option(
      "--root <digest>",
      "membership/nonmembership of a name-keyed registry: prove at this earlier root of the retention window (default: the head)",
    )
    .option(
      "--profile <p>",
      "name-keyed: v1 (compat-v1, checked with request.json; the default, v3 with --zk) or v3 (checked from statement.json alone: no request.json is written)",
    )
    .option(
      "--zk",
      "name-keyed: a zero-knowledge proof (profile v3-zk, docs/profile-v3.md §11): checked from statement.json alone, and its bytes reveal nothing about the path beyond the statement; implies --profile v3",
    )
    .requiredOption("--out <dir>", "output directory (request.json, proof.bin, statement.json; v3: no request.json)")
    .action(async (statement, opts) =>
      (await import("./registry-prove-run.js")).runProveCommand(setExit, statement, opts),
    );
}
