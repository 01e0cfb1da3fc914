/**
 * The verifier's process of the v3 and zk benchmarks: a process that holds only what a counterparty
 * or an auditor holds (the prepared circuit, the statements, the proof) and verifies, so that the
 * prover's garbage and compiled code are not charged to the verifier.
 *
 *   node dist/bench/children/verifier.js <job.json>
 *
 * The job (`VerifierJob`) names an aggregate (its fixtures by seed, its proof file), a v3 block (its
 * block.json and proof: what an auditor holds) or a block's witness checks (its requests and v2
 * proof: the native replay, then the v2 check). Each verifier runs `warmup` calls and then `calls`
 * measured ones, one verifier after the other. Prints one JSON line (`VerifierTimes`): per verifier the
 * process CPU ms and the wall ms of each measured call, and the CPU ms of its first (cold) call.
 */
import { readFileSync } from "node:fs";
import { goldenFixture } from "../../src/smt/fixture.js";
import { v3StatementOf } from "../../src/smt/v3/input.js";
import type { OpRequest } from "../../src/smt/operation.js";
import { OpKind } from "../../src/statement/types.js";
import { parseRequest } from "../../src/sync/request.js";
import { toOpRequest } from "../../src/sync/request-convert.js";
import { prepareV2, verifyBlock } from "../../src/sync/v2/index.js";
import { prepareV3, verifyAggregateV3, verifyBlockV3 } from "../../src/sync/v3/index.js";
import { v3BlockUpdates } from "../../src/registry/block-v3.js";
import { parseBlockDescription } from "../../src/registry/verify-block.js";
import { parseRoot } from "../../src/registry/root.js";
import { installKernelBackend } from "../../src/kernels/backend.js";
import { cpuTimed } from "../lib/cpu.js";
import { nativeReplay } from "../lib/native-replay.js";
import type { VerifierJob, VerifierTimes } from "../lib/verifier-process.js";

// The kernel backend of this thread: WASM when available, else the TypeScript references (SSGKR_KERNELS overrides).
installKernelBackend();

/** true for an acceptance, else the rejection's code and reason. */
function verdictOf(v: { readonly ok: boolean; readonly code?: string; readonly reason?: string }): true | string {
  return v.ok ? true : `${v.code}: ${v.reason}`;
}

function main(): void {
  const job = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as VerifierJob;
  const out: VerifierTimes = { cpu: {}, wall: {}, first: {} };
  const timed = (what: string, f: () => true | string): void => {
    const cpu: number[] = [],
      wall: number[] = [];
    for (let r = 0; r < job.warmup + job.calls; r++) {
      const w0 = performance.now();
      const [verdict, t] = cpuTimed(f);
      const w = performance.now() - w0;
      if (verdict !== true) throw new RangeError(`the ${what} verifier rejected the honest proof: ${String(verdict)}`);
      if (r === 0) out.first[what] = t;
      if (r >= job.warmup) {
        cpu.push(t);
        wall.push(w);
      }
    }
    out.cpu[what] = cpu;
    out.wall[what] = wall;
  };
  if (job.what === "aggregate") {
    const p = prepareV3(job.kind, { depth: job.depth });
    const statements = job.seeds.map((s) => v3StatementOf(goldenFixture(job.kind, job.depth, BigInt(s))));
    const bytes = new Uint8Array(readFileSync(job.proof));
    timed("v3", () => verdictOf(verifyAggregateV3(p, statements, bytes, job.options)));
  } else if (job.what === "block") {
    // the auditor's data: block.json and the proof, nothing else
    const blockJson = readFileSync(job.blockJson, "utf8");
    const { depth, leafMaxFields } = parseBlockDescription(blockJson);
    const roots = { fromRoot: parseRoot(job.fromRoot), toRoot: parseRoot(job.toRoot) };
    const p3 = prepareV3(OpKind.Update, { depth, leafMaxFields });
    const v3Bytes = new Uint8Array(readFileSync(job.proof));
    // the auditor's work from block.json alone: parse the updates, build the statements, verify
    timed("v3", () =>
      verdictOf(
        verifyBlockV3(
          p3,
          roots,
          v3BlockUpdates(parseBlockDescription(blockJson).updates, depth, leafMaxFields),
          v3Bytes,
        ),
      ),
    );
  } else {
    // the witness holder's data: the requests (every path) and the v2 proof
    const roots = { fromRoot: parseRoot(job.fromRoot), toRoot: parseRoot(job.toRoot) };
    const requests: OpRequest[] = (JSON.parse(readFileSync(job.requests, "utf8")) as unknown[]).map((r) =>
      toOpRequest(parseRequest(r)),
    );
    const p2 = prepareV2(OpKind.Update, { depth: job.depth, leafMaxFields: job.leafMaxFields });
    const v2Bytes = new Uint8Array(readFileSync(job.v2Proof));
    timed(
      "native",
      () => nativeReplay(requests, roots.fromRoot, roots.toRoot, job.leafMaxFields) || "the chain of roots differs",
    );
    timed("v2", () => verdictOf(verifyBlock(roots, requests, v2Bytes, { prepared: p2 })));
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}

main();
