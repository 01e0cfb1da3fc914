import type { Command } from "commander";
import { goldenFixture } from "../../smt/fixture.js";
import { fromOpRequest } from "../../sync/request-convert.js";
import { requestToJson } from "../../sync/request.js";
import { opKindOf } from "../../sync/prepared.js";
import { type OpKindName } from "../../statement/types.js";
import { SsgkrError } from "../../errors.js";
import { CliError } from "../errors.js";
import { parseIntOption, parseU64Option } from "../io.js";

/** `ssgkr fixture`: prints the golden fixture F(kind, depth, key) of compat-v1 §17 as a request file. */
export function registerFixture(program: Command): void {
  program
    .command("fixture")
    .description("print the golden fixture F(kind, depth, key) (compat-v1 §17) as a request file")
    .requiredOption("--kind <kind>", "membership | nonmembership | update")
    .option("--depth <n>", "tree depth, 1..64", "24")
    .option("--key <k>", "slot index (u64, below 2^depth)", "5")
    .action((opts: { kind: string; depth: string; key: string }) => {
      if (!["membership", "nonmembership", "update"].includes(opts.kind)) {
        throw new CliError("BAD_OPTION", `--kind must be membership, nonmembership or update, got "${opts.kind}"`);
      }
      const depth = parseIntOption(opts.depth, "--depth", 1, 64);
      const key = parseU64Option(opts.key, "--key");
      let fx;
      try {
        fx = goldenFixture(opKindOf(opts.kind as OpKindName), depth, key);
      } catch (err) {
        if (err instanceof SsgkrError) throw CliError.naming(err, `--key ${key} at --depth ${depth}: ${err.message}`);
        throw err;
      }
      process.stdout.write(JSON.stringify(requestToJson(fromOpRequest(fx, depth, fx.config.leafMaxFields))) + "\n");
    });
}
