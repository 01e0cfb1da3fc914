/**
 * One CLI voice: every error class, produced by the real `ssgkr` binary, is exactly one line
 * `error CODE: message` on stderr naming the option, file or JSON path, with the documented exit
 * code; verdicts (`REJECT …`) stay on stdout.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import {
  closeSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CommanderError } from "commander";
import { CliError, formatError } from "../../src/cli/errors.js";
import { RequestError } from "../../src/sync/request.js";
import { formatRoot } from "../../src/registry/root.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const bin = join(root, "bin", "ssgkr.js");
const dir = mkdtempSync(join(tmpdir(), "ssgkr-cli-errors-"));

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd: dir });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Exit 2 (unless told), nothing on stdout, one line `error CODE: …` on stderr matching `message`. */
function fails(args: string[], code: string, message: RegExp, exit = 2): void {
  const r = run(...args);
  assert.equal(r.code, exit, `${args.join(" ")}: exit ${r.code}\n${r.stdout}${r.stderr}`);
  assert.equal(r.stdout, "", args.join(" "));
  const lines = r.stderr.split("\n").filter((l) => l !== "");
  assert.equal(lines.length, 1, `${args.join(" ")}: one line expected, got:\n${r.stderr}`);
  const m = /^error ([A-Z][A-Z0-9_]*|[A-Z][A-Za-z]+): (.+)$/.exec(lines[0]!);
  assert.ok(m, `${args.join(" ")}: not "error CODE: message": ${lines[0]}`);
  assert.equal(m[1], code, lines[0]);
  assert.match(m[2]!, message, lines[0]);
}

const fixtureText = (() => {
  const r = run("fixture", "--kind", "membership", "--depth", "4", "--key", "5");
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
})();
const fixture = (): Record<string, unknown> => JSON.parse(fixtureText);
function write(name: string, value: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, typeof value === "string" ? value : JSON.stringify(value));
  return p;
}
const req = write("m.json", fixtureText);
const proof = join(dir, "m.bin");
assert.equal(run("prove", "--request", req, "--out", proof).code, 0);

test("--version prints the version and the profile", () => {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
  for (const flag of ["--version", "-V"]) {
    const r = run(flag);
    assert.equal(r.code, 0);
    assert.equal(
      r.stdout,
      `ssgkr ${pkg.version} (statesync-gkr; profiles compat-v1, v2, v3; proof formats inner-proof-v1, -v2, -v3)\n`,
    );
  }
});

test("commander errors: unknown option with a suggestion (not the required option), unknown command, missing option and value, excess arguments, bad choice", () => {
  fails(
    ["verify", "--requets", req, "--proof", proof],
    "UNKNOWN_OPTION",
    /^unknown option '--requets' \(did you mean (one of )?--request[,)?]/,
  );
  fails(
    ["prove", "--requets", req, "--out", join(dir, "x.bin")],
    "UNKNOWN_OPTION",
    /^unknown option '--requets' \(did you mean (one of )?--request[,)?]/,
  );
  fails(
    ["verify", "--request", req, "--proof", proof, "--frobnicate"],
    "UNKNOWN_OPTION",
    /^unknown option '--frobnicate'$/,
  );
  fails(["verfy"], "UNKNOWN_COMMAND", /^unknown command 'verfy' \(did you mean verify\?\)$/);
  fails(["registry", "improt"], "UNKNOWN_COMMAND", /^unknown command 'improt' \(did you mean import\?\)$/);
  fails(["verify", "--proof", proof], "MISSING_OPTION", /^required option '--request <file>' not specified$/);
  fails(["prove", "--request", req], "MISSING_OPTION", /^required option '--out <file>' not specified$/);
  fails(["verify", "--proof", proof, "--request"], "MISSING_VALUE", /^option '--request <file>' argument missing$/);
  fails(["verify", "--request", req, "--proof", proof, "extra"], "EXCESS_ARGUMENTS", /too many arguments for 'verify'/);
  fails(
    ["registry", "import", "--db", join(dir, "db"), "--file", "x.ndjson", "--on-error", "maybe"],
    "BAD_OPTION",
    /--on-error <mode>.*maybe.*fail, skip/,
  );
});

