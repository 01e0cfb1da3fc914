import { Option, type Command } from "commander";
import { NPM_REPOS_VERSION } from "../../registry/import/dataset.js";
import { DEFAULT_NAME_DEPTH, NAME_MAPPING_ID, SLOT_MAPPING_ID } from "../../registry/name-key.js";
import { registerRegistryVerify } from "./registry-verify.js";
import { registerRegistryHttp } from "./http.js";
import { registerRegistryBlock } from "./registry-block.js";
import { registerRegistryCheckpoint } from "./registry-checkpoint.js";
import { registerRegistryVerifyConsistency } from "./registry-verify-consistency.js";
import { registerRegistryMonitor } from "./registry-monitor.js";

/**
 * `ssgkr registry …`: an authenticated registry of (name, value) records in a sparse Merkle tree
 * on disk (docs/registry.md).
 *
 *   import  --db DIR (--source npm-repos [--limit N|all] | --file F) [--on-error fail|skip] …
 *   get     --db DIR (--name N | --slot S) [--json]
 *   root    --db DIR [--json]
 *   history --db DIR [--json]
 *   check   --db DIR [--threads T] [--no-progress] [--json]   full scan: checksums, records, paths
 *   upgrade --db DIR                                          format 1 → 2 (adds row checksums)
 *   insert  --db DIR --name N (--value V | --null | --fields LIST)
 *   replace --db DIR (--name N | --slot S) (--value V | --null | --fields LIST)
 *   delete  --db DIR (--name N | --slot S)
 *   restore --db DIR (--name N | --slot S) [--value V | --null | --fields LIST]
 *   prove   <membership|nonmembership|insert|replace|delete|restore> --db DIR (--name N | --slot S)
 *           [--value V | --null | --fields LIST] [--profile v1|v3] --out DIR   (request.json, proof.bin, statement.json; v3: proof.bin, statement.json)
 *   verify  --name N (--value V | --null | --fields LIST | --absent) --root R --request F --proof F
 *   prove-block  --db DIR --updates U.ndjson [--count K] --out DIR   (block.bin, requests.json, block.json)
 *   verify-block --from-root A --to-root B --dir DIR
 *   keygen  --out KEYFILE [--origin NAME]                       signing key (0600); prints the verifier key
 *   checkpoint --db DIR --signing-key KEYFILE                   the head's signed checkpoint
 *   verify-consistency --url URL --key VERIFIERKEY --from CKPT1 --to CKPT2 [--wait S]   one history between two checkpoints
 *   monitor --url URL --key VERIFIERKEY --state FILE [--once] [--interval S] [--wait S]  follow the signed checkpoints
 *   http    --db DIR [--listen HOST:PORT] [--token-file F] [--no-prove-blocks] …   the HTTP API (docs/http.md)
 *
 * New registries are name-keyed (`--mapping record-leaf-v2`, depth 48: the root commits to
 * names); `--mapping slot-v1` (depth 24) creates a slot registry. Name-keyed registries address
 * records by --name only.
 *
 * Exit codes: 0 ok; 1 a membership/non-membership statement that is false (`FALSE CODE: …`), or
 * damage found by `check` (`error DB_CORRUPT: …`);
 * 2 unusable input (usage, unknown name, slot out of range, wrong record
 * state, value over the leaf bound, malformed import with --on-error fail, corrupt database),
 * with one line `error CODE: message` on stderr.
 */
