/**
 * The CLI's one voice for errors: every error becomes one line `error CODE: message` on stderr
 * (`formatError`), with a stable code and a message that names the option, file or JSON path and
 * the rule, and an exit code (exit.ts): 2 unusable input, 1 a failed control, 3 an internal error.
 *
 * | Source | Code |
 * |---|---|
 * | an `SsgkrError` from the library (`REQUEST_SCHEMA`, `DB_CORRUPT`, …) | its own code |
 * | a `CliError` of a command (`BAD_OPTION`, `CANNOT_READ`, `FILE_TOO_LARGE`, …) | its own code |
 * | commander | `UNKNOWN_OPTION`, `UNKNOWN_COMMAND`, `MISSING_OPTION`, `MISSING_VALUE`, `MISSING_ARGUMENT`, `EXCESS_ARGUMENTS`, `BAD_OPTION`, `CONFLICTING_OPTIONS`, `USAGE` |
 * | anything else (a bug) | `INTERNAL`, exit 3; `SSGKR_DEBUG=1` adds the stack |
 */
import { CommanderError } from "commander";
import { SsgkrError } from "../errors.js";
import type { LibraryErrorCode } from "../error-codes.js";
import { EXIT_INTERNAL, EXIT_OK, EXIT_USAGE } from "./exit.js";

/** The CLI's own error codes (meanings in docs/errors.md); `INTERNAL` is a bug, exit 3. */
export const CLI_ERROR_CODES = [
  "USAGE",
  "BAD_OPTION",
  "BAD_ARGUMENT",
  "MISSING_OPTION",
  "DUPLICATE_OPTION",
  "UNKNOWN_OPTION",
  "UNKNOWN_COMMAND",
  "MISSING_VALUE",
  "MISSING_ARGUMENT",
  "EXCESS_ARGUMENTS",
  "CONFLICTING_OPTIONS",
  "CANNOT_READ",
  "CANNOT_WRITE",
  "FILE_TOO_LARGE",
  "NETWORK_ERROR",
  "PROOF_PENDING",
  "DB_IN_USE",
  "INTERNAL",
] as const;

/** A code of the CLI's own errors. */
export type CliErrorCode = (typeof CLI_ERROR_CODES)[number];

/** The CLI's own verdict codes (`REJECT CODE: …`, exit 1), besides the verifiers'. */
export const CLI_VERDICT_CODES = ["EXPECTED_OLD_ROOT", "EXPECTED_NEW_ROOT"] as const;

/** A code of the CLI's own verdicts. */
export type CliVerdictCode = (typeof CLI_VERDICT_CODES)[number];

/**
 * A code a `CliError` may carry: the CLI's own, or a library code of the catalogue
 * (error-catalogue.ts) when the error names the option or file of a library error. Together
 * they are the catalogue's `ErrorCode`: a code outside it does not type-check.
 */
export type CliCode = CliErrorCode | LibraryErrorCode;

/**
 * A usage error raised by a command: code (its own, or the code of the library error it names
 * the option or file of), message naming the option or file, exit code (default 2).
 */
export class CliError<C extends CliCode = CliCode> extends SsgkrError<C> {
  readonly exitCode: number;

  constructor(code: C, message: string, exitCode: number = EXIT_USAGE, details: Record<string, unknown> = {}) {
    super(code, message, details);
    this.exitCode = exitCode;
  }

  /**
   * The CLI error that names the option or file of a library error, with the library error's
   * code. `SsgkrError.code` is typed `string`; every code the library throws is of
   * `LibraryErrorCode` (test/arch/error-catalogue.test.ts keeps the catalogue complete).
   */
  static naming(
    err: SsgkrError,
    message: string,
    exitCode: number = EXIT_USAGE,
    details: Record<string, unknown> = {},
  ): CliError {
    return new CliError(err.code as LibraryErrorCode, message, exitCode, details);
  }
}

const COMMANDER_CODES: Readonly<Record<string, CliErrorCode>> = {
  "commander.unknownOption": "UNKNOWN_OPTION",
  "commander.unknownCommand": "UNKNOWN_COMMAND",
  "commander.missingMandatoryOptionValue": "MISSING_OPTION",
  "commander.optionMissingArgument": "MISSING_VALUE",
  "commander.missingArgument": "MISSING_ARGUMENT",
  "commander.excessArguments": "EXCESS_ARGUMENTS",
  "commander.invalidArgument": "BAD_OPTION",
  "commander.conflictingOption": "CONFLICTING_OPTIONS",
};

/** commander's "error: unknown option '--x'\n(Did you mean --y?)" as "unknown option '--x' (did you mean --y?)". */
function commanderMessage(message: string): string {
  return message
    .replace(/^error: /, "")
    .replace(/\s*\n\s*\(Did you mean (.*)\?\)\s*$/s, " (did you mean $1?)")
    .split("\n")[0]!
    .trim();
}

/** The line to print (without newline; null for none) and the exit code of an error. */
export function formatError(err: unknown): { readonly line: string | null; readonly exitCode: number } {
  if (err instanceof CommanderError) {
    if (err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.code === "commander.help")
      return { line: null, exitCode: EXIT_OK };
    return {
      line: `error ${COMMANDER_CODES[err.code] ?? "USAGE"}: ${commanderMessage(err.message)}`,
      exitCode: EXIT_USAGE,
    };
  }
  if (err instanceof CliError) return { line: `error ${err.code}: ${oneLine(err.message)}`, exitCode: err.exitCode };
  if (err instanceof SsgkrError) return { line: `error ${err.code}: ${oneLine(err.message)}`, exitCode: EXIT_USAGE };
  const e = err instanceof Error ? err : new Error(String(err));
  const stack = process.env["SSGKR_DEBUG"] === "1" && e.stack ? `\n${e.stack}` : "";
  return {
    line: `error INTERNAL: ${oneLine(e.message)} (an internal error; SSGKR_DEBUG=1 shows the stack)${stack}`,
    exitCode: EXIT_INTERNAL,
  };
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}
