/**
 * `POST /v1/verify` (docs/http.md "Verify"), as one fastify plugin: a proof body (compat-v1 with
 * its request, or profile v3 from the statement alone) against a trusted root, a bare root or the
 * root of a signed checkpoint under a verifier key; or a profile v3 registry block (`{block,
 * proof[, from_root, to_root]}`, counterparty/block-body.ts). Only the configurations the server
 * serves are verified (served-configs.ts: prepared before the server listens, so no request
 * prepares a circuit); any other is 422 `CONFIG_NOT_SERVED`.
 */
import type { FastifyInstance } from "fastify";
import { digestEquals } from "../hash/digest.js";
import { checkProofBody, statementConfigOf } from "../counterparty/body.js";
import { blockConfigOf, checkBlockBody } from "../counterparty/block-body.js";
import { describeStatement, formatRoot, type StatementJson } from "../counterparty/claim.js";
import { verifyCheckpoint } from "../registry/checkpoint/checkpoint.js";
import type { HttpContext } from "./context.js";
import { HttpError } from "./errors.js";
import { roundMs } from "./proof-answer.js";
import { SCHEMAS } from "./schemas.js";
import { bodyRoot } from "./values.js";

/** The verify route plugin (options: the app's `HttpContext`). */
export async function verifyRoute(app: FastifyInstance, ctx: HttpContext): Promise<void> {
  const { served } = ctx;

  /** A profile v3 block body `{block, proof[, from_root, to_root]}` (docs/http.md "Verify a block"). */
  const verifyBlock = (body: Record<string, unknown>) => {
    for (const f of ["statement", "request", "trusted_root", "verifier_key", "checkpoint"]) {
      if (body[f] !== undefined)
        throw new HttpError(
          "BAD_INPUT",
          `body.${f}: not a field of a block body {block, proof[, from_root, to_root]}`,
          { field: `body.${f}` },
        );
    }
    if (body.proof === undefined) throw new HttpError("BAD_INPUT", "body.proof: missing", { field: "body.proof" });
    const fromRoot = bodyRoot(body.from_root, "body.from_root");
    const toRoot = bodyRoot(body.to_root, "body.to_root");
    const config = blockConfigOf(body.block);
    if (config !== undefined) served.checkConfig(config.depth, config.leafMaxFields, "body.block");
    const v = checkBlockBody(body, { ...(fromRoot ? { fromRoot } : {}), ...(toRoot ? { toRoot } : {}) });
    return {
      ok: v.ok,
      kind: "block",
      ...(v.ok ? {} : { code: v.code, reason: v.reason }),
      ...(v.operation !== undefined ? { operation: v.operation } : {}),
      statement: v.statement,
      ...(v.operations !== undefined ? { operations: v.operations } : {}),
      ...(v.trustedRoot ? { trusted_root: v.trustedRoot } : {}),
      root_source: v.rootSource,
      ...(v.fromRoot ? { from_root: v.fromRoot, to_root: v.toRoot, to_root_source: v.toRootSource } : {}),
      ...(v.notice ? { notice: v.notice } : {}),
      prepare_ms: roundMs(v.prepareMs),
      verify_ms: roundMs(v.verifyMs),
    };
  };

  app.post("/v1/verify", { schema: SCHEMAS.verify, bodyLimit: ctx.verifyBodyBytes }, async (req) => {
    const body = req.body as Record<string, unknown> | undefined;
    if (typeof body !== "object" || body === null || Array.isArray(body))
      throw new HttpError(
        "BAD_INPUT",
        "body: must be {statement, request, proof[, trusted_root]} or {block, proof[, from_root, to_root]}",
        { field: "body" },
      );
    if (body.block !== undefined) return verifyBlock(body);
    for (const f of ["statement", "proof"])
      if (body[f] === undefined) throw new HttpError("BAD_INPUT", `body.${f}: missing`, { field: `body.${f}` });
    let trusted = bodyRoot(body.trusted_root, "body.trusted_root");
    // A compat-v1 proof is checked with its request (whose configuration must be served); a
    // profile v3 proof from the statement alone, whose depth and leaf bound must be served.
    if (body.request !== undefined) served.check(body.request);
    else {
      const config = statementConfigOf(body.statement);
      if (config !== undefined) served.checkConfig(config.depth, config.leafMaxFields, "body.statement");
    }
    // With verifier_key, the trusted root is the checkpoint's, once its signature verifies.
    let checkpoint: { origin: string; size: number } | undefined;
    if (body.verifier_key !== undefined) {
      if (typeof body.verifier_key !== "string")
        throw new HttpError("BAD_INPUT", "body.verifier_key: must be a verifier key NAME+HASH+KEY", {
          field: "body.verifier_key",
        });
      if (typeof body.checkpoint !== "string")
        throw new HttpError("BAD_INPUT", "body.checkpoint: a verifier key checks a signed checkpoint (its note text)", {
          field: "body.checkpoint",
        });
      const c = verifyCheckpoint(body.checkpoint, body.verifier_key, "body.verifier_key");
      const refused = !c.ok
        ? { code: c.code, reason: c.reason }
        : trusted !== undefined && !digestEquals(trusted, c.root)
          ? {
              code: "ROOT_NOT_TRUSTED",
              reason: `the checkpoint's root ${formatRoot(c.root)} is not the trusted root ${formatRoot(trusted)}`,
            }
          : undefined;
      if (refused !== undefined)
        return {
          ok: false,
          ...refused,
          statement: statementWords(body.statement),
          root_source: "checkpoint",
          prepare_ms: 0,
          verify_ms: 0,
        };
      if (c.ok) {
        trusted = c.root;
        checkpoint = { origin: c.origin, size: c.size };
      }
    }
    const v = checkProofBody(body, undefined, trusted);
    return {
      ok: v.ok,
      ...(v.ok ? {} : { code: v.code, reason: v.reason }),
      statement: v.statement,
      ...(v.trustedRoot ? { trusted_root: v.trustedRoot } : {}),
      root_source: checkpoint !== undefined ? "checkpoint" : v.rootSource,
      ...(checkpoint !== undefined ? { checkpoint } : {}),
      ...(v.notice ? { notice: v.notice } : {}),
      ...(v.scope ? { scope: v.scope } : {}),
      ...(v.profile !== undefined ? { profile: v.profile } : {}),
      ...(v.nfcName !== undefined ? { nfc_name: v.nfcName, name_notice: v.nameNotice } : {}),
      prepare_ms: roundMs(v.prepareMs),
      verify_ms: roundMs(v.verifyMs),
    };
  });
}

/** What a statement says, in words, or a placeholder for one that cannot be read. */
function statementWords(s: unknown): string {
  try {
    return describeStatement(s as StatementJson);
  } catch {
    return "(no statement)";
  }
}
