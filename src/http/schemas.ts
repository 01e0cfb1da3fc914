/**
 * JSON schemas of the API's routes: they make the OpenAPI document. Inputs are checked by
 * values.ts and the routes so that each 400 names its field in words (validation is off);
 * test/http/schemas.test.ts holds the write bodies' schemas to the bodies values.ts accepts, and
 * test/http/route-schemas.test.ts every route's parameters, query strings and verify body to what
 * the route refuses (the few rules JSON Schema cannot say are listed there).
 */
/** A root as the API writes it: its 32 bytes (8 canonical KoalaBear elements, little-endian u32 each) in 64 lowercase hex characters. */
const digest = {
  type: "string",
  pattern: "^[0-9a-f]{64}$",
  description:
    "a root: its 32 bytes (8 canonical KoalaBear elements, each a little-endian u32) as 64 lowercase hex characters",
} as const;
/** A root as text, as the API reads it (registry/root.ts `parseRoot`): 64 hex characters, or 8 decimal elements as "[a, b, …]" or "a,b,…". */
const rootText = {
  type: "string",
  pattern: "^\\s*(?:[0-9a-fA-F]{64}|\\[?[\\s,]*[0-9]{1,10}(?:[\\s,]+[0-9]{1,10}){7}[\\s,]*\\]?)\\s*$",
} as const;
/** A root as the API reads it: the hex form, the list form `[a, b, …]` / `a,b,…`, or an array of 8 elements. */
const rootInput = {
  description:
    'a root: 64 hex characters (its 32 bytes), the list of its 8 elements as text ("[a, b, …]" or "a,b,…"), or a JSON array of 8 canonical elements',
  anyOf: [
    rootText,
    { type: "array", items: { type: "integer", minimum: 0, maximum: 2130706432 }, minItems: 8, maxItems: 8 },
  ],
} as const;
/** A root in a JSON body, where null stands for none (values.ts `bodyRoot`). */
const bodyRootInput = { anyOf: [...rootInput.anyOf, { type: "null" }] } as const;
const error = {
  type: "object",
  properties: { code: { type: "string" }, message: { type: "string" } },
  required: ["code", "message"],
} as const;
const value = {
  description: 'a text, null, or {"fields": [..]}',
  anyOf: [
    { type: "string" },
    { type: "null" },
    { type: "object", properties: { fields: { type: "array", items: { type: "integer" } } } },
  ],
} as const;
const nameParam = {
  type: "object",
  properties: {
    name: {
      type: "string",
      minLength: 1,
      maxLength: 1024,
      description:
        "record name (1 to 1,024 UTF-8 bytes of valid UTF-8), URL-encoded as one path segment (e.g. %40scope%2Fpkg)",
    },
  },
  required: ["name"],
} as const;
const statement = {
  type: "object",
  description:
    "what the proof proves: membership {name, value, root}, nonmembership {name, absent: true, root} or update {op, name, old, new, old_root, new_root} (old {record: true}: a live record whose value is not stated, in a profile v3 replace or delete)",
  properties: {
    registry_mapping: { type: "string" },
    kind: { type: "string", enum: ["membership", "nonmembership", "update"] },
    name: { type: "string" },
    value,
    absent: { type: "boolean" },
    root: digest,
    old_root: digest,
    new_root: digest,
    op: { type: "string" },
    slot: { type: "integer" },
    batch: { type: "integer" },
  },
  additionalProperties: true,
} as const;
/** The fields of an answer about a name that is not in Unicode NFC. */
const nameForm = {
  nfc_name: {
    type: "string",
    description: "present when the name is not in Unicode NFC: its NFC form (records are written only under NFC names)",
  },
  name_notice: {
    type: "string",
    description: "present when the name is not in Unicode NFC: the answer is about that exact spelling",
  },
} as const;
const proofBody = {
  type: "object",
  description:
    "a statement and its proof in base64: compat-v1 (profile v1: the request, §16.2 field names, and the inner-proof-v1 bytes) or profile v3 (the inner-proof-v3 bytes alone, checked from the statement)",
  properties: {
    statement,
    request: {
      type: "object",
      additionalProperties: true,
      description: "compat-v1 only: the request the proof is checked with (absent in profile v3)",
    },
    profile: { type: "string", enum: ["v1", "v3"], description: "the proof's profile" },
    zk: {
      type: "boolean",
      description:
        "present (true) for a proof in v3-zk, the zero-knowledge mode of profile v3 (docs/profile-v3.md §11): its bytes reveal nothing about the path beyond the statement",
    },
    proof: { type: "string", description: "base64" },
    root: digest,
    batch: { type: "integer" },
    checkpoint: {
      type: "string",
      description:
        "with --signing-key: the signed checkpoint (C2SP tlog-checkpoint note text) of the root the proof is about",
    },
    proof_bytes: { type: "integer" },
    prove_ms: { type: "number" },
    cached: { type: "boolean" },
    ...nameForm,
  },
  required: ["statement", "proof"],
  additionalProperties: true,
} as const;
const profileQuery = {
  type: "string",
  enum: ["v1", "v3"],
  description:
    "v1 (default): a compat-v1 proof, checked with its request; v3: a profile v3 proof (docs/profile-v3.md), checked from the statement alone (name-keyed registries)",
} as const;
const zkQuery = {
  type: "string",
  enum: ["0", "1"],
  description:
    "1: a zero-knowledge proof (v3-zk, docs/profile-v3.md §11: profile v3 whose bytes reveal nothing about the path beyond the statement; implies profile=v3, and with profile=v1 is a 400 naming query.zk); 0 (default): as profile says",
} as const;
const batchParam = {
  type: "object",
  properties: {
    batch: {
      type: "string",
      pattern: "^[0-9]{1,10}$",
      description: "the registry batch the block committed (a decimal number)",
    },
  },
  required: ["batch"],
} as const;
/** The `part` query of the block routes: a part of a batch proved in parts. */
const partQuery = {
  type: "object",
  properties: {
    part: {
      type: "integer",
      minimum: 0,
      maximum: 99_999,
      description:
        "a batch of more updates than one block proof holds (maxBlockUpdates: 2,048 at depth 48) is proved in parts: the part, from 0 (required for such a batch; a batch of one block has none)",
    },
  },
} as const;
const blockSummary = {
  type: "object",
  properties: {
    batch: { type: "integer" },
    profile: { type: "string", enum: ["v3"] },
    operations: { type: "integer" },
    from_root: digest,
    to_root: digest,
    proof_bytes: { type: "integer" },
    json_bytes: { type: "integer" },
    part: { type: "integer", description: "a batch proved in parts: this part, from 0" },
    parts: { type: "integer", description: "a batch proved in parts: its parts" },
  },
  required: ["batch", "profile", "operations", "from_root", "to_root", "proof_bytes", "json_bytes"],
} as const;
const errors = (...codes: number[]) =>
  Object.fromEntries(codes.map((c) => [c, { description: `error (${c})`, ...error }]));
