/**
 * The write bodies' schemas (src/http/schemas.ts, which make the OpenAPI document) against their
 * hand check (values.ts `bodyValue`, which the routes run: validation is off so that each 400
 * names its field in words). Each schema is compiled by fastify's validator as JSON Schema reads
 * it (no type coercion, additional properties refused rather than removed) and must refuse every
 * body the hand check refuses and accept every body it accepts, but for the one listed below.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import Fastify from "fastify";
import { SCHEMAS } from "../../src/http/schemas.js";
import { HttpError } from "../../src/http/errors.js";
import { bodyValue } from "../../src/http/values.js";

/** No body at all (no payload, no content-type). */
const NONE = Symbol("no body");

/** Bodies as JSON texts parse to them: good, bad and borderline. */
const BODIES: readonly unknown[] = [
  NONE,
  null,
  {},
  [],
  "x",
  5,
  true,
  [1],
  { value: "https://example.com/x" },
  { value: "" },
  { value: null },
  { fields: [] },
  { fields: [0, 1, 2130706432] },
  { fields: [-1, 2 ** 40] },
  { value: 5 },
  { value: true },
  { value: ["a"] },
  { value: {} },
  { fields: [1.5] },
  { fields: ["1"] },
  { fields: "1,2" },
  { fields: null },
  { fields: [null] },
  { fields: {} },
  { value: "x", fields: [1] },
  { values: "x" },
  { value: "x", extra: 1 },
  { extra: 1 },
  { fields: [1], value: null },
];

/**
 * Where the two differ on purpose, by route: the hand check takes an empty array for no body
 * (restore: the last value), which the schema does not document.
 */
const KNOWN: Readonly<Record<string, readonly string[]>> = {
  put: [],
  restore: ["[]: hand check accepts, schema refuses"],
};

/** Whether the hand check accepts a body. */
function handAccepts(body: unknown, required: boolean): boolean {
  try {
    bodyValue(body === NONE ? undefined : body, required);
    return true;
  } catch (e) {
    assert.ok(
      e instanceof HttpError && e.code === "BAD_INPUT",
      `the hand check refuses with BAD_INPUT, got ${String(e)}`,
    );
    return false;
  }
}

/** Whether fastify, validating with the route's body schema, lets a body through. */
async function schemaAccepts(schema: object): Promise<(body: unknown) => Promise<boolean>> {
  const app = Fastify({ ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false } } });
  app.put("/x", { schema: { body: schema } }, async () => ({ ok: true }));
  await app.ready();
  return async (body) => {
    const res =
      body === NONE
        ? await app.inject({ method: "PUT", url: "/x" })
        : await app.inject({
            method: "PUT",
            url: "/x",
            headers: { "content-type": "application/json" },
            payload: JSON.stringify(body),
          });
    assert.ok(res.statusCode === 200 || res.statusCode === 400, `status ${res.statusCode}: ${res.body}`);
    return res.statusCode === 200;
  };
}

for (const [route, required] of [
  ["put", true],
  ["restore", false],
] as const) {
  test(`schemas: the ${route} body schema accepts exactly the bodies bodyValue accepts (required: ${required})`, async () => {
    const accepts = await schemaAccepts(SCHEMAS[route].body);
    const disagreements: string[] = [];
    let refused = 0;
    for (const body of BODIES) {
      const hand = handAccepts(body, required);
      if (!hand) refused++;
      if ((await accepts(body)) !== hand)
        disagreements.push(
          `${body === NONE ? "(no body)" : JSON.stringify(body)}: hand check ${hand ? "accepts" : "refuses"}, schema ${hand ? "refuses" : "accepts"}`,
        );
    }
    assert.ok(refused >= 15 && refused < BODIES.length, `the corpus holds bodies of both kinds (${refused} refused)`);
    assert.deepEqual(disagreements, KNOWN[route]);
  });
}
