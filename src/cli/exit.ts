/**
 * CLI exit conventions: 0 success; 1 a verdict against the input (REJECT, INVALID, FAIL);
 * 2 the input could not be used (usage, unreadable file, schema violation); 3 an internal error.
 */
export const EXIT_OK = 0;
export const EXIT_VERDICT = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERNAL = 3;

/**
 * Thrown by command handlers to stop with a verdict line (`REJECT …`, `INVALID …`, `FALSE …`)
 * and an exit code. Verdicts are results, not errors (errors are `CliError`, errors.ts).
 */
export class CliExit extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
    readonly stream: "stdout" | "stderr" = "stderr",
  ) {
    super(message);
  }
}
