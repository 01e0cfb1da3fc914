/**
 * The CLI's error codes are a checked subset of the catalogue (src/error-catalogue.ts): a
 * `CliError` takes the CLI's own codes and the library's catalogued codes, and nothing else.
 * The `@ts-expect-error` lines below are part of the test: `npm run build` fails if a misspelt
 * code ever type-checks (the directive then has no error to expect).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { CLI_ERROR_CODES, CliError, formatError, type CliCode } from "../../src/cli/errors.js";
import { ERROR_CATALOGUE, codesOf, type ErrorCode } from "../../src/error-catalogue.js";
import type { LibraryErrorCode } from "../../src/error-codes.js";
import { RegistryError } from "../../src/registry/errors.js";
import { EXIT_VERDICT } from "../../src/cli/exit.js";

/** true exactly when A and B are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

// The codes a CliError may carry are the catalogue's `ErrorCode`, no more and no fewer.
const sameAsCatalogue: Equal<CliCode, ErrorCode> = true;
// The library's union holds no CLI-only code.
const noCliOnlyCode: Equal<Extract<LibraryErrorCode, "FILE_TOO_LARGE" | "CANNOT_WRITE">, never> = true;

/**
 * Errors built with misspelt codes (each a compile error) and with catalogued ones. No
 * contextual type: the code alone must make the error.
 */
function built() {
  return {
    misspelt: [
      // @ts-expect-error: a misspelt CLI code (BAD_OPTION) is not in the catalogue
      new CliError("BAD_OPTOIN", "--x must be a number"),
      // @ts-expect-error: a misspelt library code (DB_CORRUPT) is not in the catalogue
      new CliError("DB_CORUPT", "registry damaged"),
      // @ts-expect-error: a code of no module at all
      new CliError("NOT_A_CODE", "x"),
    ],
    spelt: [
      new CliError("BAD_OPTION", "--x must be a number"),
      new CliError("DB_CORRUPT", "registry damaged"),
      new CliError("OUT_EXISTS", "--out exists"),
    ],
  };
}

/** Every code of the catalogue's error unions. */
const catalogued = new Set(
  Object.keys(ERROR_CATALOGUE)
    .filter((n) => ERROR_CATALOGUE[n]!.kind === "error")
    .flatMap((n) => codesOf(n)),
);

test("CliError codes type-check only when catalogued: the misspelt ones above are compile errors, the spelt ones are catalogue codes", () => {
  assert.equal(sameAsCatalogue, true);
  assert.equal(noCliOnlyCode, true);
  const { misspelt, spelt } = built();
  for (const e of misspelt) assert.ok(!catalogued.has(e.code), `${e.code} is not catalogued`);
  for (const e of spelt) assert.ok(catalogued.has(e.code), `${e.code} is catalogued`);
  for (const c of CLI_ERROR_CODES) assert.ok(catalogued.has(c), `the CLI's ${c} is catalogued`);
});

test("CliError.naming carries the library error's code, the message naming the option, the exit code and details", () => {
  const lib = new RegistryError("DB_CORRUPT", "leaf row of slot 3 is damaged", { row: "leaf row of slot 3" });
  const e = CliError.naming(lib, "--db ./r: leaf row of slot 3 is damaged", EXIT_VERDICT, { option: "--db" });
  assert.ok(e instanceof CliError);
  assert.equal(e.code, "DB_CORRUPT");
  assert.equal(e.exitCode, EXIT_VERDICT);
  assert.deepEqual(e.details, { option: "--db" });
  assert.deepEqual(formatError(e), {
    line: "error DB_CORRUPT: --db ./r: leaf row of slot 3 is damaged",
    exitCode: EXIT_VERDICT,
  });
  assert.equal(CliError.naming(lib, "x").exitCode, 2);
});
