/**
 * `ssgkr registry verify --name N (--value V | --null | --fields LIST | --absent) (--root R | --checkpoint F --key K) [--request F] --proof F`
 * (or the `--old-…`/`--new-…` options of an update): the counterparty's one-call check of a proof
 * about a name; prints ACCEPT (exit 0) or REJECT CODE: reason (exit 1).
 */
import type { Command } from "commander";
import { CliExit, EXIT_OK, EXIT_VERDICT } from "../../exit.js";
import { CliError } from "../../errors.js";
import { readFileOrExit } from "../../io.js";
import { MAX_CONFIG_DEPTH, MAX_CONFIG_LEAF_MAX_FIELDS } from "../../../sync/limits.js";
import { describeValue } from "../../../registry/mapping.js";
import { RegistryError } from "../../../registry/errors.js";
import { hasV3Encoding } from "../../../codec/v3/message.js";
import { parseVerifierKey } from "../../../registry/checkpoint/note.js";
import { parseRoot, verifyRecordProof, verifyRecordUpdateProof, type NameSide, type RecordVerdict } from "../../../registry/verify-record.js";
import { DEFAULT_NAME_DEPTH } from "../../../registry/name-key.js";
import { digestText } from "./output.js";

const MAX_REQUEST_BYTES = 16 << 20;
const MAX_PROOF_BYTES = 64 << 20;
/** A checkpoint is a few lines; a larger file is refused unread. */
const MAX_CHECKPOINT_BYTES = 64 << 10;

