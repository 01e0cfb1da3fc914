/**
 * Every route schema's path parameters, query strings and verify body (src/http/schemas.ts and
 * consistency-route.ts, which make the OpenAPI document) against what the route itself refuses.
 * The server validates by hand (values.ts and the routes: each 400 names its field in words), so
 * the schemas could drift from the checks unseen; here each input of a corpus is sent to the real
 * app and to an app that validates with the route's schema alone (fastify's validator as it
 * validates when switched on: query strings and parameters coerced from text, bodies as JSON
 * Schema reads them), and the two must agree — a 400 from one is a 400 from the other — but for
 * the disagreements listed below with their reasons, all of them where JSON Schema cannot say
 * the rule (a name's length in UTF-8 bytes, a field element's canonical range) or where its
 * number coercion takes forms the API refuses.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import Fastify, { type FastifyInstance } from "fastify";
import { createRegistryApp } from "../../src/http/server.js";
import { SCHEMAS } from "../../src/http/schemas.js";
import { CONSISTENCY_SCHEMA } from "../../src/http/consistency-route.js";
import type { NameStore } from "../../src/registry/store/name-store.js";
import { freshDir, makeRegistry, removeDir } from "../web/support.js";

let dir: string;
let store: NameStore;
let app: FastifyInstance;

before(async () => {
  dir = freshDir("ssgkr-http-route-schemas-");
  store = makeRegistry(dir, 12);
  ({ app } = await createRegistryApp({ store, webDir: join(dir, "no-page"), rateLimit: 0 }));
  await app.ready();
});

after(async () => {
  await app?.close();
  await store?.close();
  if (dir) removeDir(dir);
});

type Part = "params" | "querystring" | "body";

/** One input of one route: the URL (and body) that carries it. */
interface Input {
  readonly label: string;
  readonly url: string;
  readonly body?: unknown;
}

/** An app that validates `part` of a route with `schema` and answers 200 to whatever passes. */
async function schemaApp(method: "GET" | "POST", path: string, part: Part, schema: object): Promise<FastifyInstance> {
  const a = Fastify(
    part === "body"
      ? { ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false } } }
      : { routerOptions: { maxParamLength: 1 << 16 } },
  );
  a.route({ method, url: path, schema: { [part]: schema }, handler: async () => ({ ok: true }) });
  await a.ready();
  return a;
}

/** Whether an app refuses the input as malformed (400), and the answer's message. */
async function answer(
  a: FastifyInstance,
  method: "GET" | "POST",
  input: Input,
): Promise<{ refused: boolean; message: string }> {
  const res = await a.inject({
    method,
    url: input.url,
    ...(input.body !== undefined
      ? { headers: { "content-type": "application/json" }, payload: JSON.stringify(input.body) }
      : {}),
  });
  assert.ok(res.statusCode < 500, `${input.label}: status ${res.statusCode}: ${res.body}`);
  const message = res.statusCode === 400 ? String((JSON.parse(res.body) as { message?: unknown }).message) : "";
  return { refused: res.statusCode === 400, message };
}

/** The disagreements of a corpus, each as "label: route refuses, schema accepts" (or the other way). */
async function disagreements(
  method: "GET" | "POST",
  path: string,
  part: Part,
  schema: object,
  inputs: readonly Input[],
  relational?: (message: string) => boolean,
): Promise<{ differ: string[]; refused: number; related: number }> {
  const byschema = await schemaApp(method, path, part, schema);
  const differ: string[] = [];
  let refused = 0;
  let related = 0;
  for (const input of inputs) {
    const r = await answer(app, method, input);
    const sch = (await answer(byschema, method, input)).refused;
    // A rule between parameters (from ≤ after ≤ to) is no property of one parameter's schema: the input is well formed.
    if (r.refused && relational?.(r.message)) {
      related++;
      assert.equal(sch, false, `${input.label}: well formed, refused by the relation only (${r.message})`);
      continue;
    }
    const route = r.refused;
    if (route) refused++;
    if (route !== sch)
      differ.push(`${input.label}: route ${route ? "refuses" : "accepts"}, schema ${sch ? "refuses" : "accepts"}`);
  }
  differ.sort();
  await byschema.close();
  return { differ, refused, related };
}

