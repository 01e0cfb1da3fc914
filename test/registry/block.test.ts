import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./support/tmp.js";
import { runCli } from "./support/run-cli.js";

const run = runCli;

const ndjson = (xs: object[]) => xs.map((x) => JSON.stringify(x)).join("\n") + "\n";
const rootOf = async (db: string): Promise<string> =>
  JSON.parse((await run("registry", "root", "--db", db, "--json")).out).root;
const historyOf = async (db: string) => (await run("registry", "history", "--db", db, "--json")).out;

const UPDATES = [
  { op: "insert", name: "block-new-package", value: "https://github.com/example/new" },
  { op: "replace", name: "1", value: "https://gitlab.com/x/one" },
  { op: "delete", name: "2" },
  { op: "restore", name: "2" },
  { op: "replace", name: "block-new-package", null: true },
  { op: "insert", name: "fields-package", fields: [1, 2, 3] },
];

test("registry prove-block / verify-block: an honest block is committed as one batch and accepted; tampered blocks are rejected with distinct codes", async () => {
  const base = tempDir();
  const db = join(base, "db");
  const imp = await run(
    "registry",
    "import",
    "--db",
    db,
    "--source",
    "npm-repos",
    "--limit",
    "40",
    "--threads",
    "0",
    "--depth",
    "16",
    "--json",
  );
  assert.equal(imp.code, 0, imp.err);
  const fromRoot = await rootOf(db);
  const spare = join(base, "spare");
  cpSync(db, spare, { recursive: true });

  const updates = join(base, "u.ndjson");
  writeFileSync(updates, ndjson(UPDATES) + ndjson([{ op: "delete", name: "3" }]));
  const out = join(base, "block");
  const proved = await run("registry", "prove-block", "--db", db, "--updates", updates, "--count", "6", "--out", out);
  assert.equal(proved.code, 0, proved.err);
  assert.match(proved.out, /^block profile=v2 batch=\d+ operations=6 bytes=\d+ /);
  assert.deepEqual(readdirSync(out).sort(), ["block.bin", "block.json", "requests.json"]);
  const toRoot = await rootOf(db);
  assert.notDeepEqual(toRoot, fromRoot);
  const block = JSON.parse(readFileSync(join(out, "block.json"), "utf8"));
  assert.equal(block.operations, 6);
  assert.deepEqual(block.from_root, fromRoot);
  assert.deepEqual(block.to_root, toRoot);
  assert.equal(block.updates[3].op, "restore");
  assert.equal(typeof block.updates[3].value, "string", "a restore lists the value it restored");
  const last = JSON.parse((await historyOf(db)).trim().split("\n").at(-1)!);
  assert.equal(last.kind, "block");
  assert.equal(last.written, 6);

  assert.match(fromRoot, /^[0-9a-f]{64}$/);
  const A = fromRoot,
    B = toRoot;
  const verify = (dir: string, a = A, b = B) =>
    run("registry", "verify-block", "--from-root", a, "--to-root", b, "--dir", dir);
  const ok = await verify(out);
  assert.equal(ok.code, 0, ok.out + ok.err);
  assert.match(ok.out, /^ACCEPT block profile=v2 operations=6 /);

  const codeOf = (r: { code: number; out: string }) =>
    r.code === 1 ? /^REJECT ([A-Za-z0-9_]+):/.exec(r.out)?.[1] : `exit ${r.code}: ${r.out}`;
  assert.equal(codeOf(await verify(out, B, B)), "FROM_ROOT_MISMATCH");
  assert.equal(codeOf(await verify(out, A, A)), "TO_ROOT_MISMATCH");

  // variants of the block directory
  let n = 0;
  const variant = (edit: (files: { block: any; requests: any[]; proof: Uint8Array }) => void): string => {
    const dir = join(base, `v${n++}`);
    mkdirSync(dir);
    const files = {
      block: JSON.parse(readFileSync(join(out, "block.json"), "utf8")),
      requests: JSON.parse(readFileSync(join(out, "requests.json"), "utf8")),
      proof: new Uint8Array(readFileSync(join(out, "block.bin"))),
    };
    edit(files);
    writeFileSync(join(dir, "block.json"), JSON.stringify(files.block));
    writeFileSync(join(dir, "requests.json"), JSON.stringify(files.requests));
    writeFileSync(join(dir, "block.bin"), files.proof);
    return dir;
  };
  const seen = new Set<string>();
  const expectCode = async (dir: string, code: string, a = A, b = B) => {
    const c = codeOf(await verify(dir, a, b));
    assert.equal(c, code, dir);
    seen.add(code);
  };
  // block.json says another value than the proved update
  await expectCode(
    variant((f) => {
      f.block.updates[1].value = "https://evil.example/one";
    }),
    "UPDATE_MISMATCH",
  );
  // an update dropped from the middle (both files): the chain breaks there
  await expectCode(
    variant((f) => {
      f.block.updates.splice(2, 1);
      f.requests.splice(2, 1);
    }),
    "CHAIN_BROKEN",
  );
  // two updates swapped (both files): the chain breaks
  await expectCode(
    variant((f) => {
      [f.block.updates[1], f.block.updates[2]] = [f.block.updates[2], f.block.updates[1]];
      [f.requests[1], f.requests[2]] = [f.requests[2], f.requests[1]];
    }),
    "CHAIN_BROKEN",
  );
  // a request dropped from requests.json only
  await expectCode(
    variant((f) => {
      f.requests.pop();
    }),
    "OPERATION_COUNT",
  );
  // the last update dropped from both files, the verifier told of its old root as to-root: the proof is for 6 operations
  const dropped = variant((f) => {
    f.block.updates.pop();
    f.requests.pop();
  });
  const droppedTo = JSON.parse(readFileSync(join(dropped, "requests.json"), "utf8"))
    .at(-1)
    .new_root.join(",");
  await expectCode(dropped, "OPERATION_COUNT", A, droppedTo);
  // a replaced update: an honest alternative last update made on a copy of the registry, in both files
  const alt = join(base, "alt.ndjson");
  writeFileSync(alt, ndjson([...UPDATES.slice(0, 5), { op: "insert", name: "fields-package", fields: [9, 9] }]));
  const altOut = join(base, "alt-block");
  assert.equal((await run("registry", "prove-block", "--db", spare, "--updates", alt, "--out", altOut)).code, 0);
  const altReq = JSON.parse(readFileSync(join(altOut, "requests.json"), "utf8")).at(-1);
  const altBlock = JSON.parse(readFileSync(join(altOut, "block.json"), "utf8"));
  await expectCode(
    variant((f) => {
      f.requests[5] = altReq;
      f.block.updates[5] = altBlock.updates[5];
    }),
    "PUBLIC_INPUTS_MISMATCH",
    A,
    altBlock.to_root,
  );
  // proofs: truncated, one byte flipped in the round polynomials, another block's proof
  await expectCode(
    variant((f) => {
      f.proof = f.proof.subarray(0, f.proof.length - 7);
    }),
    "DECODE_DeclaredLengthMismatch",
  );
  const flipped = variant((f) => {
    f.proof[f.proof.length - 40]! ^= 1;
  });
  const fc = codeOf(await verify(flipped));
  assert.match(fc ?? "", /^(GKR_|INPUT_CLAIM_|DECODE_)/);
  seen.add(fc!);
  await expectCode(
    variant((f) => {
      f.proof = new Uint8Array(readFileSync(join(altOut, "block.bin")));
    }),
    "PUBLIC_INPUTS_MISMATCH",
  );
  // malformed files
  await expectCode(
    variant((f) => {
      f.block = { ...f.block, profile: "v1" };
    }),
    "BLOCK_JSON",
  );
  await expectCode(
    variant((f) => {
      f.requests[0].siblings = [[1]];
    }),
    "REQUEST_SCHEMA",
  );
  assert.ok(seen.size >= 8, [...seen].join(" "));
  // a missing file is a usage error
  const missing = join(base, "missing");
  mkdirSync(missing);
  const m = await verify(missing);
  assert.equal(m.code, 2);
  assert.match(m.err, /^error CANNOT_READ: .*block\.json/);
});