const writeFields = {
  value: { anyOf: [{ type: "string" }, { type: "null" }] },
  fields: { type: "array", items: { type: "integer" } },
} as const;
/** The body of PUT: exactly one of "value" and "fields" (values.ts `bodyValue`; test/http/schemas.test.ts keeps the two equal). */
const writeBody = {
  type: "object",
  description: '{"value": "text"}, {"value": null} or {"fields": [..]}',
  properties: writeFields,
  minProperties: 1,
  maxProperties: 1,
  additionalProperties: false,
} as const;
/** The body of a restore: as PUT's, or none (no body, null or {}: the record's last value). */
const restoreBody = {
  description:
    '{"value": "text"}, {"value": null} or {"fields": [..]}, or no body (null or {}) to restore the last value',
  anyOf: [{ type: "null" }, { type: "object", properties: writeFields, maxProperties: 1, additionalProperties: false }],
} as const;
const bearer = [{ bearer: [] as string[] }];
/** The body of a proof check: a proof body with the roots it may be checked against. */
function recordVerifyBody() {
  return {
    ...proofBody,
    description: "a proof body (not a block body: no `block`); `verifier_key` comes with `checkpoint`",
    properties: {
      ...proofBody.properties,
      statement: {
        ...statement,
        properties: { ...statement.properties, root: rootInput, old_root: rootInput, new_root: rootInput },
      },
      trusted_root: {
        anyOf: [...bodyRootInput.anyOf],
        description: `the root you trust (${rootInput.description}; null: none); without it the statement's root is used and the verdict says so`,
      },
      verifier_key: {
        type: "string",
        description:
          "the verifier key NAME+HASH+KEY you trust: the trusted root is then the root of `checkpoint`, once its signature by this key verifies (CHECKPOINT_MALFORMED, CHECKPOINT_WRONG_KEY, CHECKPOINT_BAD_SIGNATURE otherwise)",
      },
    },
    allOf: [
      { not: { required: ["block"] } },
      { anyOf: [{ not: { required: ["verifier_key"] } }, { required: ["checkpoint"] }] },
    ],
  };
}
/** The body of a block check: a profile v3 block directory's files and the roots it is checked against. */
const blockVerifyBody = {
  type: "object",
  description: "a profile v3 registry block (ssgkr registry prove-block --profile v3): block.json and block.bin",
  properties: {
    block: {
      anyOf: [{ type: "object", additionalProperties: true }, { type: "string" }],
      description: 'block.json: the object, or its text (profile "v3", depth, leaf_max_fields, updates: at most 4,096)',
    },
    proof: { type: "string", description: "block.bin (inner-proof-v3) in base64" },
    from_root: {
      anyOf: [...bodyRootInput.anyOf],
      description: `the root you trust before the block (${rootInput.description}); without it block.json's from_root is used and the verdict says so`,
    },
    to_root: {
      anyOf: [...bodyRootInput.anyOf],
      description: `the root after the block (${rootInput.description}); without it block.json's to_root`,
    },
  },
  required: ["block", "proof"],
  additionalProperties: false,
} as const;

