/**
 * Work bounds of `ssgkr verify` against hostile requests and proofs, asserted on work done (how
 * many circuits were prepared) and on memory (peak RSS of a child process running the real CLI
 * entry point), never on time: no hostile request or proof makes the verifier use more than
 * 64 MiB beyond what the honest depth-64 configuration needs.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
  ftruncateSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { goldenFixture } from "../../src/smt/fixture.js";
import { hashLeaf } from "../../src/smt/leaf.js";
import { computeRoot } from "../../src/smt/path.js";
import type { OpRequest } from "../../src/smt/operation.js";
import { OpKind } from "../../src/statement/types.js";
import { prepare } from "../../src/sync/prepared.js";
import { provePrepared } from "../../src/sync/prove.js";
import { encodeSyncResult } from "../../src/sync/encoded.js";
import { fromOpRequest } from "../../src/sync/request-convert.js";
import { requestToJson } from "../../src/sync/request.js";
import { OFFSET } from "../../src/codec/layout.js";

const here = dirname(fileURLToPath(import.meta.url));
const child = resolve(here, "..", "support", "verify-peak-child.js");
const MiB = 1024;
const BUDGET_KIB = 64 * MiB;

interface Peak {
  code: number;
  peakKiB: number;
  prepares: number;
  stdout: string;
  stderr: string;
}

function runVerify(dir: string, args: string[]): Peak {
  const out = join(dir, `peak-${Math.random().toString(36).slice(2)}.json`);
  // the on-disk prepared-circuit cache off: each child prepares what it verifies (the measured case)
  const r = spawnSync(process.execPath, [child, "verify", ...args], {
    encoding: "utf8",
    env: { ...process.env, SSGKR_PEAK_OUT: out, SSGKR_CACHE: "off" },
    timeout: 180_000,
  });
  assert.ok(existsSync(out), `the child finished (status ${r.status}, signal ${r.signal}): ${r.stderr}`);
  return { ...JSON.parse(readFileSync(out, "utf8")), stdout: r.stdout, stderr: r.stderr };
}

/** The Update golden fixture's leaves and path at depth 64, with roots and digest for leaf bound B. */
function updateRequest(B: number): OpRequest {
  const f = goldenFixture(OpKind.Update, 64, 5n);
  const op = f.operation;
  if (op.kind !== OpKind.Update) throw new Error("update fixture expected");
  const siblings = f.witness.siblings;
  return {
    operation: op,
    witness: f.witness,
    publicInputs: {
      oldRoot: computeRoot(op.oldLeaf, 5n, siblings, 64, B),
      newRoot: computeRoot(op.newLeaf, 5n, siblings, 64, B),
      opKindTag: 2,
      assetId: 5n,
      valueDigest: hashLeaf(op.newLeaf, B),
    },
  };
}

function writeRequest(path: string, request: OpRequest, B: number, patch: Record<string, unknown> = {}): string {
  writeFileSync(path, JSON.stringify({ ...requestToJson(fromOpRequest(request, 64, B)), ...patch }));
  return path;
}

/** A file of `size` bytes that starts with `head` (sparse: no disk space is used for the rest). */
function sparseFile(path: string, head: Uint8Array, size: number): string {
  const fd = openSync(path, "w");
  writeSync(fd, head);
  ftruncateSync(fd, size);
  closeSync(fd);
  return path;
}