test("registry prove-block: bad NDJSON lines are named by line number, a failing update names itself; nothing is committed or written", async () => {
  const base = tempDir();
  const db = join(base, "db");
  assert.equal(
    (
      await run(
        "registry",
        "import",
        "--db",
        db,
        "--source",
        "npm-repos",
        "--limit",
        "20",
        "--threads",
        "0",
        "--depth",
        "12",
      )
    ).code,
    0,
  );
  const before = await historyOf(db);
  const cases: [string, RegExp][] = [
    [ndjson(UPDATES.slice(0, 2)) + "{not json\n", /^error BAD_RECORD: --updates .*: line 3: not valid JSON/],
    [
      ndjson([UPDATES[0]!, { op: "upsert", name: "x" }]),
      /^error BAD_RECORD: .*line 2: "op" must be one of insert, replace, delete, restore/,
    ],
    ["\n" + ndjson([{ op: "insert", name: "x" }]), /^error BAD_RECORD: .*line 2: insert needs a value/],
    [ndjson([{ op: "delete", name: "x", value: "v" }]), /^error BAD_RECORD: .*line 1: delete takes no value/],
    [
      ndjson([{ op: "insert", name: "x", value: "v", colour: 1 }]),
      /^error BAD_RECORD: .*line 1: unknown field "colour"/,
    ],
    ["\n\n", /^error BAD_BLOCK: /],
    [
      ndjson([UPDATES[0]!, { op: "replace", name: "never-registered-name", value: "v" }]),
      /^error RECORD_ABSENT: update 2 \(replace "never-registered-name"\)/,
    ],
    [ndjson([UPDATES[0]!, UPDATES[0]!]), /^error NAME_EXISTS: update 2 /],
  ];
  for (const [text, want] of cases) {
    const u = join(base, `u${Math.random()}.ndjson`);
    writeFileSync(u, text);
    const out = join(base, "out");
    const r = await run("registry", "prove-block", "--db", db, "--updates", u, "--out", out);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, want);
    assert.equal(r.err.trimEnd().split("\n").length, 1);
    assert.equal(existsSync(out), false);
    assert.equal(readdirSync(base).filter((e) => e.startsWith(".out")).length, 0, "no hidden build directory stays");
    assert.equal(await historyOf(db), before);
  }
  const full = join(base, "full");
  mkdirSync(full);
  writeFileSync(join(full, "x"), "");
  const u = join(base, "ok.ndjson");
  writeFileSync(u, ndjson([UPDATES[0]!]));
  const r = await run("registry", "prove-block", "--db", db, "--updates", u, "--out", full);
  assert.equal(r.code, 2);
  assert.match(r.err, /^error OUT_EXISTS: /);
  assert.match(
    (await run("registry", "prove-block", "--db", db, "--updates", u, "--count", "0", "--out", join(base, "o2"))).err,
    /^error BAD_OPTION: --count/,
  );
  assert.equal(await historyOf(db), before);
});