test("files: missing, a directory, unwritable output, oversized request; a missing file is named with its option", () => {
  fails(
    ["verify", "--request", "nope.json", "--proof", proof],
    "CANNOT_READ",
    /^cannot read --request nope\.json: no such file$/,
  );
  fails(
    ["verify", "--request", req, "--proof", "nope.bin"],
    "CANNOT_READ",
    /^cannot read --proof nope\.bin: no such file$/,
  );
  mkdirSync(join(dir, "adir"), { recursive: true });
  fails(
    ["verify", "--request", join(dir, "adir"), "--proof", proof],
    "CANNOT_READ",
    /^cannot read --request .*adir: is a directory$/,
  );
  fails(
    ["prove", "--request", req, "--out", join(dir, "no", "such", "dir", "p.bin")],
    "CANNOT_WRITE",
    /^cannot write --out .*p\.bin: no such file$/,
  );
  const big = join(dir, "big.json");
  const fd = openSync(big, "w");
  ftruncateSync(fd, 2 * 1024 * 1024);
  closeSync(fd);
  fails(
    ["verify", "--request", big, "--proof", proof],
    "FILE_TOO_LARGE",
    /^--request .*big\.json has 2097152 bytes; a request file has at most 1048576$/,
  );
  fails(
    ["prove", "--request", big, "--out", join(dir, "x.bin")],
    "FILE_TOO_LARGE",
    /^--request .*big\.json has 2097152 bytes/,
  );
});

test("request errors name the option, the file, the JSON path and the rule (never a raw SyntaxError)", () => {
  const cases: [string, unknown, string, RegExp][] = [
    ["json", "{not json", "REQUEST_JSON", /^--request .*json\.json: \$: is not valid JSON: /],
    [
      "key-abc",
      { ...fixture(), key: "abc" },
      "REQUEST_SCHEMA",
      /^--request .*key-abc\.json: \$\.key: must be a u64: a JSON integer or a string of 1 to 20 decimal digits, got "abc"$/,
    ],
    ["key-neg", { ...fixture(), key: -1 }, "REQUEST_SCHEMA", /\$\.key: must be non-negative/],
    ["key-big", { ...fixture(), key: "18446744073709551616" }, "REQUEST_SCHEMA", /\$\.key: exceeds u64/],
    ["key-bool", { ...fixture(), key: true }, "REQUEST_SCHEMA", /\$\.key: must be a u64/],
    [
      "no-key",
      (() => {
        const f = fixture();
        delete f["key"];
        return f;
      })(),
      "REQUEST_SCHEMA",
      /\$\.key: is required$/,
    ],
    [
      "lmf",
      { ...fixture(), leaf_max_fields: 65535 },
      "REQUEST_SCHEMA",
      /\$\.leaf_max_fields: must be an integer in \[10, 63\]/,
    ],
    ["depth", { ...fixture(), depth: 99 }, "REQUEST_SCHEMA", /\$\.depth: must be an integer in \[1, 64\]/],
    ["array", [1, 2], "REQUEST_SCHEMA", /: \$: a request must be a JSON object$/],
    [
      "newleaf",
      { ...fixture(), new_leaf: { tag: 1, payload: [42, 6], identity: "09".repeat(32) } },
      "REQUEST_SCHEMA",
      /\$\.new_leaf: a membership changes nothing: new_leaf must equal old_leaf/,
    ],
    [
      "absent",
      { ...fixture(), kind: "nonmembership" },
      "REQUEST_SCHEMA",
      /\$\.old_leaf\.tag: a non-membership proves an absent slot/,
    ],
  ];
  for (const [name, value, code, message] of cases) {
    const file = write(`${name}.json`, value);
    fails(["verify", "--request", file, "--proof", proof], code, message);
    // prove reads request files through the same function; a few cases show it.
    if (["json", "key-abc", "lmf", "newleaf"].includes(name))
      fails(["prove", "--request", file, "--out", join(dir, "x.bin")], code, message);
    // registry verify reads the request before any verdict: bad input, not a REJECT.
    if (["json", "key-abc", "array"].includes(name))
      fails(
        [
          "registry",
          "verify",
          "--name",
          "a",
          "--value",
          "b",
          "--root",
          "00".repeat(32),
          "--request",
          file,
          "--proof",
          proof,
        ],
        code,
        message,
      );
  }
  const r = run("verify", "--request", join(dir, "key-abc.json"), "--proof", proof);
  assert.doesNotMatch(r.stderr, /SyntaxError|BigInt|Cannot convert/);
});

