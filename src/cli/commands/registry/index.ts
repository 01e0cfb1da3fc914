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
 *           [--value V | --null | --fields LIST] --out DIR      (request.json, proof.bin, statement.json)
 *   verify  --name N (--value V | --null | --fields LIST | --absent) --root R --request F --proof F
 *   prove-block  --db DIR --updates U.ndjson [--count K] --out DIR   (block.bin, requests.json, block.json)
 *   verify-block --from-root A --to-root B --dir DIR
 *   keygen  --out KEYFILE [--origin NAME]                       signing key (0600); prints the verifier key
 *   checkpoint --db DIR --signing-key KEYFILE                   the head's signed checkpoint
 *   verify-consistency --url URL --key VERIFIERKEY --from CKPT1 --to CKPT2   two checkpoints, one history
 *
 * New registries are name-keyed (`--mapping record-leaf-v2`, depth 48: the root commits to
 * names); `--mapping slot-v1` (depth 24) creates a slot registry. Name-keyed registries address
 * records by --name only.
 *
 * One file per subcommand (the four updates, one command shape, share update.ts; `registry http`
 * is ../http.ts), the option parsing they share in options.ts and their shared printed forms in
 * output.ts; `registerRegistry` adds them in the order `ssgkr registry --help` lists them.
 *
 * Exit codes: 0 ok; 1 a membership/non-membership statement that is false (`FALSE CODE: …`), or
 * damage found by `check` (`error DB_CORRUPT: …`);
 * 2 unusable input (usage, unknown name, slot out of range, wrong record
 * state, value over the leaf bound, malformed import with --on-error fail, corrupt database),
 * with one line `error CODE: message` on stderr.
 */
import type { Command } from "commander";
import { registerRegistryHttp } from "../http.js";
import { registerCheck } from "./check.js";
import { registerCheckpoint } from "./checkpoint.js";
import { registerGet } from "./get.js";
import { registerHistory } from "./history.js";
import { registerImport } from "./import.js";
import { registerKeygen } from "./keygen.js";
import { registerProveBlock } from "./prove-block.js";
import { registerProve } from "./prove.js";
import { registerRetention } from "./retention.js";
import { registerRoot } from "./root.js";
import { registerUpdate, UPDATE_COMMANDS } from "./update.js";
import { registerUpgrade } from "./upgrade.js";
import { registerVerifyBlock } from "./verify-block.js";
import { registerVerify } from "./verify.js";
import { registerVerifyConsistency } from "./verify-consistency.js";

/** Adds `ssgkr registry` and its subcommands to the program. */
export function registerRegistry(program: Command, setExit: (code: number) => void): void {
  const registry = program.command("registry").description("authenticated registry of (name, value) records: import, look up, update (docs/registry.md)");
  registerImport(registry, setExit);
  registerGet(registry, setExit);
  registerRoot(registry, setExit);
  registerHistory(registry, setExit);
  registerCheck(registry, setExit);
  registerUpgrade(registry, setExit);
  registerRetention(registry, setExit);
  registerProve(registry, setExit);
  registerVerify(registry, setExit);
  registerProveBlock(registry, setExit);
  registerVerifyBlock(registry, setExit);
  for (const [kind, description] of UPDATE_COMMANDS) registerUpdate(registry, kind, description, setExit);
  registerKeygen(registry, setExit);
  registerCheckpoint(registry, setExit);
  registerVerifyConsistency(registry, setExit);
  registerRegistryHttp(registry, setExit);
}