function readBounded(path: string, option: string, max: number): Buffer {
  return readFileOrExit(path, option, max, option === "--proof" ? "a proof file" : "a request file");
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

function sideOf(o: { value?: string; null?: boolean; fields?: string; absent?: boolean; record?: boolean }, prefix: string): NameSide {
  const given = [o.value !== undefined, o.null === true, o.fields !== undefined, o.absent === true, o.record === true].filter(Boolean).length;
  if (given !== 1) throw new CliError("USAGE", `registry verify: give exactly one of --${prefix}value TEXT, --${prefix}null, --${prefix}fields LIST${prefix === "old-" ? ", --old-record" : ""} and --${prefix}absent`);
  if (o.absent) return { absent: true };
  if (o.record) return { record: true };
  if (o.null) return { value: null };
  if (o.value !== undefined) return { value: o.value };
  const parts = o.fields!.trim() === "" ? [] : o.fields!.split(",").map((s) => s.trim());
  return {
    value: {
      fields: parts.map((p, i) => {
        if (!/^[0-9]+$/.test(p)) throw new RegistryError("BAD_VALUE", `--${prefix}fields element ${i} ${JSON.stringify(p)} is not a non-negative integer`);
        return Number(p);
      }),
    },
  };
}

const sideText = (s: NameSide) => ("absent" in s ? "absent" : "record" in s ? "record" : describeValue(s.value));

function intOpt(flag: string, text: string, min: number, max: number): number {
  if (!/^[0-9]+$/.test(text) || Number(text) < min || Number(text) > max) throw new CliError("BAD_OPTION", `registry verify: ${flag} must be an integer in [${min}, ${max}], got ${JSON.stringify(text)}`);
  return Number(text);
}

/** `ssgkr registry verify`: the counterparty's one-call check of a proof about a name. */
export function registerVerify(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("verify")
    .description("check a proof about a name against a root you trust (name-keyed registries): prints ACCEPT (exit 0) or REJECT CODE: reason (exit 1)")
    .requiredOption("--name <name>", "the record name")
    .option("--value <text>", "claim: the name holds this text value")
    .option("--null", "claim: the name holds the null value")
    .option("--fields <list>", "claim: the name holds these field elements")
    .option("--absent", "claim: the name is not registered (never registered or deleted)")
    .option("--root <digest>", "the root you trust: 64 hex characters as `ssgkr registry root` prints it, or its 8 elements as a,b,… or [a, b, …]")
    .option("--old-value <text>", "update: the value before").option("--old-null", "update: null before").option("--old-fields <list>", "update: field elements before").option("--old-absent", "update: absent before (insert, restore)").option("--old-record", "update: a record of the name before, whatever its value (what a profile v3 replace or delete proves)")
    .option("--new-value <text>", "update: the value after").option("--new-null", "update: null after").option("--new-fields <list>", "update: field elements after").option("--new-absent", "update: absent after (delete)")
    .option("--old-root <digest>", "update: the root you trust before the update")
    .option("--new-root <digest>", "update: the root after the update you are told of")
    .option("--checkpoint <file>", "a signed checkpoint (GET /v1/checkpoint, `ssgkr registry checkpoint`) whose root is trusted once its signature by --key verifies: in place of --root (or, for an update, of --old-root)")
    .option("--key <verifierkey>", "the verifier key NAME+HASH+KEY the checkpoint must be signed by (`ssgkr registry keygen` prints it)")
    .option("--request <file>", "request.json of the proof (compat-v1 proofs; a profile v3 proof is checked without it)")
    .requiredOption("--proof <file>", "proof.bin (inner-proof-v1, or inner-proof-v3: the profile is read from the proof)")
    .option("--depth <d>", "registry depth", String(DEFAULT_NAME_DEPTH))
    .option("--leaf-max-fields <b>", "registry leaf bound", "31")
    .action((opts: VerifyOpts) => {
      const depth = intOpt("--depth", opts.depth, 1, MAX_CONFIG_DEPTH);
      const leafMaxFields = intOpt("--leaf-max-fields", opts.leafMaxFields, 10, MAX_CONFIG_LEAF_MAX_FIELDS);
      const update = opts.oldRoot !== undefined || opts.newRoot !== undefined;
      if (opts.key !== undefined && opts.checkpoint === undefined) throw new CliError("MISSING_OPTION", "registry verify: --key checks a --checkpoint; give the checkpoint file too");
      if (opts.checkpoint !== undefined && opts.key === undefined) throw new CliError("MISSING_OPTION", "registry verify: a --checkpoint is checked against the verifier key you trust; give --key NAME+HASH+KEY");
      if (opts.key !== undefined) parseVerifierKey(opts.key, "--key");
      const fromCheckpoint = opts.checkpoint !== undefined ? { checkpoint: readFileOrExit(opts.checkpoint, "--checkpoint", MAX_CHECKPOINT_BYTES, "a checkpoint file").toString("utf8"), verifierKey: opts.key! } : {};
      const checkpointWords = (v: RecordVerdict) => (v.ok && v.checkpoint ? ` checkpoint=${v.checkpoint.origin} size=${v.checkpoint.size}` : "");
      const proof = new Uint8Array(readBounded(opts.proof, "--proof", MAX_PROOF_BYTES));
      if (opts.request === undefined && !hasV3Encoding(proof)) throw new CliError("MISSING_OPTION", "registry verify: --request is required for a compat-v1 proof (only a profile v3 proof is checked from the statement alone)");
      const requestText = opts.request === undefined ? undefined : readBounded(opts.request, "--request", MAX_REQUEST_BYTES).toString("utf8");
      let verdict: RecordVerdict;
      let accepted: string;
      if (update) {
        if ((opts.oldRoot === undefined && opts.checkpoint === undefined) || opts.newRoot === undefined) throw new CliError("MISSING_OPTION", "registry verify: an update check needs --new-root and --old-root (or a --checkpoint of the root before it)");
        if (opts.root !== undefined || opts.value !== undefined || opts.null || opts.fields !== undefined || opts.absent) throw new CliError("USAGE", "registry verify: an update check takes --old-…/--new-… options, not --root/--value/--null/--fields/--absent");
        const old = sideOf({ value: opts.oldValue, null: opts.oldNull, fields: opts.oldFields, absent: opts.oldAbsent, record: opts.oldRecord }, "old-");
        const neu = sideOf({ value: opts.newValue, null: opts.newNull, fields: opts.newFields, absent: opts.newAbsent }, "new-");
        const trustedRoot = opts.oldRoot !== undefined ? parseRoot(opts.oldRoot, "--old-root") : undefined;
        const newRoot = parseRoot(opts.newRoot, "--new-root");
        verdict = verifyRecordUpdateProof({ ...(trustedRoot !== undefined ? { trustedRoot } : {}), ...fromCheckpoint, newRoot, name: opts.name, old, new: neu, depth, leafMaxFields }, requestText, proof);
        accepted = verdict.ok ? `ACCEPT name=${JSON.stringify(opts.name)} old=${sideText(old)} new=${sideText(neu)} old_root=${digestText(verdict.oldRoot)} new_root=${digestText(newRoot)}${checkpointWords(verdict)}` : "";
      } else {
        if (opts.root === undefined && opts.checkpoint === undefined) throw new CliError("MISSING_OPTION", "registry verify: --root (or --checkpoint with --key) is required (or --old-root and --new-root for an update)");
        const side = sideOf(opts, "");
        const trustedRoot = opts.root !== undefined ? parseRoot(opts.root, "--root") : undefined;
        verdict = verifyRecordProof({ ...(trustedRoot !== undefined ? { trustedRoot } : {}), ...fromCheckpoint, name: opts.name, ...side, depth, leafMaxFields } as never, requestText, proof);
        accepted = verdict.ok ? `ACCEPT name=${JSON.stringify(opts.name)} ${"value" in side ? `value=${describeValue(side.value)}` : "absent"} root=${digestText(verdict.oldRoot)}${checkpointWords(verdict)}` : "";
      }
      if (!verdict.ok) throw new CliExit(EXIT_VERDICT, `REJECT ${verdict.code}: ${verdict.reason}`, "stdout");
      process.stdout.write(accepted + "\n" + (verdict.nameNotice !== undefined ? `notice: ${verdict.nameNotice}\n` : ""));
      setExit(EXIT_OK);
    });
}
