/**
 * `ssgkr registry upgrade --db DIR [--keep-commits N] [--keep-days D]`: converts a registry to the
 * current format in place (slot-v1: format 1 → 2, row checksums; name-keyed: format 2 → 3,
 * proofs at earlier roots); root and history are kept.
 */
import type { Command } from "commander";
import { EXIT_OK } from "../../exit.js";
import { upgradeRegistry } from "../../../registry/store/upgrade.js";
import { retentionOptions } from "./options.js";

/** Registers `registry upgrade`. */
export function registerUpgrade(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("upgrade")
    .description("convert a registry to the current format in place (slot-v1: format 1 → 2, row checksums; name-keyed: format 2 → 3, proofs at earlier roots); root and history are kept")
    .requiredOption("--db <dir>", "registry database directory")
    .option("--keep-commits <n>", "name-keyed: earlier roots stay provable for the last N batches (default 1000)")
    .option("--keep-days <d>", "name-keyed: earlier roots stay provable for D days after they were replaced (default 30)")
    .action((opts: { db: string; keepCommits?: string; keepDays?: string }) => {
      const retention = retentionOptions(opts);
      const r = upgradeRegistry(opts.db, retention ? { retention } : {});
      const check = `run \`ssgkr registry check --db ${opts.db}\` for a full check`;
      if (r.fromVersion === r.toVersion) process.stdout.write(`${opts.db} is already at format ${r.toVersion}; nothing written\n`);
      else if (r.toVersion === 2) process.stdout.write(`upgraded ${opts.db} from format 1 to 2: ${r.rows} rows now carry a checksum; ${check}\n`);
      else process.stdout.write(`upgraded ${opts.db} from format ${r.fromVersion} to ${r.toVersion}: ${r.rows} rows rewritten; roots from the current head on are provable (earlier ones are not); ${check}\n`);
      setExit(EXIT_OK);
    });
}