export function registerRegistry(program: Command, setExit: (code: number) => void): void {
  const registry = program
    .command("registry")
    .description("authenticated registry of (name, value) records: import, look up, update (docs/registry.md)");

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
    .action(async (opts) => (await import("./registry-run.js")).runImportCommand(setExit, opts));

  registry
    .command("get")
    .description("show the record, leaf and path status of a name or slot")
    .requiredOption("--db <dir>", "registry database directory")
    .option("--name <name>", "record name")
    .option("--slot <s>", "slot number")
    .option("--json", "print JSON")
    .action(async (opts) => (await import("./registry-run.js")).runGetCommand(setExit, opts));

  registry
    .command("root")
    .description("show the current root and counts")
    .requiredOption("--db <dir>", "registry database directory")
    .option("--json", "print JSON")
    .option("--hex", "print the root alone, as its 64 hex characters (e.g. into the file a verifier reads it from)")
    .action(async (opts) => (await import("./registry-run.js")).runRootCommand(setExit, opts));

  registry
    .command("history")
    .description("list the committed batches with their roots")
    .requiredOption("--db <dir>", "registry database directory")
    .option("--json", "print one JSON object per line")
    .action(async (opts) => (await import("./registry-run.js")).runHistoryCommand(setExit, opts));

  registry
    .command("check")
    .description(
      "scan the whole registry: every row's checksum, records against the name index and head, every path against the head root (exit 1 on damage)",
    )
    .requiredOption("--db <dir>", "registry database directory")
    .option("--threads <n>", "leaf-hashing worker threads (0 = the main thread)")
    .option("--no-progress", "no progress bar")
    .option("--json", "print the report as JSON")
    .action(async (opts) => (await import("./registry-run.js")).runCheckCommand(setExit, opts));

  registry
    .command("upgrade")
    .description(
      "convert a registry to the current format in place (slot-v1: format 1 → 2, row checksums; name-keyed: format 2 → 3, proofs at earlier roots); root and history are kept",
    )
    .requiredOption("--db <dir>", "registry database directory")
    .option("--keep-commits <n>", "name-keyed: earlier roots stay provable for the last N batches (default 1000)")
    .option(
      "--keep-days <d>",
      "name-keyed: earlier roots stay provable for D days after they were replaced (default 30)",
    )
    .action(async (opts) => (await import("./registry-run.js")).runUpgradeCommand(setExit, opts));

  registry
    .command("retention")
    .description(
      "name-keyed registries: show (or change) how long earlier roots stay provable, and the oldest provable root",
    )
    .requiredOption("--db <dir>", "registry database directory")
    .option("--keep-commits <n>", "earlier roots stay provable for the last N batches")
    .option("--keep-days <d>", "earlier roots stay provable for D days after they were replaced")
    .option("--json", "print JSON")
    .action(async (opts) => (await import("./registry-run.js")).runRetentionCommand(setExit, opts));

  const update = (kind: "insert" | "replace" | "delete" | "restore", description: string) => {
    const cmd = registry
      .command(kind)
      .description(description)
      .requiredOption("--db <dir>", "registry database directory")
      .option("--name <name>", "record name");
    if (kind !== "insert") cmd.option("--slot <s>", "slot number");
    if (kind !== "delete")
      cmd
        .option("--value <text>", "text value (e.g. a URL)")
        .option("--null", "the null value")
        .option("--fields <list>", "comma-separated field elements");
    cmd.option("--json", "print JSON");
    cmd.action(async (opts) => (await import("./registry-run.js")).runUpdateCommand(setExit, kind, opts));
  };
  registry
    .command("prove")
    .description(
      "prove a registry statement; insert/replace/delete/restore also commit the update (writes request.json, proof.bin and statement.json; --profile v3: proof.bin and statement.json only)",
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
      "name-keyed: v1 (compat-v1, checked with request.json; the default) or v3 (checked from statement.json alone: no request.json is written)",
      "v1",
    )
    .requiredOption("--out <dir>", "output directory (request.json, proof.bin, statement.json; v3: no request.json)")
    .action(async (statement, opts) => (await import("./registry-run.js")).runProveCommand(setExit, statement, opts));

  registerRegistryVerify(registry, setExit);
  registerRegistryBlock(registry, setExit);
  update("insert", "register a new record at the next free slot (Empty → Occupied)");
  update("replace", "change the value of a live record (Occupied → Occupied)");
  update("delete", "delete a live record (Occupied → Tombstone; the slot keeps the name)");
  update("restore", "bring a deleted record back, with a new value or its last one (Tombstone → Occupied)");
  registerRegistryCheckpoint(registry, setExit);
  registerRegistryVerifyConsistency(registry, setExit);
  registerRegistryMonitor(registry, setExit);
  registerRegistryHttp(registry, setExit);
}
