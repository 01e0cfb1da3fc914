/**
 * The implementation of `ssgkr fixture`: the definitions (options, help) are in fixture.ts, which
 * imports this file only when the command runs.
 */
import { goldenFixture } from "../../smt/fixture.js";
import { fromOpRequest } from "../../sync/request-convert.js";
import { requestToJson } from "../../sync/request.js";
import { opKindOf } from "../../sync/prepared.js";
import { type OpKindName } from "../../statement/types.js";
import { SsgkrError } from "../../errors.js";
import { CliError } from "../errors.js";
import { parseIntOption, parseU64Option } from "../io.js";

/** The action of `ssgkr fixture`, with what commander parsed (the command's definition is in fixture.ts). */
export async function runFixtureCommand(opts: { kind: string; depth: string; key: string }): Promise<void> {
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
}
