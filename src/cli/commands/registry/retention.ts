/**
 * `ssgkr registry retention --db DIR [--keep-commits N] [--keep-days D] [--json]`: how long a
 * name-keyed registry keeps earlier roots provable (changed with the options), and its oldest
 * provable root.
 */
import type { Command } from "commander";
import { EXIT_OK } from "../../exit.js";
import { CliError } from "../../errors.js";
import { NameStore } from "../../../registry/store/name-store.js";
import { registryMapping } from "../../../registry/store/open-any.js";
import { formatRoot } from "../../../registry/root.js";
import { NAME_MAPPING_ID } from "../../../registry/name-key.js";
import { retentionOptions } from "./options.js";

/** Registers `registry retention`. */
export function registerRetention(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("retention")
    .description("name-keyed registries: show (or change) how long earlier roots stay provable, and the oldest provable root")
    .requiredOption("--db <dir>", "registry database directory")
    .option("--keep-commits <n>", "earlier roots stay provable for the last N batches")
    .option("--keep-days <d>", "earlier roots stay provable for D days after they were replaced")
    .option("--json", "print JSON")
    .action(async (opts: { db: string; keepCommits?: string; keepDays?: string; json?: boolean }) => {
      if (registryMapping(opts.db) !== NAME_MAPPING_ID) throw new CliError("USAGE", `registry retention: ${opts.db} is not a name-keyed registry (slot-v1 registries prove at their head only)`);
      const retention = retentionOptions(opts);
      const store = NameStore.open(opts.db, { readOnly: retention === undefined });
      try {
        if (retention !== undefined) store.setRetention(retention);
        const w = store.window();
        if (opts.json) process.stdout.write(JSON.stringify({ keep_commits: w.retention.commits, keep_days: w.retention.days, oldest_root: formatRoot(w.oldestRoot), oldest_size: w.oldestBatch, head_size: w.headBatch }) + "\n");
        else process.stdout.write(`retention: the last ${w.retention.commits} batches and ${w.retention.days} days (applied at the next commit)\noldest provable root ${formatRoot(w.oldestRoot)} (size ${w.oldestBatch}); head size ${w.headBatch}\n`);
      } finally {
        await store.close();
      }
      setExit(EXIT_OK);
    });
}
