/**
 * The implementation of `ssgkr registry verify`: the definitions (options, help) are in registry-
 * verify.ts, which imports this file only when the command runs.
 */
import { CliExit, EXIT_OK, EXIT_VERDICT } from "../exit.js";
import { CliError } from "../errors.js";
import { processDiskPreparedCache } from "../prepared-disk.js";
import { MAX_CONFIG_DEPTH, MAX_CONFIG_LEAF_MAX_FIELDS } from "../../sync/limits.js";
import { readFileOrExit } from "../io.js";
import { parseRequestText, type SyncRequest } from "../../sync/request.js";
import { SsgkrError } from "../../errors.js";
import { describeValue } from "../../registry/mapping.js";
import { RegistryError } from "../../registry/errors.js";
import { checkedFromStatement } from "../../codec/v3/message.js";
import { formatRoot } from "../../registry/root.js";
import { parseVerifierKey } from "../../registry/checkpoint/note.js";
import {
  parseRoot,
  verifyRecordProof,
  verifyRecordUpdateProof,
  type NameSide,
  type RecordVerdict,
} from "../../registry/verify-record.js";

const rootCompact = formatRoot;

const MAX_REQUEST_BYTES = 16 << 20;

const MAX_PROOF_BYTES = 64 << 20;

/** A checkpoint is a few lines; a larger file is refused unread. */
const MAX_CHECKPOINT_BYTES = 64 << 10;

function readBounded(path: string, option: string, max: number): Buffer {
  return readFileOrExit(path, option, max, option === "--proof" ? "a proof file" : "a request file");
}

/** The request in a `--request` file. @throws CliError `REQUEST_JSON` / `REQUEST_SCHEMA` naming the file and the JSON path. */
function parsedRequest(bytes: Buffer, path: string): SyncRequest {
  try {
    return parseRequestText(bytes.toString("utf8"));
  } catch (err) {
    if (err instanceof SsgkrError)
      throw CliError.naming(err, `--request ${path}: ${err.message}`, undefined, {
        ...err.details,
        option: "--request",
        path,
      });
    throw err;
  }
}

interface VerifyOpts {
  name: string;
  value?: string;
  null?: boolean;
  fields?: string;
  absent?: boolean;
  root?: string;
  oldValue?: string;
  oldNull?: boolean;
  oldFields?: string;
  oldAbsent?: boolean;
  oldRecord?: boolean;
  newValue?: string;
  newNull?: boolean;
  newFields?: string;
  newAbsent?: boolean;
  oldRoot?: string;
  newRoot?: string;
  checkpoint?: string;
  key?: string;
  request?: string;
  proof: string;
  depth: string;
  leafMaxFields: string;
}

function sideOf(
  o: { value?: string; null?: boolean; fields?: string; absent?: boolean; record?: boolean },
  prefix: string,
): NameSide {
  const given = [
    o.value !== undefined,
    o.null === true,
    o.fields !== undefined,
    o.absent === true,
    o.record === true,
  ].filter(Boolean).length;
  if (given !== 1)
    throw new CliError(
      "USAGE",
      `registry verify: give exactly one of --${prefix}value TEXT, --${prefix}null, --${prefix}fields LIST${prefix === "old-" ? ", --old-record" : ""} and --${prefix}absent`,
    );
  if (o.absent) return { absent: true };
  if (o.record) return { record: true };
  if (o.null) return { value: null };
  if (o.value !== undefined) return { value: o.value };
  const parts = o.fields!.trim() === "" ? [] : o.fields!.split(",").map((s) => s.trim());
  return {
    value: {
      fields: parts.map((p, i) => {
        if (!/^[0-9]+$/.test(p))
          throw new RegistryError(
            "BAD_VALUE",
            `--${prefix}fields element ${i} ${JSON.stringify(p)} is not a non-negative integer`,
          );
        return Number(p);
      }),
    },
  };
}

const sideText = (s: NameSide) => ("absent" in s ? "absent" : "record" in s ? "record" : describeValue(s.value));

function intOpt(flag: string, text: string, min: number, max: number): number {
  if (!/^[0-9]+$/.test(text) || Number(text) < min || Number(text) > max)
    throw new CliError(
      "BAD_OPTION",
      `registry verify: ${flag} must be an integer in [${min}, ${max}], got ${JSON.stringify(text)}`,
    );
  return Number(text);
}

