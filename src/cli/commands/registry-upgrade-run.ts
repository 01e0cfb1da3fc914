/**
 * The implementation of `ssgkr registry upgrade`, defined in registry-upgrade.ts, which imports this file only when the command runs.
 */
import { EXIT_OK } from "../exit.js";
import { upgradeRegistry } from "../../registry/store/upgrade.js";
import { retentionOptions } from "./registry-args.js";

/** The action of `ssgkr registry upgrade`, with what commander parsed (defined in registry-upgrade.ts). */
export async function runUpgradeCommand(
  setExit: (code: number) => void,
  opts: { db: string; keepCommits?: string; keepDays?: string },
): Promise<void> {
  const retention = retentionOptions(opts);
  const r = upgradeRegistry(opts.db, retention ? { retention } : {});
  const check = `run \`ssgkr registry check --db ${opts.db}\` for a full check`;
  if (r.fromVersion === r.toVersion)
    process.stdout.write(`${opts.db} is already at format ${r.toVersion}; nothing written\n`);
  else if (r.toVersion === 2)
    process.stdout.write(`upgraded ${opts.db} from format 1 to 2: ${r.rows} rows now carry a checksum; ${check}\n`);
  else if (r.fromVersion === 3)
    process.stdout.write(
      `upgraded ${opts.db} from format 3 to ${r.toVersion}: ${r.rows} rows rewritten; the kept earlier values are packed per batch and every root of the window stays provable; ${check}\n`,
    );
  else
    process.stdout.write(
      `upgraded ${opts.db} from format ${r.fromVersion} to ${r.toVersion}: ${r.rows} rows rewritten; roots from the current head on are provable (earlier ones are not); ${check}\n`,
    );
  setExit(EXIT_OK);
}
