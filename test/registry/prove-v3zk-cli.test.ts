/**
 * `ssgkr registry prove … --zk` and `registry prove-block --profile v3 --zk` as a counterparty
 * and an auditor run them: the directory holds the proof and the public statement only; the
 * printed check line accepts (exit 0) and says the proof is zero-knowledge; a lie or a damaged
 * proof is a REJECT (exit 1), never a usage error; `--zk` with `--profile v1` or `v2` is a usage
 * error naming the option (exit 2).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { NameStore } from "../../src/registry/store/name-store.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { formatRoot } from "../../src/registry/root.js";
import { hasV3ZkEncoding } from "../../src/codec/v3/message.js";
import { runCli } from "./support/run-cli.js";
import { tempDir } from "./support/tmp.js";

/** The argv of a printed `check: ssgkr …` line (single-quoted words as the CLI quotes them). */
function checkArgs(out: string): string[] {
  const line = out.split("\n").find((l) => l.startsWith("check: ssgkr "))!;
  assert.ok(line, `a check line in:\n${out}`);
  const words = line.slice("check: ssgkr ".length).match(/'[^']*'|\S+/g)!;
  return words.map((w) => (w.startsWith("'") ? w.slice(1, -1) : w));
}

test("registry prove --zk: proof.bin and statement.json only; the check line accepts with profile=v3-zk; lies and damaged bytes REJECT with exit 1; --zk with --profile v1 exits 2", async () => {
  const base = tempDir();
  const db = join(base, "db");
  const store = NameStore.openOrCreate(db, { depth: 16 });
  planNameUpdate(store, "insert", "left-pad", "https://github.com/left-pad/left-pad").commit();
  planNameUpdate(store, "insert", "right-pad", "https://github.com/right-pad/right-pad").commit();
  const r0 = formatRoot(store.head().root);
  await store.close();

  const out = join(base, "absent");
  const a = await runCli(
    "registry",
    "prove",
    "nonmembership",
    "--db",
    db,
    "--name",
    "center-pad",
    "--zk",
    "--out",
    out,
  );
  assert.equal(a.code, 0, a.err);
  assert.match(a.out, /^nonmembership name="center-pad" key=\d+ kind=nonmembership profile=v3-zk depth=16 bytes=\d+ /m);
  assert.deepEqual(readdirSync(out).sort(), ["proof.bin", "statement.json"], "no request.json: no witness leaves");
  const statement = JSON.parse(readFileSync(join(out, "statement.json"), "utf8")) as Record<string, unknown>;
  assert.deepEqual(
    Object.keys(statement).sort(),
    ["absent", "batch", "depth", "key", "kind", "leaf_max_fields", "name", "registry_mapping", "root"],
    "the statement holds public values only",
  );
  const proof = readFileSync(join(out, "proof.bin"));
  assert.ok(hasV3ZkEncoding(proof), "proof.bin is inner-proof-v3zk");
  const args = checkArgs(a.out);
  assert.ok(!args.includes("--request"), "the check line needs no request");
  const ok = await runCli(...args);
  assert.equal(ok.code, 0, ok.out + ok.err);
  assert.match(ok.out, /^ACCEPT name="center-pad" absent root=[0-9a-f]{64} profile=v3-zk\n$/);

  const verify = (...extra: string[]) =>
    runCli("registry", "verify", "--name", "center-pad", "--root", r0, "--depth", "16", ...extra);
  const lie = await verify("--value", "https://evil.example", "--proof", join(out, "proof.bin"));
  assert.deepEqual([lie.code, /^REJECT RECORD_ABSENT: /m.test(lie.out)], [1, true], lie.out + lie.err);
  const other = await runCli(
    "registry",
    "verify",
    "--name",
    "left-pad",
    "--absent",
    "--root",
    r0,
    "--depth",
    "16",
    "--proof",
    join(out, "proof.bin"),
  );
  assert.deepEqual([other.code, /^REJECT PUBLIC_INPUTS_MISMATCH: /m.test(other.out)], [1, true], other.out);
  for (const [what, bytes, code] of [
    ["byte 8 flipped", Buffer.from(proof.map((b, i) => (i === 8 ? b ^ 1 : b))), /^REJECT DECODE_\w+: /m],
    ["empty", Buffer.alloc(0), /^REJECT DECODE_\w+: /m],
    ["truncated", proof.subarray(0, proof.length - 9), /^REJECT DECODE_\w+: /m],
    [
      "a byte near the end flipped",
      Buffer.from(proof.map((b, i) => (i === proof.length - 40 ? b ^ 1 : b))),
      /^REJECT /m,
    ],
  ] as const) {
    const f = join(base, `bad-${what.replace(/\W+/g, "-")}.bin`);
    writeFileSync(f, bytes);
    const r = await verify("--absent", "--proof", f);
    assert.equal(r.code, 1, `${what}: a damaged proof is a REJECT, not a usage error: ${r.out}${r.err}`);
    assert.match(r.out, code, what);
  }

  // an update: a delete, checked with the old side as a record
  const u = await runCli(
    "registry",
    "prove",
    "delete",
    "--db",
    db,
    "--name",
    "right-pad",
    "--zk",
    "--out",
    join(base, "u"),
  );
  assert.equal(u.code, 0, u.err);
  assert.deepEqual(readdirSync(join(base, "u")).sort(), ["proof.bin", "statement.json"]);
  const uArgs = checkArgs(u.out);
  assert.ok(uArgs.includes("--old-record"), uArgs.join(" "));
  const uOk = await runCli(...uArgs);
  assert.equal(uOk.code, 0, uOk.out + uOk.err);
  assert.match(uOk.out, /^ACCEPT name="right-pad" old=record new=absent .* profile=v3-zk\n$/);

  for (const profile of ["v1", "v2"]) {
    const bad = await runCli(
      "registry",
      "prove",
      "membership",
      "--db",
      db,
      "--name",
      "left-pad",
      "--zk",
      "--profile",
      profile,
      "--out",
      join(base, `bad-${profile}`),
    );
    assert.equal(bad.code, 2, bad.out + bad.err);
    assert.match(bad.err, profile === "v1" ? /^error BAD_OPTION: --zk: / : /^error BAD_OPTION: --profile /m);
  }
  // the default is unchanged: compat-v1 with its request
  const v1 = await runCli(
    "registry",
    "prove",
    "membership",
    "--db",
    db,
    "--name",
    "left-pad",
    "--out",
    join(base, "v1"),
  );
  assert.equal(v1.code, 0, v1.err);
  assert.match(v1.out, / profile=v1 /);
  assert.deepEqual(readdirSync(join(base, "v1")).sort(), ["proof.bin", "request.json", "statement.json"]);
});

