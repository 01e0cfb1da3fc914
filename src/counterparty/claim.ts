/**
 * Statements about names, as a counterparty reads them: "N is registered with value V under root
 * R", "N holds no live record under R", and updates "N went from A to B, root R → R′". The JSON
 * form (`StatementJson`) is what the HTTP API returns beside each proof; `describeStatement`
 * says it in words.
 *
 * Every statement names its registry mapping (`registry_mapping`): `record-leaf-v2` (name-keyed,
 * the default: the tree key is the first `depth` bits of Keccak-256(name), so the root commits to
 * names and absence is provable for any name) or `record-leaf-v1` (slot registries: the tree key
 * is the slot the registry assigned). In both the leaf identity is Keccak-256(name).
 */
import { SsgkrError } from "../errors.js";
import type { RecordValue } from "../registry/mapping.js";
import { formatRoot, parseRoot } from "../registry/root.js";

/** A statement or claim that cannot be used (code `BAD_CLAIM`; `details.field` names the field). A root that cannot be read is `RegistryError` `BAD_ROOT` (`parseRoot`). */
export class ClaimError extends SsgkrError<ClaimErrorCode> {}

/** Every code a `ClaimError` carries (meanings in docs/errors.md). */
export const CLAIM_ERROR_CODES = ["BAD_CLAIM"] as const;

/** The code of a `ClaimError`. */
export type ClaimErrorCode = (typeof CLAIM_ERROR_CODES)[number];

/** Registry mappings of statements: name-keyed (`record-leaf-v2`) and slot (`record-leaf-v1`). */
export type StatementMapping = "record-leaf-v2" | "record-leaf-v1";
export const NAME_KEYED_MAPPING = "record-leaf-v2";
export const SLOT_MAPPING = "record-leaf-v1";
const MAPPINGS: readonly string[] = [NAME_KEYED_MAPPING, SLOT_MAPPING];

/** Registry facts a claim carries: its mapping (default `record-leaf-v1` when left out) and, for name-keyed claims, depth (default 48) and leaf bound (default 31). */
interface ClaimMapping {
  readonly mapping?: StatementMapping;
  readonly depth?: number;
  readonly leafMaxFields?: number;
}

/**
 * One side of a statement: a live record with its value, no live record, or (the old side of a
 * profile v3 replace or delete) a live record of the name whose value the statement does not state.
 */
export type RecordSide = { readonly value: RecordValue } | { readonly absent: true } | { readonly record: true };

/** What a counterparty checks a read proof against. */
export type RecordClaim =
  | (ClaimMapping & {
      readonly trustedRoot: ArrayLike<number> | string;
      readonly name: string;
      readonly value: RecordValue;
    })
  | (ClaimMapping & { readonly trustedRoot: ArrayLike<number> | string; readonly name: string; readonly absent: true });

/** What a counterparty checks an update proof against; `trustedRoot` is the root before the update. */
export interface UpdateClaim extends ClaimMapping {
  readonly trustedRoot: ArrayLike<number> | string;
  /** The root after the update (required for name-keyed claims; slot claims take the request's). */
  readonly newRoot?: ArrayLike<number> | string;
  readonly name: string;
  readonly old: RecordSide;
  readonly new: RecordSide;
}

/** Update operations of the registry. */
export type UpdateOp = "insert" | "replace" | "delete" | "restore";

/** Value as JSON: a text, null, or `{"fields": [..]}`. */
export type ValueJson = string | null | { readonly fields: readonly number[] };

/** A read statement as JSON (returned with every read proof). */
export interface ReadStatementJson {
  readonly registry_mapping: string;
  readonly kind: "membership" | "nonmembership";
  readonly name: string;
  readonly value?: ValueJson;
  readonly absent?: true;
  /** The root the proof is for: 64 hex characters (`formatRoot`). */
  readonly root: string;
  /** Slot registries: the slot. */
  readonly slot?: number;
  /** Name-keyed registries: the name's key (first `depth` bits of Keccak-256(name)), depth and leaf bound. */
  readonly key?: number;
  readonly depth?: number;
  readonly leaf_max_fields?: number;
  readonly batch?: number;
}