const ROOT_HEX = "00".repeat(32);
/** Query values as text: good, bad and borderline for a non-negative integer. */
const INTEGERS = ["0", "5", "000005", "1000", "1001", "100000", "100001", "999999999", "1000000000", "-1"];
const ODD_INTEGERS = ["1e3", "1.5", "5.0", "abc", "", "0x10", "+5", "%205"];

/**
 * The disagreements JSON Schema's number coercion makes: forms the API refuses (it reads decimal
 * digits only) that the validator coerces to an integer in the schema's range (1e3, 0x10, +5,
 * 5.0, a leading space).
 */
const COERCED = (name: string, max: number) =>
  ODD_INTEGERS.filter((v) => {
    const text = decodeURIComponent(v);
    const n = Number(text);
    return text !== "" && Number.isInteger(n) && n >= 0 && n <= max;
  })
    .map((v) => `${name}=${v}: route refuses, schema accepts`)
    .sort();

/** The consistency route's refusals of a relation between its parameters (from ≤ after ≤ to). */
const RELATIONAL = (message: string) =>
  message.includes("(a chain goes forward)") ||
  message.includes("must be in [from, to]") ||
  message.startsWith("query.after_part: goes with after");

const QUERY_INTS: readonly {
  readonly route: string;
  readonly path: string;
  readonly schema: object;
  readonly param: string;
  readonly fixed: string;
  readonly max: number;
}[] = [
  {
    route: "GET /v1/history",
    path: "/v1/history",
    schema: SCHEMAS.history.querystring,
    param: "limit",
    fixed: "",
    max: 100_000,
  },
  {
    route: "GET /v1/blocks",
    path: "/v1/blocks",
    schema: SCHEMAS.blocks.querystring,
    param: "limit",
    fixed: "",
    max: 1_000,
  },
  {
    route: "GET /v1/blocks",
    path: "/v1/blocks",
    schema: SCHEMAS.blocks.querystring,
    param: "after",
    fixed: "",
    max: 999_999_999,
  },
  {
    route: "GET /v1/consistency",
    path: "/v1/consistency",
    schema: CONSISTENCY_SCHEMA.querystring,
    param: "limit",
    fixed: "from=0&to=0&",
    max: 64,
  },
  {
    route: "GET /v1/consistency",
    path: "/v1/consistency",
    schema: CONSISTENCY_SCHEMA.querystring,
    param: "after",
    fixed: "from=0&to=4&",
    max: 999_999_999,
  },
  {
    route: "GET /v1/consistency",
    path: "/v1/consistency",
    schema: CONSISTENCY_SCHEMA.querystring,
    param: "after_part",
    fixed: "from=0&to=4&after=0&",
    max: 99_999,
  },
];

for (const q of QUERY_INTS) {
  test(`route schemas: ${q.route} query ${q.param} is refused by the schema exactly where the route refuses it`, async () => {
    const inputs = [...INTEGERS, ...ODD_INTEGERS].map((v) => ({
      label: `${q.param}=${v}`,
      url: `${q.path}?${q.fixed}${q.param}=${v}`,
    }));
    inputs.push({ label: `${q.param} twice`, url: `${q.path}?${q.fixed}${q.param}=1&${q.param}=2` });
    const { differ, refused } = await disagreements("GET", q.path, "querystring", q.schema, inputs, RELATIONAL);
    assert.ok(refused >= 5, `the corpus holds refused inputs (${refused})`);
    assert.deepEqual(differ, COERCED(q.param, q.max));
  });
}

