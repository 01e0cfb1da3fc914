/**
 * The implementation of `ssgkr registry retention`, defined in registry-retention.ts, which imports this file only when the command runs.
 */
import { EXIT_OK } from "../exit.js";
import { CliError } from "../errors.js";
import { formatRoot } from "../../registry/root.js";
import { NameStore } from "../../registry/store/name-store.js";
import { registryMapping } from "../../registry/store/open-any.js";
import { NAME_MAPPING_ID } from "../../registry/name-key.js";
import { retentionOptions } from "./registry-args.js";

/** The action of `ssgkr registry retention`, with what commander parsed (defined in registry-retention.ts). */
export async function runRetentionCommand(
  setExit: (code: number) => void,
  opts: { db: string; keepCommits?: string; keepDays?: string; json?: boolean },
): Promise<void> {
  if (registryMapping(opts.db) !== NAME_MAPPING_ID)
    throw new CliError(
      "USAGE",
      `registry retention: ${opts.db} is not a name-keyed registry (slot-v1 registries prove at their head only)`,
    );
  const retention = retentionOptions(opts);
  const store = NameStore.open(opts.db, { readOnly: retention === undefined });
  try {
    if (retention !== undefined) store.setRetention(retention);
    const w = store.window();
    if (opts.json)
      process.stdout.write(
        JSON.stringify({
          keep_commits: w.retention.commits,
          keep_days: w.retention.days,
          oldest_root: formatRoot(w.oldestRoot),
          oldest_size: w.oldestBatch,
          head_size: w.headBatch,
        }) + "\n",
      );
    else
      process.stdout.write(
        `retention: the last ${w.retention.commits} batches and ${w.retention.days} days (applied at the next commit)\noldest provable root ${formatRoot(w.oldestRoot)} (size ${w.oldestBatch}); head size ${w.headBatch}\n`,
      );
  } finally {
    await store.close();
  }
  setExit(EXIT_OK);
}
