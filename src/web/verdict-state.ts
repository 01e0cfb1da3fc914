/**
 * What the verifier page shows for a verdict of `checkProofBody` (no DOM: tested in Node). An
 * ACCEPT against a root the user gave (`pinned`) and an ACCEPT against the statement's own root
 * (`unpinned`: it shows only that the proof matches its own statement) are different states, with
 * their own word, colour (`data-trust`) and headline; a REJECT is a third. The name shown is always
 * the proof's own (the verdict's statement words); a name asked for that differs is stated apart.
 */
import type { BodyVerdict } from "../counterparty/body.js";

/** The page's state of a verdict. */
export interface VerdictState {
  /** `data-verdict`: ACCEPT or REJECT (stable for scripts). */
  readonly verdict: "ACCEPT" | "REJECT";
  /** `data-trust`: `pinned` (checked against the root the user gave), `unpinned` (against the statement's own root), `none` (rejected). */
  readonly trust: "pinned" | "unpinned" | "none";
  /** The big word: `ACCEPT`, `ACCEPT — UNPINNED`, `REJECT`. */
  readonly word: string;
  /** A headline under the word: what the verdict is worth. */
  readonly headline: string;
  /** What was proved (ACCEPT) or claimed (REJECT): the proof's own statement, in words. */
  readonly what: string;
}

/**
 * The same proof checked against the root its own statement names, after a REJECT
 * `ROOT_NOT_TRUSTED` (a block's `FROM_ROOT_MISMATCH`): whether it verifies there, and that root (64 hex characters).
 */
export interface OwnRootCheck {
  readonly ok: boolean;
  readonly root?: string;
}

/** The headline of a REJECT by its cause (`own`: the proof checked at its own root, for `ROOT_NOT_TRUSTED`). */
export function rejectHeadline(v: Pick<BodyVerdict, "code" | "trustedRoot">, own?: OwnRootCheck): string {
  switch (v.code) {
    case "ROOT_NOT_TRUSTED":
    case "FROM_ROOT_MISMATCH":
      if (own?.ok === true)
        return `The proof is valid, but for another root${own.root ? ` (${own.root})` : ""}, not the root you trust${v.trustedRoot ? ` (${v.trustedRoot})` : ""}: it shows what its statement says at that root, nothing about yours. Ask for the proof at the root you trust, or pin a newer root you trust.`;
      if (own?.ok === false)
        return "The proof is for another root than the one you trust, and it does not verify for that root either.";
      return "The proof is for another root than the one you trust: it shows nothing about your root.";
    case "NAME_MISMATCH":
      return "The proof is about another name than the one you asked for.";
    case "BAD_CLAIM":
    case "BAD_ROOT":
    case "REQUEST_SCHEMA":
      return "This is not a usable proof body or root: nothing was verified.";
    case "CHECKPOINT_BAD_SIGNATURE":
    case "CHECKPOINT_WRONG_KEY":
    case "CHECKPOINT_MALFORMED":
      return "The checkpoint does not open with the verifier key you gave: the root it names is not trusted.";
    default:
      return "The proof does not show what its statement says.";
  }
}

/**
 * The state of a verdict.
 * @param v the verdict of `checkProofBody` (or `checkBlockBody`).
 * @param own after a REJECT `ROOT_NOT_TRUSTED`, the same proof checked against its own root (the headline says whether it is valid there).
 */
export function verdictState(v: BodyVerdict, own?: OwnRootCheck): VerdictState {
  if (!v.ok)
    return {
      verdict: "REJECT",
      trust: "none",
      word: "REJECT",
      headline: rejectHeadline(v, own),
      what: `Claimed: ${v.statement}`,
    };
  if (v.rootSource === "statement") {
    return {
      verdict: "ACCEPT",
      trust: "unpinned",
      word: "ACCEPT — UNPINNED",
      headline:
        "Not checked against a root you trust: this shows only that the proof matches the root its own statement names. Enter or pin the root you trust and verify again.",
      what: `Matches its own statement: ${v.statement}`,
    };
  }
  return {
    verdict: "ACCEPT",
    trust: "pinned",
    word: "ACCEPT",
    headline: `Checked against the root you trust, ${v.trustedRoot ?? ""}.`,
    what: `Proved: ${v.statement}`,
  };
}
