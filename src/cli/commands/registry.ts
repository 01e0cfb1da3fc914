import type { Command } from "commander";
import { registerRegistryImport } from "./registry-import.js";
import { registerRegistryGet } from "./registry-get.js";
import { registerRegistryRoot } from "./registry-root.js";
import { registerRegistryHistory } from "./registry-history.js";
import { registerRegistryCheck } from "./registry-check.js";
import { registerRegistryUpgrade } from "./registry-upgrade.js";
import { registerRegistryRetention } from "./registry-retention.js";
import { registerRegistryUpdates } from "./registry-update.js";
import { registerRegistryProve } from "./registry-prove.js";
import { registerRegistryVerify } from "./registry-verify.js";
import { registerRegistryHttp } from "./http.js";
import { registerRegistryBlock } from "./registry-block.js";
import { registerRegistryCheckpoint } from "./registry-checkpoint.js";
import { registerRegistryVerifyConsistency } from "./registry-verify-consistency.js";
import { registerRegistryMonitor } from "./registry-monitor.js";
import { registerRegistryMirror } from "./registry-mirror.js";
import { registerRegistryWorker } from "./registry-worker.js";

/**
 * `ssgkr registry …`: an authenticated registry of (name, value) records in a sparse Merkle tree
 * on disk (docs/registry.md).
 *
 *   import  --db DIR (--source npm-repos [--limit N|all] | --file F) [--on-error fail|skip] …
 *   get     --db DIR (--name N | --slot S) [--json]
 *   root    --db DIR [--json]
 *   history --db DIR [--json]
 *   check   --db DIR [--threads T] [--no-progress] [--json]   full scan: checksums, records, paths
 *   upgrade --db DIR                                          to the current format (slot: 1 → 2; name-keyed: 2 or 3 → 4)
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
 *   mirror  --from URL --key VERIFIERKEY --db DIR [--listen HOST:PORT] [--once]   a copy that applies only what it verified
 *   worker  --nats URLS --from URL --key VERIFIERKEY --db DIR [--threads N]   proves the registry's proof jobs from a broker
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

  registerRegistryImport(registry, setExit);
  registerRegistryGet(registry, setExit);
  registerRegistryRoot(registry, setExit);
  registerRegistryHistory(registry, setExit);
  registerRegistryCheck(registry, setExit);
  registerRegistryUpgrade(registry, setExit);
  registerRegistryRetention(registry, setExit);
  registerRegistryProve(registry, setExit);
  registerRegistryVerify(registry, setExit);
  registerRegistryBlock(registry, setExit);
  registerRegistryUpdates(registry, setExit);
  registerRegistryCheckpoint(registry, setExit);
  registerRegistryVerifyConsistency(registry, setExit);
  registerRegistryMonitor(registry, setExit);
  registerRegistryMirror(registry, setExit);
  registerRegistryWorker(registry, setExit);
  registerRegistryHttp(registry, setExit);
}
