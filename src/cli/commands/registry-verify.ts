/**
 * `ssgkr registry verify`: the counterparty's check of a proof about a name against a root it
 * trusts (name-keyed registries).
 */
import type { Command } from "commander";
import { DEFAULT_NAME_DEPTH } from "../../registry/name-key.js";

/** `ssgkr registry verify`: the counterparty's one-call check of a proof about a name. */
export function registerRegistryVerify(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("verify")
    .description(
      "check a proof about a name against a root you trust (name-keyed registries): prints ACCEPT (exit 0) or REJECT CODE: reason (exit 1)",
    )
    .requiredOption("--name <name>", "the record name")
    .option("--value <text>", "claim: the name holds this text value")
    .option("--null", "claim: the name holds the null value")
    .option("--fields <list>", "claim: the name holds these field elements")
    .option("--absent", "claim: the name is not registered (never registered or deleted)")
    .option(
      "--root <digest>",
      "the root you trust: 64 hex characters as `ssgkr registry root` prints it, or its 8 elements as a,b,… or [a, b, …]",
    )
    .option("--old-value <text>", "update: the value before")
    .option("--old-null", "update: null before")
    .option("--old-fields <list>", "update: field elements before")
    .option("--old-absent", "update: absent before (insert, restore)")
    .option(
      "--old-record",
      "update: a record of the name before, whatever its value (what a profile v3 replace or delete proves)",
    )
    .option("--new-value <text>", "update: the value after")
    .option("--new-null", "update: null after")
    .option("--new-fields <list>", "update: field elements after")
    .option("--new-absent", "update: absent after (delete)")
    .option("--old-root <digest>", "update: the root you trust before the update")
    .option("--new-root <digest>", "update: the root after the update you are told of")
    .option(
      "--checkpoint <file>",
      "a signed checkpoint (GET /v1/checkpoint, `ssgkr registry checkpoint`) whose root is trusted once its signature by --key verifies: in place of --root (or, for an update, of --old-root)",
    )
    .option(
      "--key <verifierkey>",
      "the verifier key NAME+HASH+KEY the checkpoint must be signed by (`ssgkr registry keygen` prints it)",
    )
    .option(
      "--request <file>",
      "request.json of the proof (compat-v1 proofs; a profile v3 proof is checked without it)",
    )
    .requiredOption(
      "--proof <file>",
      "proof.bin (inner-proof-v1, or inner-proof-v3: the profile is read from the proof)",
    )
    .option("--depth <d>", "registry depth", String(DEFAULT_NAME_DEPTH))
    .option("--leaf-max-fields <b>", "registry leaf bound", "31")
    .action(async (opts) => (await import("./registry-verify-run.js")).runVerifyCommand(setExit, opts));
}