test("route schemas: GET /v1/consistency from and to are refused by the schema exactly where the route refuses them", async () => {
  const inputs: Input[] = [];
  for (const v of [...INTEGERS, ...ODD_INTEGERS]) {
    inputs.push({ label: `from=${v}`, url: `/v1/consistency?from=${v}&to=999999999` });
    inputs.push({ label: `to=${v}`, url: `/v1/consistency?from=0&to=${v}` });
  }
  inputs.push({ label: "no from", url: "/v1/consistency?to=2" }, { label: "no to", url: "/v1/consistency?from=0" });
  const { differ, refused } = await disagreements(
    "GET",
    "/v1/consistency",
    "querystring",
    CONSISTENCY_SCHEMA.querystring,
    inputs,
    RELATIONAL,
  );
  assert.ok(refused >= 6, `the corpus holds refused inputs (${refused})`);
  assert.deepEqual(differ, [...COERCED("from", 999_999_999), ...COERCED("to", 999_999_999)].sort());
});

test("route schemas: the proof routes' root, profile and zk queries are refused by the schema exactly where the route refuses them", async () => {
  const roots = [
    ROOT_HEX,
    ROOT_HEX.toUpperCase(),
    "[1, 2, 3, 4, 5, 6, 7, 8]",
    "1,2,3,4,5,6,7,8",
    "1 2 3 4 5 6 7 8",
    "[1,2,3,4,5,6,7]",
    "zz",
    "",
    "0".repeat(63),
    "[1, 2, 3, 4, 5, 6, 7, x]",
    "[1, 2, 3, 4, 5, 6, 7, 2130706433]",
    "ff".repeat(32),
  ];
  for (const [path, schema] of [
    ["/v1/records/left-pad/proof", SCHEMAS.proof.querystring],
    ["/v1/records/left-pad/proof.bin", SCHEMAS.proofBin.querystring],
  ] as const) {
    const inputs: Input[] = roots.map((r) => ({ label: `root=${r}`, url: `${path}?root=${encodeURIComponent(r)}` }));
    for (const p of ["v1", "v3", "v2", "V1", ""]) inputs.push({ label: `profile=${p}`, url: `${path}?profile=${p}` });
    inputs.push({ label: "root twice", url: `${path}?root=${ROOT_HEX}&root=${ROOT_HEX}` });
    inputs.push({ label: "profile twice", url: `${path}?profile=v1&profile=v1` });
    for (const z of ["0", "1", "2", "true", "", "01"]) inputs.push({ label: `zk=${z}`, url: `${path}?zk=${z}` });
    for (const p of ["v1", "v3"]) inputs.push({ label: `profile=${p}&zk=1`, url: `${path}?profile=${p}&zk=1` });
    inputs.push({ label: "zk twice", url: `${path}?zk=1&zk=1` });
    const template = path.replace("left-pad", ":name");
    // zk=1 with profile=v1: each is well formed; the route refuses the pair (a zero-knowledge proof is of profile v3)
    const { differ, refused, related } = await disagreements(
      "GET",
      template,
      "querystring",
      schema,
      inputs,
      (message) => message.startsWith("query.zk: a zero-knowledge proof is a profile v3 proof"),
    );
    assert.equal(related, 1, "profile=v1&zk=1 is refused by the relation only");
    assert.ok(refused >= 8, `the corpus holds refused inputs (${refused})`);
    // Canonical range: an element or a hex word ≥ p is well formed text but not a root.
    assert.deepEqual(differ, [
      "root=[1, 2, 3, 4, 5, 6, 7, 2130706433]: route refuses, schema accepts",
      `root=${"ff".repeat(32)}: route refuses, schema accepts`,
    ]);
  }
});

test("route schemas: the name parameter is refused by the schema exactly where the routes refuse it, and every route of a name shares it", async () => {
  for (const s of [SCHEMAS.proof, SCHEMAS.proofBin, SCHEMAS.put, SCHEMAS.del, SCHEMAS.restore])
    assert.equal(s.params, SCHEMAS.record.params, "one name parameter schema");
  const names = [
    "left-pad",
    "%40scope%2Fpkg",
    "a".repeat(1024),
    "a".repeat(1025),
    "%C3%A9".repeat(512),
    "%C3%A9".repeat(513),
    "%F0%9F%98%80",
    "%00",
    "%20",
    "%ED%A0%80",
    "%FF",
  ];
  const inputs = names.map((n) => ({
    label: n.length > 40 ? `${n.slice(0, 12)}…(${n.length})` : n,
    url: `/v1/records/${n}`,
  }));
  const { differ, refused } = await disagreements("GET", "/v1/records/:name", "params", SCHEMAS.record.params, inputs);
  assert.ok(refused >= 3, `the corpus holds refused names (${refused})`);
  // A name's bound is 1,024 UTF-8 bytes; JSON Schema counts characters.
  assert.deepEqual(differ, [`%C3%A9%C3%A9…(${"%C3%A9".length * 513}): route refuses, schema accepts`]);
});

