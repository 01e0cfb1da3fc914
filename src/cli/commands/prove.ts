import type { Command } from "commander";
import { checkOperation } from "../../smt/semantics.js";
import { defaultPreparedCache } from "../../sync/prepared-cache.js";
import { provePrepared } from "../../sync/prove.js";
import { encodeSyncResult } from "../../sync/encoded.js";
import { CliExit, EXIT_VERDICT } from "../exit.js";
import { CliError } from "../errors.js";
import { readRequest, writeFileOrExit } from "../io.js";
import { PROFILES, proveProfileV2 } from "./profile-v2.js";
import { proveProfileV3 } from "./profile-v3.js";

/**
 * `ssgkr prove --request R.json --out P.bin [--unchecked] [--profile v2] [--requests R1,R2,…]`: checks the statement natively, proves
 * it and writes inner-proof-v1 bytes; prints `<kind> depth=<d> bytes=<n> prove_ms=<ms>`.
 * The request's configuration is within the limits (src/sync/limits.ts) before anything is compiled.
 */
export function registerProve(program: Command): void {
  program
    .command("prove")
    .description("prove a request file and write the proof bytes (inner-proof-v1; inner-proof-v2 with --profile v2)")
    .option("--request <file>", "request JSON (see `ssgkr fixture`)")
    .option("--out <file>", "where to write the proof bytes (required)")
    .option("--unchecked", "prove even if the statement is false (for adversarial tests)", false)
    .option("--profile <name>", `proof profile: ${PROFILES.join(" or ")} (docs/profile-v2.md)`, "compat-v1")
    .option("--requests <files>", "comma-separated request files of one kind and depth: one aggregate proof (--profile v2 or v3)")
    .action((opts: { request?: string; requests?: string; out?: string; unchecked: boolean; profile: string }) => {
      if (opts.request === undefined && opts.requests === undefined) throw new CliError("MISSING_OPTION", "required option '--request <file>' not specified");
      if (opts.out === undefined) throw new CliError("MISSING_OPTION", "required option '--out <file>' not specified");
      if (!(PROFILES as readonly string[]).includes(opts.profile)) throw new CliError("BAD_OPTION", `--profile must be ${PROFILES.join(" or ")}, got "${opts.profile}"`);
      if (opts.profile === "v2") return proveProfileV2({ ...opts, out: opts.out });
      if (opts.profile === "v3") return proveProfileV3({ ...opts, out: opts.out });
      if (opts.requests !== undefined || opts.request === undefined) throw new CliError("MISSING_OPTION", "--requests (an aggregate) needs --profile v2 or v3");
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
    });
}