test("a non-membership whose new_leaf is Occupied is refused by verify and prove (exit 2), as the server refuses the job", () => {
  const n = JSON.parse(run("fixture", "--kind", "nonmembership", "--depth", "4", "--key", "5").stdout) as Record<
    string,
    unknown
  >;
  const file = write("nm-occupied.json", { ...n, new_leaf: { tag: 1, payload: [1], identity: "01".repeat(32) } });
  fails(
    ["prove", "--request", file, "--out", join(dir, "x.bin")],
    "REQUEST_SCHEMA",
    /\$\.new_leaf: .*new_leaf must equal old_leaf/,
  );
  fails(
    ["verify", "--request", file, "--proof", proof],
    "REQUEST_SCHEMA",
    /\$\.new_leaf: .*new_leaf must equal old_leaf/,
  );
  const tomb = write("nm-tombstone.json", { ...n, new_leaf: { tag: 2, payload: [], identity: "00".repeat(32) } });
  fails(["prove", "--request", tomb, "--out", join(dir, "x.bin")], "REQUEST_SCHEMA", /\$\.new_leaf: /);
});

test("option values: each names its option and the rule", () => {
  fails(
    ["verify", "--request", req, "--proof", proof, "--expect-old-root", "1,2"],
    "BAD_ROOT",
    /^--expect-old-root: a root is 64 hex characters \(its 32 bytes\) or 8 canonical field elements/,
  );
  fails(
    ["fixture", "--kind", "bogus"],
    "BAD_OPTION",
    /^--kind must be membership, nonmembership or update, got "bogus"$/,
  );
  fails(
    ["fixture", "--kind", "membership", "--depth", "99"],
    "BAD_OPTION",
    /^--depth must be an integer in \[1, 64\], got "99"$/,
  );
  fails(
    ["fixture", "--kind", "membership", "--depth", "4", "--key", "16"],
    "KEY_OUT_OF_RANGE",
    /^--key 16 at --depth 4: key 16 is outside a tree of depth 4/,
  );
  fails(["serve", "--depth", "99"], "BAD_OPTION", /^--depth must be an integer in \[1, 32\], got "99"$/);
  fails(["serve", "--depth", "4", "--depth", "5"], "DUPLICATE_OPTION", /^option --depth given more than once$/);
  fails(["serve", "--listen", "nowhere"], "BAD_OPTION", /--listen must be HOST:PORT/);
  fails(
    ["registry", "import", "--db", join(dir, "db1")],
    "USAGE",
    /^registry import: give exactly one of --source npm-repos and --file F$/,
  );
  fails(
    ["registry", "import", "--db", join(dir, "db1"), "--source", "npm-repos", "--batch-size", "x"],
    "BAD_OPTION",
    /^--batch-size must be an integer ≥ 1, got "x"$/,
  );
  assert.equal(existsSync(join(dir, "db1")), false, "a failed import leaves no registry it created");
  const named = join(dir, "db-named");
  const made = run("registry", "import", "--db", named, "--file", write("one.ndjson", '{"name":"a","value":"b"}\n'));
  assert.equal(made.code, 0, made.stderr);
  fails(["registry", "get", "--db", named], "MISSING_OPTION", /^registry get: --name N is required$/);
  fails(["demo", "--limit", "two"], "BAD_OPTION", /^demo: --limit must be an integer ≥ 3 or "all", got "two"$/);
});