/** The action of `ssgkr verify`, with what commander parsed (the command's definition is in registry-verify.ts). */
export async function runVerifyCommand(setExit: (code: number) => void, opts: VerifyOpts): Promise<void> {
  const depth = intOpt("--depth", opts.depth, 1, MAX_CONFIG_DEPTH);
  const leafMaxFields = intOpt("--leaf-max-fields", opts.leafMaxFields, 10, MAX_CONFIG_LEAF_MAX_FIELDS);
  const update = opts.oldRoot !== undefined || opts.newRoot !== undefined;
  if (opts.key !== undefined && opts.checkpoint === undefined)
    throw new CliError("MISSING_OPTION", "registry verify: --key checks a --checkpoint; give the checkpoint file too");
  if (opts.checkpoint !== undefined && opts.key === undefined)
    throw new CliError(
      "MISSING_OPTION",
      "registry verify: a --checkpoint is checked against the verifier key you trust; give --key NAME+HASH+KEY",
    );
  if (opts.key !== undefined) parseVerifierKey(opts.key, "--key");
  const fromCheckpoint =
    opts.checkpoint !== undefined
      ? {
          checkpoint: readFileOrExit(
            opts.checkpoint,
            "--checkpoint",
            MAX_CHECKPOINT_BYTES,
            "a checkpoint file",
          ).toString("utf8"),
          verifierKey: opts.key!,
        }
      : {};
  const checkpointWords = (v: RecordVerdict) =>
    (v.ok && v.checkpoint ? ` checkpoint=${v.checkpoint.origin} size=${v.checkpoint.size}` : "") +
    // a zero-knowledge proof says so (the v1 and v3 lines keep their form)
    (v.ok && v.profile === "v3-zk" ? " profile=v3-zk" : "");
  const proof = new Uint8Array(readBounded(opts.proof, "--proof", MAX_PROOF_BYTES));
  if (opts.request === undefined && !checkedFromStatement(proof, false))
    throw new CliError(
      "MISSING_OPTION",
      "registry verify: --request is required for a compat-v1 proof (only a profile v3 proof is checked from the statement alone)",
    );
  // A request file that is not a request is bad input (exit 2, as `ssgkr verify` answers it), not a
  // verdict; the verifier takes the request parsed here.
  const request =
    opts.request === undefined
      ? undefined
      : parsedRequest(readBounded(opts.request, "--request", MAX_REQUEST_BYTES), opts.request);
  let verdict: RecordVerdict;
  let accepted: string;
  if (update) {
    if ((opts.oldRoot === undefined && opts.checkpoint === undefined) || opts.newRoot === undefined)
      throw new CliError(
        "MISSING_OPTION",
        "registry verify: an update check needs --new-root and --old-root (or a --checkpoint of the root before it)",
      );
    if (opts.root !== undefined || opts.value !== undefined || opts.null || opts.fields !== undefined || opts.absent)
      throw new CliError(
        "USAGE",
        "registry verify: an update check takes --old-…/--new-… options, not --root/--value/--null/--fields/--absent",
      );
    const old = sideOf(
      {
        value: opts.oldValue,
        null: opts.oldNull,
        fields: opts.oldFields,
        absent: opts.oldAbsent,
        record: opts.oldRecord,
      },
      "old-",
    );
    const neu = sideOf(
      { value: opts.newValue, null: opts.newNull, fields: opts.newFields, absent: opts.newAbsent },
      "new-",
    );
    const trustedRoot = opts.oldRoot !== undefined ? parseRoot(opts.oldRoot, "--old-root") : undefined;
    const newRoot = parseRoot(opts.newRoot, "--new-root");
    verdict = verifyRecordUpdateProof(
      {
        ...(trustedRoot !== undefined ? { trustedRoot } : {}),
        ...fromCheckpoint,
        newRoot,
        name: opts.name,
        old,
        new: neu,
        depth,
        leafMaxFields,
      },
      request,
      proof,
      { cache: processDiskPreparedCache() },
    );
    accepted = verdict.ok
      ? `ACCEPT name=${JSON.stringify(opts.name)} old=${sideText(old)} new=${sideText(neu)} old_root=${rootCompact(verdict.oldRoot)} new_root=${rootCompact(newRoot)}${checkpointWords(verdict)}`
      : "";
  } else {
    if (opts.root === undefined && opts.checkpoint === undefined)
      throw new CliError(
        "MISSING_OPTION",
        "registry verify: --root (or --checkpoint with --key) is required (or --old-root and --new-root for an update)",
      );
    const side = sideOf(opts, "");
    const trustedRoot = opts.root !== undefined ? parseRoot(opts.root, "--root") : undefined;
    verdict = verifyRecordProof(
      {
        ...(trustedRoot !== undefined ? { trustedRoot } : {}),
        ...fromCheckpoint,
        name: opts.name,
        ...side,
        depth,
        leafMaxFields,
      } as never,
      request,
      proof,
      { cache: processDiskPreparedCache() },
    );
    accepted = verdict.ok
      ? `ACCEPT name=${JSON.stringify(opts.name)} ${"value" in side ? `value=${describeValue(side.value)}` : "absent"} root=${rootCompact(verdict.oldRoot)}${checkpointWords(verdict)}`
      : "";
  }
  if (!verdict.ok) throw new CliExit(EXIT_VERDICT, `REJECT ${verdict.code}: ${verdict.reason}`, "stdout");
  process.stdout.write(accepted + "\n" + (verdict.nameNotice !== undefined ? `notice: ${verdict.nameNotice}\n` : ""));
  setExit(EXIT_OK);
}