test("hostile requests and proofs stay within 64 MiB of the honest d64 verification and prepare nothing they do not claim", {
  skip: process.platform !== "linux" && "peak RSS is read from /proc",
}, (t) => {
  const dir = mkdtempSync(join(tmpdir(), "ssgkr-verify-mem-"));
  try {
    // Honest d64 (B = 31) and maximal-configuration (d64, B = 63) update proofs.
    const honest = updateRequest(31);
    const honestPrepared = prepare(OpKind.Update, { depth: 64 });
    const honestBytes = encodeSyncResult(honestPrepared, provePrepared(honestPrepared, honest));
    const maxRequest = updateRequest(63);
    const maxPrepared = prepare(OpKind.Update, { depth: 64, leafMaxFields: 63 });
    const maxBytes = encodeSyncResult(maxPrepared, provePrepared(maxPrepared, maxRequest));
    const req31 = writeRequest(join(dir, "d64.json"), honest, 31);
    const proof31 = join(dir, "d64.bin");
    writeFileSync(proof31, honestBytes);
    const reqMax = writeRequest(join(dir, "d64-b63.json"), maxRequest, 63);
    const proofMax = join(dir, "d64-b63.bin");
    writeFileSync(proofMax, maxBytes);

    const baseline = runVerify(dir, ["--request", req31, "--proof", proof31]);
    assert.equal(baseline.code, 0, baseline.stdout + baseline.stderr);
    assert.match(baseline.stdout, /^ACCEPT /);
    assert.equal(baseline.prepares, 1);
    t.diagnostic(`honest d64: peak ${Math.round(baseline.peakKiB / MiB)} MiB`);

    // A proof that declares a huge configuration against the honest request: rejected from its header.
    const hugeIdentity = honestBytes.slice();
    const view = new DataView(hugeIdentity.buffer);
    view.setUint32(OFFSET.depth, 0xffffffff, true);
    view.setUint16(OFFSET.leafMaxFields, 0xffff, true);
    const hugeIdentityProof = join(dir, "huge-identity.bin");
    writeFileSync(hugeIdentityProof, hugeIdentity);
    // The d64 proof with its leaf bound relabelled 63: claims the maximal configuration, wrong commitment.
    const relabelled = honestBytes.slice();
    new DataView(relabelled.buffer).setUint16(OFFSET.leafMaxFields, 63, true);
    const relabelledProof = join(dir, "relabelled.bin");
    writeFileSync(relabelledProof, relabelled);

    const cases: { name: string; args: string[]; code: number; line: RegExp; prepares: number }[] = [
      {
        name: "leaf_max_fields 65535",
        args: [
          "--request",
          writeRequest(join(dir, "b65535.json"), honest, 31, { leaf_max_fields: 65535 }),
          "--proof",
          proof31,
        ],
        code: 2,
        line: /^error REQUEST_SCHEMA: .*\$\.leaf_max_fields/,
        prepares: 0,
      },
      {
        name: "leaf_max_fields 2000",
        args: [
          "--request",
          writeRequest(join(dir, "b2000.json"), honest, 31, { leaf_max_fields: 2000 }),
          "--proof",
          proof31,
        ],
        code: 2,
        line: /^error REQUEST_SCHEMA: .*\$\.leaf_max_fields/,
        prepares: 0,
      },
      {
        name: "proof declaring depth 2^32 − 1 and B = 65535",
        args: ["--request", req31, "--proof", hugeIdentityProof],
        code: 1,
        line: /^REJECT IDENTITY_MISMATCH: .*depth 4294967295 ≠ 64.*leaf_max_fields 65535 ≠ 31/,
        prepares: 0,
      },
      {
        name: "B = 63 request with the B = 31 proof",
        args: ["--request", reqMax, "--proof", proof31],
        code: 1,
        line: /^REJECT IDENTITY_MISMATCH: .*leaf_max_fields 31 ≠ 63/,
        prepares: 0,
      },
      {
        name: "B = 63 request with a relabelled proof (wrong commitment)",
        args: ["--request", reqMax, "--proof", relabelledProof],
        code: 1,
        line: /^REJECT IDENTITY_MISMATCH: /,
        prepares: 1,
      },
      {
        name: "honest proof of the largest configuration (d64, B = 63)",
        args: ["--request", reqMax, "--proof", proofMax],
        code: 0,
        line: /^ACCEPT /,
        prepares: 1,
      },
      {
        name: "1 GiB proof file",
        args: ["--request", req31, "--proof", sparseFile(join(dir, "1g.bin"), honestBytes.subarray(0, 200), 2 ** 30)],
        code: 1,
        line: /^REJECT PROOF_TOO_LARGE: /,
        prepares: 0,
      },
      {
        name: "1 GiB request file",
        args: [
          "--request",
          sparseFile(join(dir, "1g.json"), new TextEncoder().encode("{"), 2 ** 30),
          "--proof",
          proof31,
        ],
        code: 2,
        line: /^error FILE_TOO_LARGE: --request /,
        prepares: 0,
      },
    ];
    for (const c of cases) {
      const r = runVerify(dir, c.args);
      assert.equal(r.code, c.code, `${c.name}: ${r.stdout}${r.stderr}`);
      assert.match((r.stdout + r.stderr).trim(), c.line, c.name);
      assert.equal(r.prepares, c.prepares, `${c.name}: circuits prepared`);
      t.diagnostic(`${c.name}: peak ${Math.round(r.peakKiB / MiB)} MiB, ${r.prepares} prepared`);
      assert.ok(
        r.peakKiB <= baseline.peakKiB + BUDGET_KIB,
        `${c.name}: peak ${r.peakKiB} KiB > honest d64 ${baseline.peakKiB} KiB + 64 MiB`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