test("registry import --leaf-max-fields is bounded by the configuration limit before anything is created", () => {
  const ndjson = write("r.ndjson", '{"name":"a","value":"b"}\n');
  const db = join(dir, "db-lmf");
  fails(
    ["registry", "import", "--db", db, "--file", ndjson, "--leaf-max-fields", "65535", "--no-progress"],
    "BAD_CONFIG",
    /registry leaf bound must be an integer in \[20, 63\].*got 65535/,
  );
  fails(
    ["registry", "import", "--db", db, "--file", ndjson, "--leaf-max-fields", "64", "--no-progress"],
    "BAD_CONFIG",
    /got 64/,
  );
  assert.equal(existsSync(db), false);
});

test("registry prove --out is checked before anything is proved or committed: a file is OUT_EXISTS, an uncreatable folder CANNOT_WRITE, a failed proof leaves no folder", () => {
  const db = join(dir, "db-out");
  const seed = write("out-seed.ndjson", '{"name":"seed","value":"s"}\n');
  const made = run("registry", "import", "--db", db, "--depth", "16", "--file", seed, "--no-progress");
  assert.equal(made.code, 0, made.stderr);
  const head = () => JSON.parse(run("registry", "root", "--db", db, "--json").stdout).batch as number;
  const before = head();
  const file = write("not-a-dir", "x");
  fails(
    ["registry", "prove", "insert", "--db", db, "--name", "out-1", "--value", "v", "--out", file],
    "OUT_EXISTS",
    /--out .*not-a-dir exists and is not a directory/,
  );
  fails(
    ["registry", "prove", "insert", "--db", db, "--name", "out-1", "--value", "v", "--out", join(file, "inner")],
    "OUT_EXISTS",
    /not-a-dir is a file/,
  );
  if (existsSync("/proc/self"))
    fails(
      ["registry", "prove", "insert", "--db", db, "--name", "out-1", "--value", "v", "--out", "/proc/nope/deeper"],
      "CANNOT_WRITE",
      /--out \/proc\/nope\/deeper: cannot create \/proc\/nope/,
    );
  assert.equal(head(), before, "nothing was committed");
  assert.match(run("registry", "get", "--db", db, "--name", "out-1").stdout, /never registered/);
  // a proof that fails (the name is not registered) leaves none of the folders it would have made
  const nested = join(dir, "out-new", "a", "b");
  const r = run("registry", "prove", "membership", "--db", db, "--name", "nobody", "--out", nested);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(existsSync(join(dir, "out-new")), false);
  // and a good one creates them
  const ok = run("registry", "prove", "insert", "--db", db, "--name", "out-1", "--value", "v", "--out", nested);
  assert.equal(ok.code, 0, ok.stderr);
  assert.ok(existsSync(join(nested, "proof.bin")));
  assert.equal(head(), before + 1);
});

test("registry http: a port in use is refused before the proving pool starts; missing files are named as missing", async () => {
  const ndjson = write("http.ndjson", '{"name":"a","value":"b"}\n');
  const db = join(dir, "db-http");
  const imp = run("registry", "import", "--db", db, "--file", ndjson, "--no-progress");
  assert.equal(imp.code, 0, imp.stderr);
  const busy = createServer();
  await new Promise<void>((ok) => busy.listen(0, "127.0.0.1", ok));
  const port = (busy.address() as AddressInfo).port;
  try {
    // one line: the pool never started (no "proving pool: … ready"), no block prover ran on a closed registry
    fails(
      ["registry", "http", "--db", db, "--listen", `127.0.0.1:${port}`],
      "BAD_OPTION",
      new RegExp(`^--listen 127\\.0\\.0\\.1:${port}: the address is already in use`),
    );
  } finally {
    await new Promise((ok) => busy.close(ok));
  }
  fails(
    ["registry", "http", "--db", db, "--token-file", "missing-token.txt"],
    "BAD_TOKEN_FILE",
    /missing-token\.txt: cannot be used \(no such file\)$/,
  );
  fails(
    ["registry", "http", "--db", db, "--signing-key", "missing.key"],
    "BAD_SIGNING_KEY",
    /^--signing-key missing\.key: cannot read the key file \(no such file\)$/,
  );
  fails(
    ["registry", "http", "--db", db, "--signing-key", write("verifier.txt", "example.com/registry+0b5a3c1d+AQID\n")],
    "BAD_SIGNING_KEY",
    /^--signing-key .*verifier\.txt: not a signing key file \(a signing key file starts with PRIVATE\+KEY\+; `ssgkr registry keygen` writes one, and a verifier key is not one\)$/,
  );
  fails(
    ["registry", "import", "--db", join(dir, "db-missing-input"), "--file", "missing.ndjson", "--no-progress"],
    "BAD_SOURCE",
    /cannot read input missing\.ndjson: no such file$/,
  );
});

