import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tempDir, tempFile } from "./support/tmp.js";
import { runCli } from "./support/run-cli.js";

/** Runs the CLI in-process; returns exit code and captured output. */
const run = runCli;

const oneLine = (s: string) => s.trimEnd().split("\n").length === 1;

test("registry CLI: import, root, get, history, updates; bad input → exit 2 with one line and an unchanged database", async () => {
  const db = join(tempDir(), "db");
  const imp = await run(
    "registry",
    "import",
    "--db",
    db,
    "--source",
    "npm-repos",
    "--limit",
    "300",
    "--threads",
    "0",
    "--mapping",
    "slot-v1",
    "--json",
  );
  assert.equal(imp.code, 0, imp.err);
  const report = JSON.parse(imp.out);
  assert.equal(report.imported, 300);

  const root = await run("registry", "root", "--db", db, "--json");
  assert.equal(root.code, 0);
  assert.deepEqual(JSON.parse(root.out).root, report.root);

  const got = await run("registry", "get", "--db", db, "--name", "1", "--json");
  assert.equal(got.code, 0, got.err);
  const g = JSON.parse(got.out);
  assert.equal(g.slot, 1);
  assert.equal(g.status, "live");
  assert.equal(g.value, "https://github.com/IndigoUnited/node-1");
  assert.equal(g.pathVerified, true);
  const empty = JSON.parse((await run("registry", "get", "--db", db, "--slot", "5000", "--json")).out);
  assert.equal(empty.status, "never used");
  assert.equal(empty.pathVerified, true);

  const state = async () => (await run("registry", "history", "--db", db, "--json")).out;
  const before = await state();
  const bad: [string[], string][] = [
    [["registry", "get", "--db", db, "--name", "no-such-package-xyz"], "NAME_NOT_FOUND"],
    [["registry", "get", "--db", db, "--slot", "16777216"], "SLOT_OUT_OF_RANGE"],
    [["registry", "get", "--db", db, "--slot", "-3"], "SLOT_OUT_OF_RANGE"],
    [["registry", "insert", "--db", db, "--name", "1", "--null"], "NAME_EXISTS"],
    [["registry", "delete", "--db", db, "--slot", "299999"], "RECORD_ABSENT"],
    [["registry", "restore", "--db", db, "--name", "1"], "RECORD_LIVE"],
    [
      ["registry", "insert", "--db", db, "--name", "big", "--fields", new Array(21).fill("7").join(",")],
      "VALUE_TOO_LARGE",
    ],
    [["registry", "root", "--db", join(db, "..", "absent")], "DB_MISSING"],
  ];
  for (const [args, c] of bad) {
    const r = await run(...args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
    assert.ok(oneLine(r.err) && r.err.startsWith(`error ${c}:`), `${args.join(" ")} → ${JSON.stringify(r.err)}`);
  }
  assert.equal(await state(), before, "bad input changed the database");
  const usage = await run("registry", "get", "--db", db, "--name", "a", "--slot", "1");
  assert.equal(usage.code, 2);
  assert.ok(oneLine(usage.err));

  const del = await run("registry", "delete", "--db", db, "--name", "1", "--json");
  assert.equal(del.code, 0, del.err);
  assert.equal(JSON.parse(del.out).newLeaf.tag, 2);
  const gone = JSON.parse((await run("registry", "get", "--db", db, "--slot", "1", "--json")).out);
  assert.equal(gone.status, "deleted");
  assert.equal(
    (await run("registry", "insert", "--db", db, "--name", "1", "--value", "x")).err.split(":")[0],
    "error NAME_DELETED",
  );
  const res = await run(
    "registry",
    "restore",
    "--db",
    db,
    "--name",
    "1",
    "--value",
    "https://gitlab.com/x/y",
    "--json",
  );
  assert.equal(res.code, 0, res.err);
  assert.equal(JSON.parse(res.out).newLeaf.payload[0], 2);
  const hist = (await state())
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    hist.map((h) => h.kind),
    ["create", "import", "delete", "restore"],
  );
});

test("registry import CLI: malformed lines reported with line numbers; fail → exit 2 and nothing written, skip → exit 0", async () => {
  const file = tempFile("r.csv", 'name,value\na,https://github.com/a\nb,x"y\nc,\n');
  const db = join(tempDir(), "db");
  const fail = await run("registry", "import", "--db", db, "--file", file, "--threads", "0");
  assert.equal(fail.code, 2);
  assert.match(fail.err, /^line 3: BAD_RECORD: /m);
  assert.match(fail.err.trimEnd().split("\n").at(-1)!, /^error IMPORT_REJECTED: 1 malformed record/);
  assert.equal(existsSync(db), false, "a rejected import into a new registry leaves no registry behind");
  // Into an empty directory that exists: the directory stays, empty.
  const emptyDir = tempDir();
  assert.equal((await run("registry", "import", "--db", emptyDir, "--file", file, "--threads", "0")).code, 2);
  assert.deepEqual(readdirSync(emptyDir), []);
  // A retry with another mapping is not refused by a registry the failed run left.
  const asSlots = ["--mapping", "slot-v1", "--on-error", "skip"];
  const retry = await run("registry", "import", "--db", db, "--file", file, ...asSlots);
  assert.equal(retry.code, 0, retry.err);
  rmSync(db, { recursive: true, force: true });
  const skip = await run("registry", "import", "--db", db, "--file", file, "--threads", "0", "--on-error", "skip");
  assert.equal(skip.code, 0, skip.err);
  assert.match(skip.err, /^line 3: BAD_RECORD: /m);
  assert.match(skip.out, /imported 2 records/);
  const missing = await run(
    "registry",
    "import",
    "--db",
    join(tempDir(), "x"),
    "--file",
    join(tempDir(), "none.ndjson"),
  );
  assert.equal(missing.code, 2);
  assert.match(missing.err, /^error BAD_SOURCE: /);
  const both = await run("registry", "import", "--db", db);
  assert.equal(both.code, 2);
});
