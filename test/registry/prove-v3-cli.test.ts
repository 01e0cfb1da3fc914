/**
 * `ssgkr registry prove … --profile v3` and `registry verify` as a counterparty runs them: the
 * directory holds proof.bin and statement.json only (no request, no sibling); the printed check
 * line accepts (exit 0); a lie or a damaged proof is a REJECT (exit 1) — damaged header bytes and
 * an empty proof included, which read as profile v3 when no request is given — never a usage
 * error; a replace verifies with --old-record.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { NameStore } from "../../src/registry/store/name-store.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { formatRoot } from "../../src/registry/root.js";
import { runCli } from "./support/run-cli.js";
import { tempDir } from "./support/tmp.js";

/** The argv of a printed `check: ssgkr …` line (single-quoted words as the CLI quotes them). */
function checkArgs(out: string): string[] {
  const line = out.split("\n").find((l) => l.startsWith("check: ssgkr "))!;
  assert.ok(line, `a check line in:\n${out}`);
  const words = line.slice("check: ssgkr ".length).match(/'[^']*'|\S+/g)!;
  return words.map((w) => (w.startsWith("'") ? w.slice(1, -1) : w));
}

test("registry prove --profile v3: proof.bin and statement.json only; the check line accepts; lies and damaged bytes REJECT with exit 1", async () => {
  const base = tempDir();
  const db = join(base, "db");
  const store = NameStore.openOrCreate(db, { depth: 16 });
  planNameUpdate(store, "insert", "left-pad", "https://github.com/left-pad/left-pad").commit();
  planNameUpdate(store, "insert", "right-pad", "https://github.com/right-pad/right-pad").commit();
  const r0 = formatRoot(store.head().root);
  await store.close();

  // the published root alone, for the file a verifier reads it from
  const hex = await runCli("registry", "root", "--db", db, "--hex");
  assert.deepEqual([hex.code, hex.out], [0, `${r0}\n`]);
  const both = await runCli("registry", "root", "--db", db, "--hex", "--json");
  assert.equal(both.code, 2);
  assert.match(both.err, /^error BAD_OPTION: --json and --hex exclude each other/m);

  const out = join(base, "m");
  writeFileSync(join(base, "stale.json"), "{}");
  const m = await runCli(
    "registry",
    "prove",
    "membership",
    "--db",
    db,
    "--name",
    "left-pad",
    "--profile",
    "v3",
    "--out",
    out,
  );
  assert.equal(m.code, 0, m.err);
  assert.deepEqual(
    readdirSync(out).sort(),
    ["proof.bin", "statement.json"],
    "no request.json: no witness leaves the prover",
  );
  const args = checkArgs(m.out);
  assert.ok(!args.includes("--request"), "the check line needs no request");
  const ok = await runCli(...args);
  assert.equal(ok.code, 0, ok.out + ok.err);
  assert.match(ok.out, /^ACCEPT /m);

  const proof = readFileSync(join(out, "proof.bin"));
  const verify = (...extra: string[]) =>
    runCli("registry", "verify", "--name", "left-pad", "--root", r0, "--depth", "16", ...extra);
  const lie = await verify("--value", "https://github.com/evil/left-pad", "--proof", join(out, "proof.bin"));
  assert.deepEqual([lie.code, /^REJECT PUBLIC_INPUTS_MISMATCH: /m.test(lie.out)], [1, true], lie.out + lie.err);
  for (const [what, bytes] of [
    ["byte 8 flipped", Buffer.from(proof.map((b, i) => (i === 8 ? b ^ 1 : b)))],
    ["byte 9 flipped", Buffer.from(proof.map((b, i) => (i === 9 ? b ^ 0x40 : b)))],
    ["empty", Buffer.alloc(0)],
    ["truncated to 5 bytes", proof.subarray(0, 5)],
  ] as const) {
    const f = join(base, `bad-${what.replace(/\W+/g, "-")}.bin`);
    writeFileSync(f, bytes);
    const r = await verify("--value", "https://github.com/left-pad/left-pad", "--proof", f);
    assert.equal(r.code, 1, `${what}: a damaged proof is a REJECT, not a usage error: ${r.out}${r.err}`);
    assert.match(r.out, /^REJECT DECODE_\w+: /m, what);
  }

  // a replace, checked with the old side as a record (its value is not stated)
  const u = await runCli(
    "registry",
    "prove",
    "replace",
    "--db",
    db,
    "--name",
    "right-pad",
    "--value",
    "https://gitlab.com/rp/rp",
    "--profile",
    "v3",
    "--out",
    join(base, "u"),
  );
  assert.equal(u.code, 0, u.err);
  const uArgs = checkArgs(u.out);
  assert.ok(uArgs.includes("--old-record"), uArgs.join(" "));
  const uOk = await runCli(...uArgs);
  assert.equal(uOk.code, 0, uOk.out + uOk.err);
  assert.equal(existsSync(join(base, "u", "request.json")), false);
});
