/**
 * The leaf sponge A/B of the WHIR commitment: each `-s3` set against its `-l24` twin (the same
 * schedule, Merkle leaves hashed by the Poseidon2-24 sponge at rate 16 instead of the
 * Poseidon2-16 sponge at rate 8; docs/pcs.md §4.3), in one process, alternating.
 *
 *   npm run bench -- pcs-leaf [--variables 22] [--repeats 3] [--verify-calls 5]
 *     [--pairs cb100-r4-s3:cb100-r4-s3-l24,ud100-r4-s3:ud100-r4-s3-l24]
 *
 * Per pair: 2^m random base-field evaluations and two claims at random points (shared by both
 * sets); `repeats` rounds of commit + open with A then B (B first in odd rounds), one thread, WASM
 * kernels; then `verify-calls` verifications of each side's last proof, alternating. Times are
 * process CPU ms (`process.cpuUsage`), medians; the Merkle phase is wall ms (src/pcs/phases.ts).
 * The conditions line first, one line per pair, full results in bench/results/pcs-leaf.json, and
 * the headline JSON last (`<B>_over_<A>`: B's commit + open over A's, per pair).
 */
import { extRandom } from "../src/field/extension.js";
import { whirCommit, whirOpen, whirVerify, type WhirClaim, type WhirSetId } from "../src/pcs/index.js";
import { evaluateCoefficients, evaluationsToCoefficients, liftToExtension } from "../src/pcs/multilinear.js";
import { withPhaseTimer } from "../src/pcs/phases.js";
import { conditions, conditionsLine, fmt, printHeadline, progress, writeResults } from "./lib/index.js";
import { stat } from "./lib/cpu.js";
import { int, parseOptions, text } from "./lib/options.js";

const args = parseOptions(
  {
    variables: int(4, 22),
    repeats: int(1, 100),
    "verify-calls": int(1, 1000),
    pairs: text(/^[a-z0-9-]+:[a-z0-9-]+(,[a-z0-9-]+:[a-z0-9-]+)*$/, "SET:SET[,SET:SET…]"),
  },
  { smoke: { variables: "10", repeats: "1", "verify-calls": "1", pairs: "cb100-r4-s3:cb100-r4-s3-l24" } },
);
const m = Number(args.get("variables") ?? 22);
const repeats = Number(args.get("repeats") ?? 3);
const verifyCalls = Number(args.get("verify-calls") ?? 5);
const pairs = (args.get("pairs") ?? "cb100-r4-s3:cb100-r4-s3-l24,ud100-r4-s3:ud100-r4-s3-l24")
  .split(",")
  .map((p) => p.split(":") as [WhirSetId, WhirSetId]);

const P = 2_130_706_433;
function cpuMs(fn: () => void): number {
  const c0 = process.cpuUsage();
  fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

interface Side {
  readonly set: WhirSetId;
  readonly commitOpen: number[];
  readonly merkle: number[];
  readonly verify: number[];
  proofBytes: number;
  last: { commitment: ReturnType<typeof whirCommit>["commitment"]; proof: Uint8Array } | null;
}

function run(side: Side, evals: Uint32Array, claims: WhirClaim[]): void {
  let merkle = 0;
  let proof: Uint8Array = new Uint8Array(0);
  let committed!: ReturnType<typeof whirCommit>;
  const ms = cpuMs(() =>
    withPhaseTimer(
      (name, t) => {
        if (name === "merkle") merkle += t;
      },
      () => {
        committed = whirCommit(evals, { set: side.set, workers: null });
        proof = whirOpen(committed, claims, { workers: null });
      },
    ),
  );
  side.commitOpen.push(ms);
  side.merkle.push(merkle);
  side.proofBytes = proof.length;
  side.last = { commitment: committed.commitment, proof };
}

const cond = conditions();
console.log(conditionsLine(cond));
const summary: Record<string, number> = {};
const rows: unknown[] = [];
for (const [a, b] of pairs) {
  progress(`m=${m}: ${a} vs ${b}, ${repeats} rounds, alternating`);
  const evals = Uint32Array.from({ length: 1 << m }, () => Math.floor(Math.random() * P));
  const coeffs = liftToExtension(evals);
  evaluationsToCoefficients(coeffs, 4);
  const claims: WhirClaim[] = [0, 1].map(() => {
    const point = Array.from({ length: m }, () => extRandom());
    return { point, value: evaluateCoefficients(coeffs, point) };
  });
  const sides: Side[] = [a, b].map((set) => ({
    set,
    commitOpen: [],
    merkle: [],
    verify: [],
    proofBytes: 0,
    last: null,
  }));
  for (let r = 0; r < repeats; r++) {
    const order = r % 2 === 0 ? sides : [sides[1]!, sides[0]!];
    for (const s of order) run(s, evals, claims);
  }
  for (let v = 0; v < 2 * verifyCalls; v++) {
    const s = sides[v % 2]!;
    let ok = false;
    s.verify.push(
      cpuMs(() => (ok = whirVerify(s.last!.commitment, claims, s.last!.proof, { alsoAccept: [s.set] }).ok)),
    );
    if (!ok) throw new Error(`${s.set}: an honest opening was rejected`);
  }
  const row = sides.map((s) => ({
    set: s.set,
    commitOpenMs: stat(s.commitOpen).median,
    commitOpenAll: s.commitOpen.map((x) => Math.round(x)),
    merkleMs: stat(s.merkle).median,
    verifyMs: stat(s.verify).median,
    proofBytes: s.proofBytes,
  }));
  const ratio = row[1]!.commitOpenMs / row[0]!.commitOpenMs;
  rows.push({ m, pair: [a, b], sides: row, commitOpenRatio: ratio });
  console.log(
    row
      .map(
        (x) =>
          `${x.set}: commit+open ${fmt(x.commitOpenMs, 0)} ms CPU (${x.commitOpenAll.join(", ")}), merkle ${fmt(x.merkleMs, 0)} ms, verify ${fmt(x.verifyMs, 2)} ms, proof ${x.proofBytes} B`,
      )
      .join("\n") + `\n  ratio ${fmt(ratio, 3)}`,
  );
  summary[`${b}_over_${a}`] = Number(ratio.toFixed(3));
}
progress(`results in ${writeResults("pcs-leaf", { conditions: cond, m, repeats, verifyCalls, rows })}`);
printHeadline({ variables: m, ...summary });
