import type { Command } from "commander";
import { checkOperation } from "../../smt/semantics.js";
import { defaultPreparedCache } from "../../sync/prepared-cache.js";
import { provePrepared } from "../../sync/prove.js";
import { encodeSyncResult } from "../../sync/encoded.js";
import { CliExit, EXIT_VERDICT } from "../exit.js";
import { readRequest, writeFileOrExit } from "../io.js";

/**
 * `ssgkr prove --request R.json --out P.bin [--unchecked]`: checks the statement natively, proves
 * it and writes inner-proof-v1 bytes; prints `<kind> depth=<d> bytes=<n> prove_ms=<ms>`.
 * The request's configuration is within the limits (src/sync/limits.ts) before anything is compiled.
 */
export function registerProve(program: Command): void {
  program
    .command("prove")
    .description("prove a request file and write the inner-proof-v1 bytes")
    .requiredOption("--request <file>", "request JSON (see `ssgkr fixture`)")
    .requiredOption("--out <file>", "where to write the proof bytes")
    .option("--unchecked", "prove even if the statement is false (for adversarial tests)", false)
    .action((opts: { request: string; out: string; unchecked: boolean }) => {
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
      writeFileOrExit(opts.out, bytes, "--out");
      process.stdout.write(`${file.kind} depth=${file.depth} bytes=${bytes.length} prove_ms=${ms.toFixed(1)}\n`);
    });
}