/** An update statement as JSON (returned by every write). */
export interface UpdateStatementJson {
  readonly registry_mapping: string;
  readonly kind: "update";
  readonly op: UpdateOp;
  readonly name: string;
  readonly old: { readonly value: ValueJson } | { readonly absent: true } | { readonly record: true };
  readonly new: { readonly value: ValueJson } | { readonly absent: true };
  /** The roots before and after the update: 64 hex characters each (`formatRoot`). */
  readonly old_root: string;
  readonly new_root: string;
  readonly slot?: number;
  readonly key?: number;
  readonly depth?: number;
  readonly leaf_max_fields?: number;
  readonly batch?: number;
}

/** A statement as JSON: a read or an update. */
export type StatementJson = ReadStatementJson | UpdateStatementJson;

export { formatRoot, parseRoot } from "../registry/root.js";
export { nameNotice } from "../registry/name-form.js";

/**
 * A value from JSON: a string, null or `{"fields": [..]}` (checked later against the leaf bound).
 * @throws ClaimError `BAD_CLAIM` naming `field`.
 */
export function valueOf(value: unknown, field = "value"): RecordValue {
  if (value === null || typeof value === "string") return value;
  if (
    typeof value === "object" &&
    value !== null &&
    Array.isArray((value as { fields?: unknown }).fields) &&
    Object.keys(value).length === 1
  ) {
    return { fields: (value as { fields: number[] }).fields.slice() };
  }
  throw new ClaimError("BAD_CLAIM", `${field}: a value is a text, null or {"fields": [..]}`, { field });
}

/** A record side from JSON (`{"value": …}`, `{"absent": true}` or `{"record": true}`). @throws ClaimError `BAD_CLAIM`. */
export function sideOf(value: unknown, field: string): RecordSide {
  if (typeof value === "object" && value !== null) {
    const v = value as Record<string, unknown>;
    if (v.absent === true && !("value" in v) && !("record" in v)) return { absent: true };
    if (v.record === true && !("value" in v) && !("absent" in v)) return { record: true };
    if ("value" in v && v.absent === undefined) return { value: valueOf(v.value, `${field}.value`) };
  }
  throw new ClaimError("BAD_CLAIM", `${field}: must be {"value": …}, {"absent": true} or {"record": true}`, { field });
}

/** JSON of a value (fields copied). */
export function valueJson(value: RecordValue): ValueJson {
  return value === null || typeof value === "string" ? value : { fields: [...value.fields] };
}

/** JSON of a record side. */
export function sideJson(side: RecordSide): { value: ValueJson } | { absent: true } | { record: true } {
  return "absent" in side ? { absent: true } : "record" in side ? { record: true } : { value: valueJson(side.value) };
}

/** Short text of a value: the text in quotes, `null`, or `fields[1, 2]`. */
export function valueWords(value: RecordValue): string {
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  return `fields[${value.fields.join(", ")}]`;
}

function sideWords(side: RecordSide): string {
  return "absent" in side
    ? "no live record"
    : "record" in side
      ? "a live record (value not stated)"
      : `value ${valueWords(side.value)}`;
}

/**
 * What a statement says, in words, e.g. `"left-pad" is registered with value "https://…" under
 * root 01000000…` (the root in hex).
 * @throws ClaimError `BAD_CLAIM` for a malformed statement.
 */
