/**
 * The registry commands' shared reading of options: the retention options, integer options, the record named by --name or --slot, and the value of --value, --null or --fields.
 */
import { CliError } from "../errors.js";
import type { Retention } from "../../registry/store/name-versions.js";
import { type RecordTarget } from "../../registry/operations.js";
import { type RecordValue } from "../../registry/mapping.js";
import { RegistryError } from "../../registry/errors.js";
import { NAME_MAPPING_ID } from "../../registry/name-key.js";

/** The retention options `--keep-commits` and `--keep-days`, or undefined when neither is given. */
export function retentionOptions(opts: { keepCommits?: string; keepDays?: string }): Partial<Retention> | undefined {
  if (opts.keepCommits === undefined && opts.keepDays === undefined) return undefined;
  const days = opts.keepDays === undefined ? undefined : Number(opts.keepDays);
  if (days !== undefined && (!/^[0-9]+(\.[0-9]+)?$/.test(opts.keepDays!) || !Number.isFinite(days)))
    throw new CliError(
      "BAD_OPTION",
      `--keep-days must be a number ≥ 0, got ${JSON.stringify(opts.keepDays)}`,
      undefined,
      { option: "--keep-days" },
    );
  return {
    ...(opts.keepCommits !== undefined ? { commits: integerOption("--keep-commits", opts.keepCommits, 0) } : {}),
    ...(days !== undefined ? { days } : {}),
  };
}

export function integerOption(flag: string, text: string, min: number): number {
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < min) {
    throw new CliError("BAD_OPTION", `${flag} must be an integer ≥ ${min}, got ${JSON.stringify(text)}`, undefined, {
      option: flag,
    });
  }
  return Number(text);
}

export function nameOnly(command: string, opts: { name?: string; slot?: string }): string {
  if (opts.slot !== undefined)
    throw new CliError(
      "USAGE",
      `registry ${command}: this registry is name-keyed (${NAME_MAPPING_ID}): records are addressed by --name, not --slot`,
    );
  if (opts.name === undefined) throw new CliError("MISSING_OPTION", `registry ${command}: --name N is required`);
  return opts.name;
}

export function targetOf(command: string, opts: { name?: string; slot?: string }): RecordTarget {
  if ((opts.name === undefined) === (opts.slot === undefined))
    throw new CliError("USAGE", `registry ${command}: give exactly one of --name N and --slot S`);
  if (opts.name !== undefined) return { name: opts.name };
  if (!/^[0-9]+$/.test(opts.slot!) || !Number.isSafeInteger(Number(opts.slot))) {
    throw new RegistryError(
      "SLOT_OUT_OF_RANGE",
      `--slot must be a non-negative integer, got ${JSON.stringify(opts.slot)}`,
    );
  }
  return { slot: Number(opts.slot) };
}

export function valueOf(
  kind: string,
  opts: { value?: string; null?: boolean; fields?: string },
): RecordValue | undefined {
  const given = [opts.value !== undefined, opts.null === true, opts.fields !== undefined].filter(Boolean).length;
  if (kind === "delete") return undefined;
  if (given > 1 || (given === 0 && kind !== "restore"))
    throw new CliError("USAGE", `registry ${kind}: give exactly one of --value TEXT, --null and --fields LIST`);
  if (opts.null) return null;
  if (opts.value !== undefined) return opts.value;
  if (opts.fields !== undefined) {
    const parts = opts.fields.trim() === "" ? [] : opts.fields.split(",").map((s) => s.trim());
    const fields = parts.map((p, i) => {
      if (!/^[0-9]+$/.test(p))
        throw new RegistryError(
          "BAD_VALUE",
          `--fields element ${i} ${JSON.stringify(p)} is not a non-negative integer`,
        );
      return Number(p);
    });
    return { fields };
  }
  return undefined;
}
