/**
 * Base class of every error this package throws on purpose.
 *
 * `code` is stable, safe to match on, and one of the string-literal union `C` that the throwing
 * module exports next to its subclass (e.g. `FieldErrorCode` for `FieldError`); every code is
 * listed with its meaning, module, CLI exit status and HTTP status in docs/errors.md, and the union of all of
 * them is `ErrorCode` (error-catalogue.ts). `message` is meant for a human and names the
 * offending value and the rule it broke.
 *
 * @example
 *   try { pow(3, -1); } catch (e) { if (e instanceof SsgkrError && e.code === "NEGATIVE") console.error(e.message); }
 */
export class SsgkrError<C extends string = string> extends Error {
  /** Stable machine-readable error code, e.g. `NON_CANONICAL`. */
  readonly code: C;
  /** Optional structured details (offsets, counts, field paths). */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: C, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

/**
 * A broken invariant of this package: a bug, never a consequence of input. Deliberately not an
 * `SsgkrError` (it has no catalogue code): the CLI prints it as `error INTERNAL: …` with exit 3
 * and the HTTP API answers 500 `INTERNAL`. Input that a caller can get wrong is reported with a
 * module's `SsgkrError` subclass instead.
 */
export class InternalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InternalError";
  }
}

/** Human words for the errno codes of file access. */
const ERRNO_WORDS: Readonly<Record<string, string>> = {
  ENOENT: "no such file",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EISDIR: "is a directory",
  ENOTDIR: "a component of the path is not a directory",
  ENAMETOOLONG: "the name is too long",
  ELOOP: "too many symbolic links",
  ENOSPC: "no space left on the device",
  EROFS: "read-only file system",
  EEXIST: "already exists",
};

/** "no such file" for ENOENT, …; the error's message for anything else. */
export function errnoText(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return (
    (typeof code === "string" && Object.hasOwn(ERRNO_WORDS, code) && ERRNO_WORDS[code]) ||
    (err as Error)?.message ||
    String(err)
  );
}
