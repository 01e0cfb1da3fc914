/**
 * The implementation of `ssgkr prove`: the definitions (options, help) are in prove.ts, which
 * imports this file only when the command runs.
 */
import { checkOperation } from "../../smt/semantics.js";
import { defaultPreparedCache } from "../../sync/prepared-cache.js";
import { provePrepared } from "../../sync/prove.js";
import { encodeSyncResult } from "../../sync/encoded.js";
import { CliExit, EXIT_VERDICT } from "../exit.js";
import { CliError } from "../errors.js";
import { readRequest, writeFileOrExit } from "../io.js";
import { PROFILES, proveProfileV2 } from "./profile-v2.js";
import { proveProfileV3 } from "./profile-v3.js";

/** The action of `ssgkr prove`, with what commander parsed (the command's definition is in prove.ts). */
export async function runProveCommand(opts: {
  request?: string;
  requests?: string;
  out?: string;
  unchecked: boolean;
  profile: string;
}): Promise<void> {
  if (opts.request === undefined && opts.requests === undefined)
    throw new CliError("MISSING_OPTION", "required option '--request <file>' not specified");
  if (opts.out === undefined) throw new CliError("MISSING_OPTION", "required option '--out <file>' not specified");
  if (!(PROFILES as readonly string[]).includes(opts.profile))
    throw new CliError("BAD_OPTION", `--profile must be ${PROFILES.join(" or ")}, got "${opts.profile}"`);
  if (opts.profile === "v2") return proveProfileV2({ ...opts, out: opts.out });
  if (opts.profile === "v3") return proveProfileV3({ ...opts, out: opts.out });
  if (opts.requests !== undefined || opts.request === undefined)
    throw new CliError("MISSING_OPTION", "--requests (an aggregate) needs --profile v2 or v3");
  const { file, request } = readRequest(opts.request);
  const config = { depth: file.depth, leafMaxFields: file.leafMaxFields };
  if (!opts.unchecked) {
    const verdict = checkOperation(request, config);
    if (!verdict.valid) throw new CliExit(EXIT_VERDICT, `INVALID ${verdict.code}: ${verdict.message}`, "stdout");
  }
  const prepared = defaultPreparedCache.get(file.kind, config);
  const started = performance.now();
  const result = provePrepared(prepared, request);
  const bytes = encodeSyncResult(prepared, result);
  const ms = performance.now() - started;
  writeFileOrExit(opts.out!, bytes, "--out");
  process.stdout.write(`${file.kind} depth=${file.depth} bytes=${bytes.length} prove_ms=${ms.toFixed(1)}\n`);
}
