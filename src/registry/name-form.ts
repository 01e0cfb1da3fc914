/**
 * How names compare (docs/registry.md §"Names"): by their exact Unicode code points, that is by
 * their UTF-8 bytes, with no normalisation, so a name's key and leaf identity are functions of
 * those bytes. Two spellings that print alike (e.g. `é` as U+00E9 and as U+0065 U+0301) are two
 * names; so that they are never two records, a record is written only under a name in Unicode
 * Normalization Form C (NFC, `String.prototype.normalize("NFC")`), and the counterparty checks
 * accept a live record only under an NFC name. Reads of any other spelling answer for that exact
 * spelling, with a notice naming its NFC form. This file has no database import (it runs in
 * browsers too).
 */
import { RegistryError } from "./errors.js";

/** The NFC form of a name when the name is not in NFC, else undefined (ASCII names are NFC). */
export function nfcFormOf(name: string): string | undefined {
  if (/^[\x00-\x7f]*$/.test(name)) return undefined;
  const nfc = name.normalize("NFC");
  return nfc === name ? undefined : nfc;
}

/** The code points of a text, e.g. `U+0065 U+0301`. */
export function codePoints(text: string): string {
  return Array.from(text, (c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`).join(" ");
}

/** `"é" (U+0065 U+0301)`: a name with its code points, which tell apart spellings that print alike. */
export function spelled(name: string): string {
  return `${JSON.stringify(name)} (${codePoints(name)})`;
}

/**
 * The error for writing a record under a name that is not in NFC.
 * @param nfc the name's NFC form (`nfcFormOf`).
 */
export function nameNotNfcError(name: string, nfc: string): RegistryError {
  return new RegistryError(
    "NAME_NOT_NFC",
    `record name ${spelled(name)} is not in Unicode NFC; records are written only under NFC names: use its NFC form ${spelled(nfc)}`,
    { name, nfc },
  );
}

/**
 * Checks that a record may be written under `name`: the name is in NFC.
 * @throws RegistryError `NAME_NOT_NFC` naming the NFC form.
 */
export function requireNfcName(name: string): void {
  const nfc = nfcFormOf(name);
  if (nfc !== undefined) throw nameNotNfcError(name, nfc);
}

/** The notice of an answer about a name that is not in NFC (undefined for an NFC name). */
export function nameNotice(name: string): { nfc: string; notice: string } | undefined {
  const nfc = nfcFormOf(name);
  if (nfc === undefined) return undefined;
  return {
    nfc,
    notice: `the name ${spelled(name)} is not in Unicode NFC: this answer is about that exact spelling; names compare by code point and records are written only under NFC names, so ask about its NFC form ${spelled(nfc)}`,
  };
}

/**
 * Why a claim that `name` holds a live record is refused (undefined for an NFC name): the
 * counterparty checks apply the write rule, so no record is accepted under a name not in NFC.
 */
export function nonNfcClaimReason(name: string): string | undefined {
  const nfc = nfcFormOf(name);
  return nfc === undefined
    ? undefined
    : `the claim is that ${spelled(name)} holds a live record, but that name is not in Unicode NFC: records are written only under NFC names, so none is accepted under this spelling; its NFC form is ${spelled(nfc)}`;
}
