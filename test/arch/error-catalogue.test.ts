import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ERROR_CATALOGUE, codesOf } from "../../src/error-catalogue.js";
import { SsgkrError } from "../../src/errors.js";
import { formatError } from "../../src/cli/errors.js";
import { HTTP_ERROR_CODES, HTTP_STATUSES, HttpError, statusOf, statusOfCode } from "../../src/http/errors.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

interface DocSection {
  module: string;
  kind: string;
  codes: string[];
  exits: string[];
  https: string[];
  meanings: string[];
  includes: { union: string; prefix?: string }[];
}

/** The sections of docs/errors.md: `## \`Union\``, a line naming module and kind, a code table, an Includes line. */
function parseDoc(text: string): Map<string, DocSection> {
  const out = new Map<string, DocSection>();
  let current: DocSection | null = null;
  for (const line of text.split("\n")) {
    const head = /^## `(\w+)`\s*$/.exec(line);
    if (head) {
      assert.ok(!out.has(head[1]!), `docs/errors.md: section ${head[1]} twice`);
      current = { module: "", kind: "", codes: [], exits: [], https: [], meanings: [], includes: [] };
      out.set(head[1]!, current);
      continue;
    }
    if (line.startsWith("## ")) {
      current = null;
      continue;
    }
    if (!current) continue;
    const mod = /Module: `([^`]+)`.*kind: (\w+)\./.exec(line);
    if (mod) {
      current.module = mod[1]!;
      current.kind = mod[2]!;
      continue;
    }
    const row = /^\| `(\w+)` \| (.*) \| ([^|]+) \| ([^|]+) \|$/.exec(line);
    if (row) {
      current.codes.push(row[1]!);
      current.meanings.push(row[2]!.trim());
      current.exits.push(row[3]!.trim());
      current.https.push(row[4]!.trim());
      continue;
    }
    assert.ok(
      !line.startsWith("| `"),
      `docs/errors.md: a row without the four columns Code, Meaning, Exit, HTTP: ${line}`,
    );
    if (line.startsWith("Includes:")) {
      for (const m of line.matchAll(/`(\w+)`(?: \(prefixed `(\w+)`\))?/g))
        current.includes.push(m[2] ? { union: m[1]!, prefix: m[2] } : { union: m[1]! });
    }
  }
  return out;
}

const doc = parseDoc(readFileSync(join(root, "docs", "errors.md"), "utf8"));

test("docs/errors.md has one section per code union of the catalogue, and no other", () => {
  assert.ok(doc.size > 20, "sections were found");
  assert.deepEqual([...doc.keys()].sort(), Object.keys(ERROR_CATALOGUE).sort());
});

test("each section lists exactly its union's own codes, module, kind and included unions", () => {
  for (const [name, entry] of Object.entries(ERROR_CATALOGUE)) {
    const section = doc.get(name)!;
    assert.deepEqual(
      [...section.codes].sort(),
      [...entry.codes].sort(),
      `${name}: codes of docs/errors.md ≠ the runtime list`,
    );
    assert.equal(section.codes.length, new Set(section.codes).size, `${name}: a code listed twice`);
    assert.equal(section.module, entry.module, `${name}: module`);
    assert.equal(section.kind, entry.kind, `${name}: kind`);
    assert.deepEqual(
      section.includes,
      entry.includes.map((i) => (i.prefix ? { union: i.union, prefix: i.prefix } : { union: i.union })),
      `${name}: included unions`,
    );
  }
});

test("every code has a meaning and a CLI exit status (2 for errors, 1 for verdicts, 3 for INTERNAL)", () => {
  for (const [name, section] of doc) {
    section.codes.forEach((code, i) => {
      assert.ok(section.meanings[i]!.length > 10, `${name}.${code}: a meaning`);
      const exit = section.exits[i]!;
      assert.match(exit, /^[0-3](;.*)?$/, `${name}.${code}: exit status`);
      if (code === "INTERNAL") assert.equal(exit, "3", `${name}.${code}: a bug exits 3`);
      else if (section.kind === "verdict") assert.equal(exit, "1", `${name}.${code}: a verdict exits 1`);
      else
        assert.ok(
          exit.startsWith("2") || ["CONTROLS", "CONTROLS_FAILED"].includes(code),
          `${name}.${code}: an error exits 2 (a failed control 1)`,
        );
    });
  }
});