test("verdicts stay on stdout: REJECT with exit 1, including a proof file larger than any valid proof (not read)", () => {
  const big = join(dir, "big.bin");
  const fd = openSync(big, "w");
  ftruncateSync(fd, 2 ** 30);
  closeSync(fd);
  const r = run("verify", "--request", req, "--proof", big);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, "");
  assert.match(
    r.stdout,
    /^REJECT PROOF_TOO_LARGE: --proof .*big\.bin has 1073741824 bytes; a valid membership proof at depth 4, leaf bound 31 has at most \d+\n$/,
  );
});

test("unpinned and pinned ACCEPT lines; the warning is in verify --help", () => {
  const f = fixture();
  const rootText = (f["old_root"] as number[]).join(",");
  let r = run("verify", "--request", req, "--proof", proof);
  assert.equal(r.code, 0);
  assert.equal(
    r.stdout,
    "ACCEPT (roots not pinned: this proves the statement about the roots in the request; pass --expect-old-root to check them against a root you trust)\n",
  );
  r = run("verify", "--request", req, "--proof", proof, "--expect-old-root", rootText);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, `ACCEPT (pinned old_root ${formatRoot(f["old_root"] as number[])})\n`);
  r = run("verify", "--request", req, "--proof", proof, "--expect-old-root", rootText, "--expect-new-root", rootText);
  assert.match(r.stdout, /^ACCEPT \(pinned old_root [0-9a-f]{64}, new_root [0-9a-f]{64}\)\n$/);
  const h = run("verify", "--help");
  assert.equal(h.code, 0);
  assert.match(
    h.stdout.replace(/\s+/g, " "),
    /ACCEPT \(roots not pinned: this proves the statement about the roots in the request; pass --expect-old-root to check them against a root you trust\)/,
  );
  assert.match(h.stdout, /docs\/security\.md/);
});

test("formatError: library errors keep their code, commander codes are mapped, anything else is INTERNAL with exit 3", () => {
  assert.deepEqual(formatError(new RequestError("REQUEST_SCHEMA", "$.key: must be a u64")), {
    line: "error REQUEST_SCHEMA: $.key: must be a u64",
    exitCode: 2,
  });
  assert.deepEqual(formatError(new CliError("CONTROLS_FAILED", "control 1 failed", 1)), {
    line: "error CONTROLS_FAILED: control 1 failed",
    exitCode: 1,
  });
  assert.deepEqual(
    formatError(new CommanderError(1, "commander.unknownOption", "error: unknown option '--x'\n(Did you mean --y?)")),
    { line: "error UNKNOWN_OPTION: unknown option '--x' (did you mean --y?)", exitCode: 2 },
  );
  assert.deepEqual(formatError(new CommanderError(0, "commander.helpDisplayed", "(outputHelp)")), {
    line: null,
    exitCode: 0,
  });
  const internal = formatError(new TypeError("x is undefined\nsecond line"));
  assert.equal(internal.exitCode, 3);
  assert.match(
    internal.line!,
    /^error INTERNAL: x is undefined second line \(an internal error; SSGKR_DEBUG=1 shows the stack\)$/,
  );
});