test("registry prove-block --profile v3: block.bin and block.json only; verify-block reads the profile from the proof and checks the block from the roots and block.json alone", async () => {
  const base = tempDir();
  const db = join(base, "db");
  const imp = await run(
    "registry",
    "import",
    "--db",
    db,
    "--source",
    "npm-repos",
    "--limit",
    "40",
    "--threads",
    "0",
    "--depth",
    "16",
    "--json",
  );
  assert.equal(imp.code, 0, imp.err);
  const A = await rootOf(db);
  const updates = join(base, "u.ndjson");
  writeFileSync(updates, ndjson(UPDATES));
  const out = join(base, "block");
  const proved = await run(
    "registry",
    "prove-block",
    "--db",
    db,
    "--updates",
    updates,
    "--profile",
    "v3",
    "--out",
    out,
  );
  assert.equal(proved.code, 0, proved.err);
  assert.match(proved.out, /^block profile=v3 batch=\d+ operations=6 bytes=\d+ /);
  assert.deepEqual(readdirSync(out).sort(), ["block.bin", "block.json"], "no witness file");
  const B = await rootOf(db);
  const block = JSON.parse(readFileSync(join(out, "block.json"), "utf8"));
  assert.equal(block.profile, "v3");
  const check = /check: (ssgkr registry verify-block .*)$/m.exec(proved.out)?.[1];
  assert.ok(check, proved.out);
  const verify = (dir: string, a = A, b = B) =>
    run("registry", "verify-block", "--from-root", a, "--to-root", b, "--dir", dir);
  const ok = await verify(out);
  assert.equal(ok.code, 0, ok.out + ok.err);
  assert.match(ok.out, /^ACCEPT block profile=v3 operations=6 /);
  const codeOf = (r: { code: number; out: string }) => (r.code === 1 ? r.out : `exit ${r.code}: ${r.out}`);
  let n = 0;
  const variant = (edit: (files: { block: any; proof: Uint8Array }) => void): string => {
    const dir = join(base, `v${n++}`);
    mkdirSync(dir);
    const files = {
      block: JSON.parse(readFileSync(join(out, "block.json"), "utf8")),
      proof: new Uint8Array(readFileSync(join(out, "block.bin"))),
    };
    edit(files);
    writeFileSync(join(dir, "block.json"), JSON.stringify(files.block));
    writeFileSync(join(dir, "block.bin"), files.proof);
    return dir;
  };
  assert.match(codeOf(await verify(out, B, B)) ?? "", /^REJECT PUBLIC_INPUTS_MISMATCH:/);
  assert.match(
    codeOf(
      await verify(
        variant((f) => {
          f.block.updates[1].value = "https://evil.example/one";
        }),
      ),
    ) ?? "",
    /^REJECT PUBLIC_INPUTS_MISMATCH: operation 1/,
  );
  assert.match(
    codeOf(
      await verify(
        variant((f) => {
          [f.block.updates[1], f.block.updates[2]] = [f.block.updates[2], f.block.updates[1]];
        }),
      ),
    ) ?? "",
    /^REJECT PUBLIC_INPUTS_MISMATCH: operation 1/,
  );
  assert.match(
    codeOf(
      await verify(
        variant((f) => {
          f.block.updates.splice(2, 1);
        }),
      ),
    ) ?? "",
    /^REJECT OPERATION_COUNT:/,
  );
  assert.match(
    codeOf(
      await verify(
        variant((f) => {
          f.block.updates[0].op = "replace";
        }),
      ),
    ) ?? "",
    /^REJECT PUBLIC_INPUTS_MISMATCH: operation 0/,
  );
  assert.match(
    codeOf(
      await verify(
        variant((f) => {
          f.block.profile = "v2";
        }),
      ),
    ) ?? "",
    /^REJECT BLOCK_JSON:/,
  );
  assert.match(
    codeOf(
      await verify(
        variant((f) => {
          f.proof = f.proof.subarray(0, f.proof.length - 7);
        }),
      ),
    ) ?? "",
    /^REJECT DECODE_DeclaredLengthMismatch:/,
  );
  const flipped = codeOf(
    await verify(
      variant((f) => {
        f.proof[f.proof.length - 100]! ^= 1;
      }),
    ),
  );
  assert.match(flipped ?? "", /^REJECT (DECODE_|PCS_|GKR_)/);
  const bad = await run(
    "registry",
    "prove-block",
    "--db",
    db,
    "--updates",
    updates,
    "--profile",
    "v4",
    "--out",
    join(base, "nope"),
  );
  assert.equal(bad.code, 2);
  assert.match(bad.err, /^error BAD_OPTION: --profile/);
});