test("route schemas: the batch parameter is refused by the schema exactly where the block routes refuse it", async () => {
  for (const s of [SCHEMAS.blockJson, SCHEMAS.blockBin]) assert.equal(s.params, SCHEMAS.block.params);
  const batches = ["1", "0", "0001", "1234567890", "12345678901", "-1", "1e3", "x", "1.0", "%201"];
  for (const suffix of ["", "/block.json", "/block.bin"]) {
    const inputs = batches.map((b) => ({ label: `batch ${b}${suffix}`, url: `/v1/blocks/${b}${suffix}` }));
    const { differ, refused } = await disagreements(
      "GET",
      `/v1/blocks/:batch${suffix}`,
      "params",
      SCHEMAS.block.params,
      inputs,
    );
    assert.ok(refused >= 5, `the corpus holds refused batches (${refused})`);
    assert.deepEqual(differ, []);
  }
});

test("route schemas: POST /v1/verify refuses, by its body schema, the bodies the route refuses", async () => {
  const v1 = JSON.parse((await app.inject({ url: "/v1/records/left-pad/proof" })).body) as Record<string, unknown>;
  const v3 = JSON.parse((await app.inject({ url: "/v1/records/left-pad/proof?profile=v3" })).body) as Record<
    string,
    unknown
  >;
  const without = (b: Record<string, unknown>, f: string) =>
    Object.fromEntries(Object.entries(b).filter(([k]) => k !== f));
  const block = { block: { profile: "v3", updates: [] }, proof: "AAAA" };
  const bodies: [string, unknown][] = [
    ["v1 body", v1],
    ["v3 body", v3],
    ["no statement", without(v1, "statement")],
    ["no proof", without(v1, "proof")],
    ["proof a number", { ...v1, proof: 5 }],
    ["statement a text", { ...v1, statement: "x" }],
    ["an array", [v1]],
    ["a text", "x"],
    ["null", null],
    ["trusted_root hex", { ...v1, trusted_root: ROOT_HEX }],
    ["trusted_root list", { ...v1, trusted_root: [1, 2, 3, 4, 5, 6, 7, 8] }],
    ["trusted_root zz", { ...v1, trusted_root: "zz" }],
    ["trusted_root of 7", { ...v1, trusted_root: [1, 2, 3, 4, 5, 6, 7] }],
    ["trusted_root null", { ...v1, trusted_root: null }],
    ["verifier_key a number", { ...v1, verifier_key: 5, checkpoint: "x" }],
    ["verifier_key without checkpoint", { ...v1, verifier_key: "k+1+x" }],
    ["block body", block],
    ["block body with statement", { ...block, statement: v1.statement }],
    ["block body with trusted_root", { ...block, trusted_root: ROOT_HEX }],
    ["block body without proof", without(block, "proof")],
    ["block body from_root zz", { ...block, from_root: "zz" }],
    ["block body to_root hex", { ...block, to_root: ROOT_HEX }],
  ];
  const inputs = bodies.map(([label, body]) => ({ label, url: "/v1/verify", body }));
  const { differ, refused } = await disagreements("POST", "/v1/verify", "body", SCHEMAS.verify.body, inputs);
  assert.ok(refused >= 8, `the corpus holds refused bodies (${refused})`);
  // The schema documents the well-formed body; these two the route answers with a REJECT verdict (200), not a 400.
  assert.deepEqual(differ, [
    "proof a number: route accepts, schema refuses",
    "statement a text: route accepts, schema refuses",
  ]);
});