/** What a write answers once its epoch has committed (write-answer.ts; slot registries answer the update proof instead). */
const writeAnswer = {
  description:
    "the write's epoch committed: its update, batch, 0-based position in the batch's change log, new root, the signed checkpoint (when the server signs) and where to get a proof of the new state (name-keyed registries; a slot registry answers the update proof)",
  type: "object",
  properties: {
    status: { type: "string", enum: ["committed"] },
    op: { type: "string", enum: ["insert", "replace", "delete", "restore"] },
    name: { type: "string" },
    batch: { type: "integer" },
    position: { type: "integer" },
    root: digest,
    checkpoint: { type: "string" },
    proof: { type: "string", description: "GET this path for a proof of the name's state at the new root" },
    prove: { type: "string" },
  },
  additionalProperties: true,
} as const;
/** What a write answers under `Prefer: respond-async` once it is durable (202). */
const writeAccepted = {
  description: "Prefer: respond-async: the write is durable and a coming epoch applies it",
  type: "object",
  properties: {
    status: { type: "string", enum: ["accepted"] },
    op: { type: "string" },
    name: { type: "string" },
    record: { type: "string" },
    message: { type: "string" },
  },
  additionalProperties: true,
} as const;
/** The headers a write reads. */
const writeHeaders = {
  type: "object",
  properties: {
    "idempotency-key": {
      type: "string",
      minLength: 1,
      maxLength: 128,
      pattern: "^[\\x21-\\x7e]+$",
      description:
        "a retried write with the same key applies once and gets the first answer (kept 24 h, the last 100,000 keys)",
    },
    prefer: { type: "string", description: "respond-async: answer 202 once the write is durable" },
  },
} as const;