test("every catalogued module exists and exports its code list; every exported code list is catalogued", async () => {
  const lists = new Set(Object.values(ERROR_CATALOGUE).map((e) => e.codes));
  const modules = new Set(Object.values(ERROR_CATALOGUE).map((e) => e.module));
  let exported = 0;
  const missing: string[] = [];
  for (const module of modules) {
    const mod = (await import(pathToFileURL(join(root, "dist", module.replace(/\.ts$/, ".js"))).href)) as Record<
      string,
      unknown
    >;
    for (const [name, value] of Object.entries(mod)) {
      if (!/_CODES$/.test(name)) continue;
      exported++;
      if (!lists.has(value as readonly string[])) missing.push(`${module}: ${name}`);
    }
  }
  // files that export a code list outside the catalogued modules
  const strays: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir)) {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (
        p.endsWith(".ts") &&
        /export const \w+_CODES\b/.test(readFileSync(p, "utf8")) &&
        !modules.has(relative(root, p).split("\\").join("/"))
      )
        strays.push(relative(root, p));
    }
  };
  walk(join(root, "src"));
  assert.ok(exported >= Object.keys(ERROR_CATALOGUE).length - 1, "code lists were found");
  assert.deepEqual(missing, []);
  assert.deepEqual(strays, []);
});

test("included unions resolve, prefixes apply, and the composed verdict unions hold their parts", () => {
  for (const entry of Object.values(ERROR_CATALOGUE))
    for (const inc of entry.includes) assert.ok(ERROR_CATALOGUE[inc.union], `included ${inc.union}`);
  const sync = codesOf("SyncRejectCode");
  for (const c of [
    "WRONG_KIND",
    "INPUT_CLAIM_Y",
    "ROOT_CHANGED",
    "GKR_END_CHECK_FAILED",
    "GKR_ROUND_SUM_MISMATCH",
    "Truncated",
  ])
    assert.ok(sync.includes(c), c);
  const v2 = codesOf("V2RejectCode");
  assert.ok(v2.includes("DECODE_UnsupportedLayout") && v2.includes("CHAIN_BROKEN") && !v2.includes("Truncated"));
  assert.throws(() => codesOf("NoSuchCode"), RangeError);
});

test("the CLI prints an error's catalogue code as `error CODE: message`, exit 2", () => {
  const all = new Set(
    Object.keys(ERROR_CATALOGUE)
      .filter((n) => ERROR_CATALOGUE[n]!.kind === "error")
      .flatMap((n) => codesOf(n)),
  );
  const { line, exitCode } = formatError(new SsgkrError("NON_CANONICAL", "x: 2130706433 is not in [0, p)"));
  assert.equal(line, "error NON_CANONICAL: x: 2130706433 is not in [0, p)");
  assert.equal(exitCode, 2);
  assert.ok(all.has("NON_CANONICAL") && all.has("INTERNAL") && all.has("UNKNOWN_OPTION"));
  const internal = formatError(new Error("boom"));
  assert.match(internal.line!, /^error INTERNAL: boom/);
  assert.equal(internal.exitCode, 3);
});

/** The unions the HTTP API answers with statuses of their own. */
const ANSWERED = Object.keys(HTTP_STATUSES).sort();

