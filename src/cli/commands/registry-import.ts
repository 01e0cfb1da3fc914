/**
 * `ssgkr registry import --db DIR (--source npm-repos [--limit N|all] | --file F) …`: import records into a registry database (created if DIR is absent or empty), in committed batches.
 */
import { Option, type Command } from "commander";
import { NPM_REPOS_VERSION } from "../../registry/import/dataset.js";
import { DEFAULT_NAME_DEPTH, NAME_MAPPING_ID, SLOT_MAPPING_ID } from "../../registry/name-key.js";

/** Registers `registry import`. */
export function registerRegistryImport(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("import")
    .description("import records into a registry database (created if DIR is absent or empty)")
    .requiredOption("--db <dir>", "registry database directory")
    .option(
      "--source <name>",
      `built-in dataset: npm-repos (all-the-package-repos@${NPM_REPOS_VERSION}, package → repository URL)`,
    )
    .option("--limit <n>", 'import only the first N records of the source, or "all" (npm-repos default: 100000)')
    .option("--file <path>", "records from a file: .ndjson/.jsonl, .csv (name,value) or .json object, optionally .gz")
    .addOption(
      new Option(
        "--on-error <mode>",
        "malformed records: fail (reject the import, write nothing) or skip (report and leave out)",
      )
        .choices(["fail", "skip"])
        .default("fail"),
    )
    .option(
      "--batch-size <n>",
      "records per committed batch, one transaction and one history entry each (default 1000000 name-keyed, 100000 slot-v1)",
    )
    .option("--threads <n>", "hash worker threads (0 = hash on the main thread)")
    .addOption(
      new Option(
        "--mapping <m>",
        `mapping of a new registry: ${NAME_MAPPING_ID} (name-keyed, default) or slot-v1 (slot per record, ${SLOT_MAPPING_ID})`,
      ).choices([NAME_MAPPING_ID, "slot-v1", SLOT_MAPPING_ID]),
    )
    .option("--depth <d>", `tree depth of a new registry (1..48; default ${DEFAULT_NAME_DEPTH} name-keyed, 24 slot-v1)`)
    .option("--leaf-max-fields <b>", "leaf bound B of a new registry (20..63, default 31)")
    .option("--keep-commits <n>", "name-keyed: earlier roots stay provable for the last N batches (default 1000)")
    .option(
      "--keep-days <d>",
      "name-keyed: earlier roots stay provable for D days after they were replaced (default 30)",
    )
    .option("--no-progress", "no progress bar")
    .option("--json", "print the report as JSON")
    .action(async (opts) => (await import("./registry-import-run.js")).runImportCommand(setExit, opts));
}