export const SCHEMAS = {
  root: {
    summary: "current root, batch and record counts",
    tags: ["reads"],
    response: {
      200: {
        type: "object",
        properties: {
          root: digest,
          batch: { type: "integer" },
          records: { type: "integer" },
          deleted: { type: "integer" },
          next_slot: { type: "integer" },
          depth: { type: "integer" },
          leaf_max_fields: { type: "integer" },
          registry_mapping: { type: "string" },
        },
        additionalProperties: true,
      },
    },
  },
  history: {
    summary: "committed batches with their roots, newest last",
    tags: ["reads"],
    querystring: {
      type: "object",
      properties: {
        limit: {
          type: "integer",
          minimum: 0,
          maximum: 100_000,
          description: "most recent N entries (default 1000, at most 100000)",
        },
      },
    },
    response: {
      200: {
        type: "object",
        properties: { entries: { type: "array", items: { type: "object", additionalProperties: true } } },
        additionalProperties: true,
      },
      ...errors(400),
    },
  },
  record: {
    summary: "a record's value, or that it is absent",
    tags: ["reads"],
    params: nameParam,
    response: {
      200: {
        type: "object",
        properties: {
          name: { type: "string" },
          status: { type: "string", enum: ["live", "deleted", "never registered"] },
          value,
          absent: { type: "boolean" },
          slot: { type: "integer" },
          root: digest,
          batch: { type: "integer" },
          ...nameForm,
        },
        additionalProperties: true,
      },
      ...errors(400),
    },
  },
  proof: {
    summary: "membership or absence proof of a name (JSON: statement, request, proof base64)",
    tags: ["reads"],
    params: nameParam,
    querystring: {
      type: "object",
      properties: {
        root: {
          ...rootText,
          description:
            "an earlier root (64 hex characters, or its 8 elements comma-separated): a name-keyed registry proves at any root of its retention window (410 ROOT_NOT_PROVABLE before it); a slot registry serves earlier roots only while their proofs are cached",
        },
        profile: profileQuery,
        zk: zkQuery,
      },
    },
    response: { 200: proofBody, ...errors(400, 404, 410) },
  },
  proofBin: {
    summary: "the proof bytes alone (application/octet-stream); the statement is in the X-Ssgkr-Statement header",
    tags: ["reads"],
    params: nameParam,
    querystring: {
      type: "object",
      properties: {
        root: { ...rootText, description: "an earlier root (64 hex characters, or its 8 elements comma-separated)" },
        profile: profileQuery,
        zk: zkQuery,
      },
    },
    response: {
      200: {
        description: "inner-proof-v1 bytes (profile v3: inner-proof-v3 bytes; zk=1: inner-proof-v3zk bytes)",
        type: "string",
        format: "binary",
      },
      ...errors(400, 404, 410),
    },
  },
  verify: {
    summary:
      "verify a statement, request and proof against a trusted root (the body of GET …/proof is accepted as is), or a profile v3 registry block (block.json and block.bin) against its from and to roots",
    tags: ["verify"],
    body: {
      type: "object",
      description:
        "a proof body {statement, request, proof[, trusted_root | verifier_key, checkpoint]} (profile v3: {statement, proof, …} without request) or a block body {block, proof[, from_root, to_root]} (a body with `block` is a block body)",
      oneOf: [recordVerifyBody(), blockVerifyBody],
    },
    response: {
      200: {
        type: "object",
        properties: {
          ok: { type: "boolean" },
          kind: { type: "string", enum: ["block"], description: "a block body's verdict" },
          code: { type: "string" },
          reason: { type: "string" },
          operation: {
            type: "integer",
            description: "a block's rejected update: its index in block.updates, from 0 (when the verdict names one)",
          },
          statement: { type: "string" },
          operations: { type: "integer", description: "a block's updates" },
          trusted_root: digest,
          root_source: { type: "string", enum: ["given", "statement", "checkpoint"] },
          from_root: digest,
          to_root: digest,
          to_root_source: {
            type: "string",
            enum: ["given", "statement"],
            description: "a block's to root: the body's to_root, or block.json's",
          },
          checkpoint: {
            type: "object",
            properties: { origin: { type: "string" }, size: { type: "integer" } },
            description: "the checkpoint the trusted root was taken from",
          },
          notice: { type: "string" },
          scope: { type: "string" },
          profile: {
            type: "string",
            enum: ["v1", "v3", "v3-zk"],
            description:
              "an accepted proof's profile: v1 (compat-v1, checked with its request), v3 (checked from the statement alone) or v3-zk (profile v3's zero-knowledge mode: the proof reveals nothing about the path beyond the statement)",
          },
          ...nameForm,
          prepare_ms: { type: "number" },
          verify_ms: { type: "number" },
        },
        required: ["ok"],
        additionalProperties: true,
      },
      ...errors(400, 413, 415, 422),
    },
  },
  put: {
    summary: "insert or replace a record; answered once its epoch has committed (or 202 under Prefer: respond-async)",
    tags: ["writes"],
    security: bearer,
    params: nameParam,
    headers: writeHeaders,
    body: writeBody,
    response: {
      200: { anyOf: [writeAnswer, proofBody] },
      202: writeAccepted,
      ...errors(400, 401, 403, 409, 413, 415, 422, 503),
    },
  },
  del: {
    summary: "delete a record; answered once its epoch has committed (or 202 under Prefer: respond-async)",
    tags: ["writes"],
    security: bearer,
    params: nameParam,
    headers: writeHeaders,
    response: {
      200: { anyOf: [writeAnswer, proofBody] },
      202: writeAccepted,
      ...errors(400, 401, 403, 404, 409, 422, 503),
    },
  },
  restore: {
    summary:
      "restore a deleted record (optionally with a new value); answered once its epoch has committed (or 202 under Prefer: respond-async)",
    tags: ["writes"],
    security: bearer,
    params: nameParam,
    headers: writeHeaders,
    body: restoreBody,
    response: {
      200: { anyOf: [writeAnswer, proofBody] },
      202: writeAccepted,
      ...errors(400, 401, 403, 404, 409, 413, 415, 422, 503),
    },
  },
  checkpoint: {
    summary:
      "the signed checkpoint of the head (C2SP tlog-checkpoint: origin, size = batch, base64 root; signed-note Ed25519 signature line), text/plain",
    tags: ["reads"],
    produces: ["text/plain"],
    querystring: {
      type: "object",
      properties: {
        size: {
          type: "integer",
          minimum: 0,
          maximum: 999_999_999,
          description:
            "the checkpoint of this size (a batch of the history; default the head's), signed as the head's is",
        },
      },
    },
    response: {
      200: { description: "the signed note, byte for byte what `ssgkr registry checkpoint` prints", type: "string" },
      ...errors(400, 404),
    },
  },
  blocks: {
    summary: "the profile v3 block proofs the registry committed (`registry prove-block --profile v3`), oldest first",
    tags: ["blocks"],
    querystring: {
      type: "object",
      properties: {
        after: {
          type: "integer",
          minimum: 0,
          maximum: 999_999_999,
          description: "list the blocks of batches after this one (paging: the last batch of the previous page)",
        },
        limit: {
          type: "integer",
          minimum: 0,
          maximum: 1000,
          description: "at most N blocks (default 100, at most 1000)",
        },
      },
    },
    response: {
      200: {
        type: "object",
        properties: {
          blocks: { type: "array", items: blockSummary },
          more: { type: "boolean", description: "more blocks follow: ask again with after = the last batch" },
        },
        required: ["blocks", "more"],
        additionalProperties: false,
      },
      ...errors(400),
    },
  },
  block: {
    summary:
      "a block proof as the body POST /v1/verify checks: {block: <block.json>, proof: <block.bin, base64>, batch}",
    tags: ["blocks"],
    params: batchParam,
    querystring: partQuery,
    response: {
      200: {
        type: "object",
        properties: {
          block: { type: "object", additionalProperties: true },
          proof: { type: "string", description: "block.bin (inner-proof-v3, proof kind 2) in base64" },
          batch: { type: "integer" },
        },
        required: ["block", "proof"],
        additionalProperties: true,
      },
      ...errors(400, 404),
    },
  },
  changes: {
    summary:
      "the change list of a committed batch, one storage part at a time: what registry workers replay to follow the head before its block is proved",
    tags: ["blocks"],
    params: batchParam,
    querystring: partQuery,
    response: {
      200: {
        type: "object",
        properties: {
          batch: { type: "integer" },
          updates: { type: "integer", description: "updates of the whole batch" },
          parts: { type: "integer", description: "storage parts of the change list" },
          part: { type: "integer" },
          changes: { type: "array", items: { type: "object", additionalProperties: true } },
        },
        required: ["batch", "updates", "parts", "part", "changes"],
        additionalProperties: false,
      },
      ...errors(400, 404, 410),
    },
  },
  blockJson: {
    summary: "block.json of a block proof, byte for byte as prove-block wrote it",
    tags: ["blocks"],
    params: batchParam,
    querystring: partQuery,
    response: { 200: { type: "object", additionalProperties: true }, ...errors(400, 404) },
  },
  blockBin: {
    summary:
      "block.bin of a block proof (application/octet-stream); its roots in the X-Ssgkr-From-Root and X-Ssgkr-To-Root headers",
    tags: ["blocks"],
    params: batchParam,
    querystring: partQuery,
    response: {
      200: { description: "inner-proof-v3 bytes (proof kind 2)", type: "string", format: "binary" },
      ...errors(400, 404),
    },
  },
  page: {
    summary: "the browser verifier page",
    tags: ["page"],
    response: { 200: { description: "text/html", type: "string" } },
  },
} as const;