test("registry prove-block --profile v3 --zk: block.json and block.bin of a zero-knowledge block; verify-block accepts it as profile v3-zk and rejects a changed list; --zk with --profile v2 exits 2", async () => {
  const base = tempDir();
  const db = join(base, "db");
  const store = NameStore.openOrCreate(db, { depth: 16 });
  planNameUpdate(store, "insert", "left-pad", "https://github.com/left-pad/left-pad").commit();
  await store.close();
  const updates = join(base, "u.ndjson");
  writeFileSync(
    updates,
    [
      { op: "insert", name: "right-pad", value: "https://github.com/right-pad/right-pad" },
      { op: "replace", name: "left-pad", value: "https://gitlab.com/lp/lp" },
    ]
      .map((u) => JSON.stringify(u))
      .join("\n") + "\n",
  );
  const v2 = await runCli(
    "registry",
    "prove-block",
    "--db",
    db,
    "--updates",
    updates,
    "--profile",
    "v2",
    "--zk",
    "--out",
    join(base, "x"),
  );
  assert.equal(v2.code, 2, v2.out + v2.err);
  assert.match(v2.err, /^error BAD_OPTION: --zk: /);

  const dir = join(base, "block");
  const b = await runCli(
    "registry",
    "prove-block",
    "--db",
    db,
    "--updates",
    updates,
    "--profile",
    "v3",
    "--zk",
    "--out",
    dir,
  );
  assert.equal(b.code, 0, b.err);
  assert.match(b.out, /^block profile=v3-zk batch=\d+ operations=2 /);
  assert.deepEqual(readdirSync(dir).sort(), ["block.bin", "block.json"]);
  assert.ok(hasV3ZkEncoding(readFileSync(join(dir, "block.bin"))));
  const args = checkArgs(b.out);
  const ok = await runCli(...args);
  assert.equal(ok.code, 0, ok.out + ok.err);
  assert.match(ok.out, /^ACCEPT block profile=v3-zk operations=2 /);

  const json = JSON.parse(readFileSync(join(dir, "block.json"), "utf8")) as { updates: { value?: string }[] };
  json.updates[1]!.value = "https://evil.example/lp";
  writeFileSync(join(dir, "block.json"), JSON.stringify(json));
  const changed = await runCli(...args);
  assert.equal(changed.code, 1, changed.out + changed.err);
  assert.match(changed.out, /^REJECT PUBLIC_INPUTS_MISMATCH: /);
});