export function describeStatement(s: StatementJson): string {
  const name = JSON.stringify(s.name);
  if (s.kind === "update") {
    const from = sideOf(s.old, "old");
    const to = sideOf(s.new, "new");
    return `${s.op} of ${name}: ${sideWords(from)} → ${sideWords(to)}; root ${formatRoot(s.old_root)} → ${formatRoot(s.new_root)}`;
  }
  if (s.kind === "membership")
    return `${name} is registered with value ${valueWords(valueOf(s.value))} under root ${formatRoot(s.root)}`;
  if (s.registry_mapping === NAME_KEYED_MAPPING)
    return `${name} is not registered (never registered, or deleted) under root ${formatRoot(s.root)}`;
  return `${name} holds no live record${s.slot !== undefined ? ` (slot ${s.slot} is ${"never used or deleted"})` : ""} under root ${formatRoot(s.root)}`;
}

/**
 * The claim a statement makes, with the trusted root given (or the statement's own root when none
 * is given: then the check is only as good as the source of the statement).
 * @throws ClaimError `BAD_CLAIM` / RegistryError `BAD_ROOT` naming the field.
 */
export function claimOf(s: unknown, trustedRoot?: ArrayLike<number> | string): RecordClaim | UpdateClaim {
  if (typeof s !== "object" || s === null)
    throw new ClaimError("BAD_CLAIM", "statement: must be an object", { field: "statement" });
  const st = s as Record<string, unknown>;
  if (typeof st.registry_mapping !== "string" || !MAPPINGS.includes(st.registry_mapping)) {
    throw new ClaimError(
      "BAD_CLAIM",
      `statement.registry_mapping: must be ${MAPPINGS.map((m) => JSON.stringify(m)).join(" or ")}, got ${JSON.stringify(st.registry_mapping)}`,
      { field: "statement.registry_mapping" },
    );
  }
  const mapping = st.registry_mapping as StatementMapping;
  if (typeof st.name !== "string" || st.name.length === 0)
    throw new ClaimError("BAD_CLAIM", "statement.name: must be a non-empty string", { field: "statement.name" });
  const name = st.name;
  const facts: ClaimMapping = {
    mapping,
    ...(mapping === NAME_KEYED_MAPPING
      ? {
          depth: intOf(st.depth, "statement.depth"),
          leafMaxFields: intOf(st.leaf_max_fields, "statement.leaf_max_fields"),
        }
      : {}),
  };
  if (st.kind === "update") {
    const root =
      trustedRoot !== undefined ? parseRoot(trustedRoot, "trusted_root") : parseRoot(st.old_root, "statement.old_root");
    const neu = sideOf(st.new, "statement.new");
    if ("record" in neu)
      throw new ClaimError(
        "BAD_CLAIM",
        `statement.new: the new side of an update is {"value": …} or {"absent": true}`,
        { field: "statement.new" },
      );
    return {
      ...facts,
      trustedRoot: root,
      ...(mapping === NAME_KEYED_MAPPING ? { newRoot: parseRoot(st.new_root, "statement.new_root") } : {}),
      name,
      old: sideOf(st.old, "statement.old"),
      new: neu,
    };
  }
  const root =
    trustedRoot !== undefined ? parseRoot(trustedRoot, "trusted_root") : parseRoot(st.root, "statement.root");
  if (st.kind === "membership") {
    if (!("value" in st))
      throw new ClaimError("BAD_CLAIM", "statement.value: a membership statement names the value", {
        field: "statement.value",
      });
    return { ...facts, trustedRoot: root, name, value: valueOf(st.value, "statement.value") };
  }
  if (st.kind === "nonmembership") {
    if (st.absent !== true)
      throw new ClaimError("BAD_CLAIM", 'statement.absent: a non-membership statement has "absent": true', {
        field: "statement.absent",
      });
    return { ...facts, trustedRoot: root, name, absent: true };
  }
  throw new ClaimError(
    "BAD_CLAIM",
    `statement.kind: must be "membership", "nonmembership" or "update", got ${JSON.stringify(st.kind)}`,
    { field: "statement.kind" },
  );
}

/** A registry parameter of a name-keyed statement (depth, leaf bound): a positive integer, or undefined for the default. */
function intOf(v: unknown, field: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > 0xffff)
    throw new ClaimError("BAD_CLAIM", `${field}: must be a positive integer`, { field });
  return v;
}