test("every code of a union the HTTP API answers has its status in the catalogue, and only those unions carry statuses", () => {
  assert.deepEqual(ANSWERED, [
    "ClaimErrorCode",
    "HttpErrorCode",
    "ProvingErrorCode",
    "RegistryErrorCode",
    "RequestErrorCode",
  ]);
  assert.deepEqual(
    Object.keys(ERROR_CATALOGUE)
      .filter((n) => ERROR_CATALOGUE[n]!.http !== undefined)
      .sort(),
    ANSWERED,
  );
  for (const union of ANSWERED) {
    const entry = ERROR_CATALOGUE[union]!;
    assert.equal(entry.kind, "error", union);
    assert.equal(
      entry.http,
      HTTP_STATUSES[union as keyof typeof HTTP_STATUSES],
      `${union}: the catalogue carries the HTTP layer's table`,
    );
    assert.deepEqual(
      Object.keys(entry.http!).sort(),
      [...entry.codes].sort(),
      `${union}: a status for every code, and for no other`,
    );
    for (const [code, status] of Object.entries(entry.http!)) {
      assert.ok(
        Number.isInteger(status) && status >= 400 && status <= 599,
        `${union}.${code}: ${status} is an error status`,
      );
      assert.equal(statusOfCode(code), status, `${union}.${code}: a code of several unions has one status`);
    }
  }
});

test("an HttpError's status is its code's; statusOf gives every error its code's status and 500 to the rest", () => {
  for (const code of HTTP_ERROR_CODES) {
    const err = new HttpError(code, "x");
    assert.equal(err.status, HTTP_STATUSES.HttpErrorCode[code], code);
    assert.equal(statusOf(err), err.status, code);
  }
  assert.equal(new HttpError("RATE_LIMITED", "x").status, 429);
  assert.equal(new HttpError("CONFIG_NOT_SERVED", "x").status, 422);
  assert.equal(statusOf(new SsgkrError("NAME_EXISTS", "x")), 409);
  assert.equal(statusOf(new SsgkrError("REQUEST_SCHEMA", "x")), 400);
  assert.equal(statusOf(new SsgkrError("NON_CANONICAL", "x")), 500);
  assert.equal(statusOf(new Error("boom")), 500);
});

test("the HTTP column of docs/errors.md is the status the API answers each error code with (— for verdicts and the CLI's codes)", () => {
  let checked = 0;
  for (const [name, section] of doc) {
    section.codes.forEach((code, i) => {
      const cell = section.https[i]!;
      if (section.kind === "verdict" || name === "CliErrorCode") {
        assert.equal(cell, "—", `${name}.${code}: no HTTP status`);
        return;
      }
      const m = /^(\d{3})(?:; (.+))?$/.exec(cell);
      assert.ok(m, `${name}.${code}: HTTP column "${cell}" is a status (and an optional note after "; ")`);
      const expected =
        name === "HttpErrorCode"
          ? new HttpError(code as (typeof HTTP_ERROR_CODES)[number], "x").status
          : statusOf(new SsgkrError(code, "x"));
      assert.equal(Number(m[1]), expected, `${name}.${code}: HTTP column`);
      const own = ERROR_CATALOGUE[name]!.http;
      if (own) assert.equal(Number(m[1]), own[code], `${name}.${code}: the catalogue's status`);
      checked++;
    });
  }
  assert.ok(checked > 200, "error codes were checked");
});

test("the status table of docs/http.md gives each code it lists one of its row's statuses, the catalogue's", () => {
  const text = readFileSync(join(root, "docs", "http.md"), "utf8");
  const start = text.indexOf("| status | codes |");
  assert.ok(start > 0, "docs/http.md has its status table");
  let rows = 0;
  for (const line of text.slice(start).split("\n").slice(2)) {
    const row = /^\| ([\d /]+) \| (.*) \|$/.exec(line);
    if (!row) break;
    rows++;
    const statuses = row[1]!.split("/").map((x) => Number(x.trim()));
    for (const m of row[2]!.matchAll(/`([A-Z_]+)`/g))
      assert.ok(
        statuses.includes(statusOfCode(m[1]!)),
        `docs/http.md: ${m[1]} is ${statusOfCode(m[1]!)}, listed under ${row[1]!.trim()}`,
      );
  }
  assert.ok(rows >= 8, "rows were found");
});
