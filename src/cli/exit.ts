/**
 * CLI exit conventions: 0 success; 1 a verdict against the input (REJECT, INVALID, FAIL);
 * 2 the input could not be used (usage, unreadable file, schema violation).
 */
export const EXIT_OK = 0;
export const EXIT_VERDICT = 1;
export const EXIT_USAGE = 2;

/**
 * Thrown by command handlers to stop with one clear line and an exit code. Verdict lines
 * (`REJECT …`, `INVALID …`) are results and go to stdout; error lines go to stderr.
 */
export class CliExit extends Error {
  constructor(readonly exitCode: number, message: string, readonly stream: "stdout" | "stderr" = "stderr") {
    super(message);
  }
}
