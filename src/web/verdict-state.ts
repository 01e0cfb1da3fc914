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
 * The state of a verdict.
 * @param v the verdict of `checkProofBody`.
 */
export function verdictState(v: BodyVerdict): VerdictState {
  if (!v.ok)
    return {
      verdict: "REJECT",
      trust: "none",
      word: "REJECT",
      headline: "The proof does not show what its statement says.",
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
