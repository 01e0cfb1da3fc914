/**
 * The registry demo (`ssgkr demo`): imports the npm package → repository map, prepares the three
 * circuits once (`prepareAll`), then proves and verifies real registry statements end to end —
 * membership of a package, non-membership of a never-used slot, delete, non-membership of the
 * deleted package (Tombstone), restore, a replaced repository URL and an insert — plus negative
 * controls that must be rejected. Every step writes a request file and inner-proof-v1 bytes that
 * `ssgkr verify --request … --proof …` accepts or rejects the same way, and is verified here from
 * those files with `verifyEncoded` against the request in the file.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SsgkrError } from "../errors.js";
import type { Digest } from "../hash/digest.js";
import { digestEquals } from "../hash/digest.js";
import type { OccupiedLeaf } from "../smt/leaf.js";
import type { OpRequest } from "../smt/operation.js";
import { checkOperation } from "../smt/semantics.js";
import { OFFSET, EF_BYTES } from "../codec/layout.js";
import { prepareAll, type PreparedAll } from "../sync/prepare-all.js";
import { OpKind } from "../sync/types.js";
import { npmReposSource, NPM_REPOS_PACKAGE, NPM_REPOS_VERSION } from "./dataset.js";
import { importRecords } from "./import.js";
import { recordLeaf, type RecordValue } from "./mapping.js";
import { planDelete, planInsert, planReplace, planRestore, type PlannedUpdate } from "./operations.js";
import { RecordState } from "./record-codec.js";
import { RegistryStore } from "./store.js";
import { proveRequest, readOnlyRequest, updateRequest, verifyStepFiles, writeStepFiles, type StepFiles } from "./demo-requests.js";

/**
 * Errors of the demo set-up. Codes: `DEMO_DIR_NOT_EMPTY` (the chosen directory holds files),
 * `DEMO_TOO_FEW_RECORDS` (fewer than 3 records to import), `DEMO_REGISTRY_FULL` (the records
 * leave no never-used slot at this depth), `DEMO_BAD_STEP` (an unknown step given to `faultStep`).
 */
export class DemoError extends SsgkrError {}

/** The two verdicts of a verifier. */
export type DemoVerdict = "ACCEPT" | "REJECT";

/** Packages the demo uses when the registry holds them (the first 2,000 records of the npm map do). */
export const DEMO_PACKAGES = Object.freeze({
  /** Membership and the other-URL control: slot 119, https://github.com/winsonwq/2048term. */
  member: "2048",
  /** Delete, non-membership as Tombstone, restore: slot 422, https://github.com/Madvinking/0-logger. */
  removed: "0-logger",
  /** Replace: slot 450, https://github.com/ReiiYuki/0.css. */
  replaced: "0.css",
  /** Inserted at the first never-used slot. */
  inserted: "ssgkr-demo-inserted",
});

/** Value of the inserted record. */
export const DEMO_INSERTED_VALUE = "https://example.org/ssgkr-demo-inserted.git";

export interface DemoOptions {
  /** Working directory: created if absent, must be empty. The registry goes to `dir/registry`, step files to `dir/steps`. */
  readonly dir: string;
  /** Records of the npm map to import: a count (up to 100,000 offline) or "all" (full dataset, fetched beforehand). */
  readonly limit: number | "all";
  /** Tree depth of the demo registry, 1..48 (default 24). */
  readonly depth?: number;
  /** Hash worker threads of the import (default: the importer's). */
  readonly threads?: number;
  /**
   * Flips one bit of the proof of this step (e.g. "1") after it is written, before it is
   * verified — a check that a wrong verdict fails the demo. Not for normal use.
   */
  readonly faultStep?: string;
  /** Progress lines (e.g. to stderr). */
  readonly onProgress?: (line: string) => void;
}

/** One row of the demo: a statement, its proof and the verdict compared with the expected one. */
export interface DemoStep {
  /** "1".."7" for honest statements, "C1".."C3" for negative controls. */
  readonly id: string;
  readonly operation: string;
  /** What the step shows, one line. */
  readonly description: string;
  /** Package name (undefined for a never-used slot). */
  readonly packageName: string | undefined;
  readonly slot: number;
  /** Labels of the roots in `DemoReport.roots`: [before, after] (equal for read-only statements). */
  readonly roots: readonly [string, string];
  /** Length of the proof file in bytes. */
  readonly proofBytes: number;
  /** Proving + encoding time in ms; undefined when the proof bytes come from another step. */
  readonly proveMs: number | undefined;
  /** `verifyEncoded` time in ms. */
  readonly verifyMs: number;
  readonly expected: DemoVerdict;
  readonly got: DemoVerdict;
  /** Rejection code of the verifier (e.g. `PUBLIC_INPUTS_MISMATCH`), undefined on ACCEPT. */
  readonly code: string | undefined;
  readonly reason: string | undefined;
  readonly files: StepFiles;
}

export interface DemoRoot {
  /** "R0", "R1", … */
  readonly label: string;
  readonly root: Digest;
  /** What produced it. */
  readonly after: string;
}

export interface DemoReport {
  readonly dir: string;
  readonly registryDir: string;
  readonly source: string;
  readonly records: number;
  readonly depth: number;
  readonly leafMaxFields: number;
  /** Import wall time (ms). */
  readonly importMs: number;
  /** prepareAll time (ms): compile, commitments and wiring of the three circuits. */
  readonly prepareMs: number;
  readonly roots: readonly DemoRoot[];
  readonly steps: readonly DemoStep[];
  /** Whole demo wall time (ms). */
  readonly totalMs: number;
}

/** Steps whose verdict differs from the expected one. */
export function verdictMismatches(steps: readonly Pick<DemoStep, "id" | "expected" | "got">[]): string[] {
  return steps.filter((s) => s.expected !== s.got).map((s) => s.id);
}

/** True when the demo ran at least one step and every verdict is the expected one. */
export function demoSucceeded(steps: readonly Pick<DemoStep, "id" | "expected" | "got">[]): boolean {
  return steps.length > 0 && verdictMismatches(steps).length === 0;
}

const STEP_IDS = ["1", "2", "3", "4", "5", "6", "7", "C1", "C2", "C3"] as const;

function prepareDir(dir: string): void {
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw new DemoError("DEMO_DIR_NOT_EMPTY", `${dir} is a file; the demo needs an empty or new directory`, { dir });
    const entries = readdirSync(dir);
    if (entries.length > 0) throw new DemoError("DEMO_DIR_NOT_EMPTY", `${dir} is not empty (found ${entries.slice(0, 3).join(", ")}); the demo needs an empty or new directory`, { dir });
  }
  mkdirSync(dir, { recursive: true });
}

/** A live record with a text value: the preferred name if the registry holds it live, else the first such record from `fromSlot` on. */
function pickRecord(store: RegistryStore, preferred: string, fromSlot: number, taken: ReadonlySet<number>): { name: string; slot: number; value: RecordValue } {
  const slot = store.slotOf(preferred);
  if (slot !== undefined && !taken.has(slot)) {
    const r = store.record(slot);
    if (r?.state === RecordState.Live) return { name: r.name, slot, value: r.value };
  }
  const n = store.head().nextSlot;
  for (let i = 0; i < n; i++) {
    const s = (fromSlot + i) % n;
    if (taken.has(s)) continue;
    const r = store.record(s);
    if (r?.state === RecordState.Live && typeof r.value === "string") return { name: r.name, slot: s, value: r.value };
  }
  for (let s = 0; s < n; s++) {
    const r = store.record(s);
    if (!taken.has(s) && r?.state === RecordState.Live) return { name: r.name, slot: s, value: r.value };
  }
  throw new DemoError("DEMO_TOO_FEW_RECORDS", `the demo needs 3 live records, the registry has ${store.head().live}`);
}

/**
 * A repository URL different from `value`: the same path on gitlab.com (codeberg.org if that is
 * the value itself), or a demo path for null and pathless values.
 */
export function otherRepositoryUrl(name: string, value: RecordValue): string {
  const m = typeof value === "string" ? /^[a-z+]+:\/\/(?:[^@/]*@)?[^/]+(\/.*)?$/i.exec(value) : null;
  const path = m && m[1] && m[1] !== "/" ? m[1] : `/ssgkr-demo/${encodeURIComponent(name)}`;
  const url = `https://gitlab.com${path}`;
  return url === value ? `https://codeberg.org${path}` : url;
}

function flipBit(files: StepFiles): void {
  const bytes = new Uint8Array(readFileSync(files.proof));
  bytes[FLIP_OFFSET]! ^= 1;
  writeFileSync(files.proof, bytes);
}

/** A byte in the first sumcheck round of the output layer (its second coefficient, c0, low byte). */
const FLIP_OFFSET = OFFSET.layers + 4 + 1 + EF_BYTES;

/**
 * Runs the demo. Every step's proof is verified from its files; `DemoReport.steps` records the
 * expected and the obtained verdict (use `demoSucceeded`).
 * @throws DemoError `DEMO_DIR_NOT_EMPTY`, `DEMO_TOO_FEW_RECORDS`, `DEMO_REGISTRY_FULL`, `DEMO_BAD_STEP`; RegistryError
 *   from the import (`SOURCE_MISSING` for "all" without the fetched dataset, `BAD_SOURCE`,
 *   `BAD_CONFIG`, `REGISTRY_FULL` when the records do not fit 2^depth slots) and the updates.
 */
export async function runDemo(options: DemoOptions): Promise<DemoReport> {
  const started = performance.now();
  const progress = options.onProgress ?? (() => {});
  if (options.faultStep !== undefined && !(STEP_IDS as readonly string[]).includes(options.faultStep)) {
    throw new DemoError("DEMO_BAD_STEP", `no demo step ${JSON.stringify(options.faultStep)} (steps: ${STEP_IDS.join(", ")})`);
  }
  if (options.limit !== "all" && (!Number.isSafeInteger(options.limit) || options.limit < 3)) {
    throw new DemoError("DEMO_TOO_FEW_RECORDS", `the demo needs at least 3 records, got a limit of ${String(options.limit)}`);
  }
  const source = npmReposSource(options.limit);
  prepareDir(options.dir);
  const registryDir = join(options.dir, "registry");
  const stepsDir = join(options.dir, "steps");
  const store = RegistryStore.openOrCreate(registryDir, options.depth === undefined ? {} : { depth: options.depth });
  try {
    progress(`importing ${options.limit === "all" ? "all" : options.limit} records of ${NPM_REPOS_PACKAGE}@${NPM_REPOS_VERSION} into ${registryDir} …`);
    let first = true;
    const imported = await importRecords(store, () => (first ? ((first = false), source) : npmReposSource(options.limit)), {
      onError: "skip",
      ...(options.threads !== undefined ? { threads: options.threads } : {}),
      onMalformed: (i) => progress(`line ${i.line}: ${i.code}: ${i.message}`),
    });
    progress(`imported ${imported.imported} records in ${(imported.timings.wallMs / 1000).toFixed(1)} s`);
    const { depth, leafMaxFields: B } = store.config;

    progress(`preparing the membership, non-membership and update circuits (depth ${depth}, leaf bound ${B}) …`);
    const prepared: PreparedAll = prepareAll({ depth, leafMaxFields: B });
    progress(`prepared in ${(prepared.timings.totalMs / 1000).toFixed(1)} s`);

    const roots: DemoRoot[] = [];
    const rootLabel = (root: Digest, after: string): string => {
      const same = roots.find((r) => digestEquals(r.root, root));
      if (same) return same.label;
      const label = `R${roots.length}`;
      roots.push({ label, root: Uint32Array.from(root), after });
      return label;
    };
    rootLabel(store.head().root, `import of ${imported.imported} records`);

    const steps: DemoStep[] = [];
    const total = STEP_IDS.length;
    const record = (
      id: string,
      dirName: string,
      operation: string,
      description: string,
      packageName: string | undefined,
      slot: number,
      request: OpRequest,
      proof: { bytes: Uint8Array; ms: number | undefined },
      expected: DemoVerdict,
      rootLabels: readonly [string, string],
    ): DemoStep => {
      progress(`step ${steps.length + 1}/${total} (${id}): ${description}`);
      const files = writeStepFiles(join(stepsDir, dirName), request, proof.bytes, depth, B);
      if (options.faultStep === id) flipBit(files);
      const { verdict, ms } = verifyStepFiles(prepared, files);
      const step: DemoStep = {
        id,
        operation,
        description,
        packageName,
        slot,
        roots: rootLabels,
        proofBytes: proof.bytes.length,
        proveMs: proof.ms,
        verifyMs: ms,
        expected,
        got: verdict.ok ? "ACCEPT" : "REJECT",
        code: verdict.ok ? undefined : verdict.code,
        reason: verdict.ok ? undefined : verdict.reason,
        files,
      };
      steps.push(step);
      return step;
    };
    const readOnly = (kind: OpKind.Membership | OpKind.NonMembership, slot: number): OpRequest => {
      const s = store.slotState(slot);
      return readOnlyRequest(kind, slot, s.leaf, s.siblings, s.head.root, B);
    };
    const update = (id: string, dirName: string, operation: string, description: string, plan: PlannedUpdate): { request: OpRequest; bytes: Uint8Array } => {
      const request = updateRequest(plan, B);
      const before = rootLabel(plan.oldRoot, "");
      const proof = proveRequest(prepared, request);
      const seen = roots.some((r) => digestEquals(r.root, plan.newRoot));
      const after = rootLabel(plan.newRoot, `${operation} ${JSON.stringify(plan.name)}`);
      record(id, dirName, operation, seen ? `${description}; the root is ${after} again` : description, plan.name, plan.slot, request, proof, "ACCEPT", [before, after]);
      if (checkOperation(request, { depth, leafMaxFields: B }).valid) plan.commit();
      return { request, bytes: proof.bytes };
    };

    const taken = new Set<number>();
    const member = pickRecord(store, DEMO_PACKAGES.member, 0, taken);
    taken.add(member.slot);
    const removed = pickRecord(store, DEMO_PACKAGES.removed, Math.floor(imported.imported / 3), taken);
    taken.add(removed.slot);
    const replaced = pickRecord(store, DEMO_PACKAGES.replaced, Math.floor((2 * imported.imported) / 3), taken);
    const unused = store.head().nextSlot;
    if (unused >= 2 ** depth) {
      throw new DemoError("DEMO_REGISTRY_FULL", `the demo needs a never-used slot, but the ${imported.imported} records fill all 2^${depth} slots; import fewer records or choose a larger --depth`, { depth });
    }

    // 1. Membership of a real package.
    const memberRequest = readOnly(OpKind.Membership, member.slot);
    const memberProof = proveRequest(prepared, memberRequest);
    const r0 = rootLabel(memberRequest.publicInputs.oldRoot, "");
    record("1", "01-membership", "membership", `${member.name} is registered with ${JSON.stringify(member.value)}`, member.name, member.slot, memberRequest, memberProof, "ACCEPT", [r0, r0]);

    // 2. Non-membership of a never-used slot.
    const unusedRequest = readOnly(OpKind.NonMembership, unused);
    record("2", "02-nonmembership-never-used", "non-membership", `slot ${unused} was never used (Empty)`, undefined, unused, unusedRequest, proveRequest(prepared, unusedRequest), "ACCEPT", [r0, r0]);

    // 3. Delete; 4. non-membership of the deleted package; C2. a false membership of it, proved anyway.
    update("3", "03-delete", "delete", `delete ${removed.name} (Occupied → Tombstone)`, planDelete(store, { slot: removed.slot }));
    const deletedRequest = readOnly(OpKind.NonMembership, removed.slot);
    const r1 = rootLabel(deletedRequest.publicInputs.oldRoot, "");
    record("4", "04-nonmembership-deleted", "non-membership", `${removed.name} is no longer registered (Tombstone)`, removed.name, removed.slot, deletedRequest, proveRequest(prepared, deletedRequest), "ACCEPT", [r1, r1]);
    const stale = store.slotState(removed.slot);
    const falseMember = readOnlyRequest(OpKind.Membership, removed.slot, recordLeaf(removed.name, removed.value, B), stale.siblings, stale.head.root, B);
    const falseMemberProof = proveRequest(prepared, falseMember);

    // 5. Restore; 6. replace the repository URL; 7. insert at the first never-used slot.
    update("5", "05-restore", "restore", `restore ${removed.name} with its last value (Tombstone → Occupied)`, planRestore(store, { slot: removed.slot }));
    const newUrl = otherRepositoryUrl(replaced.name, replaced.value);
    const replacement = update("6", "06-replace", "replace", `${replaced.name} moves to ${newUrl}`, planReplace(store, { slot: replaced.slot }, newUrl));
    const replaceStep = steps[steps.length - 1]!;
    update("7", "07-insert", "insert", `insert ${DEMO_PACKAGES.inserted} at slot ${unused} (Empty → Occupied)`, planInsert(store, DEMO_PACKAGES.inserted, DEMO_INSERTED_VALUE));

    // C1. The membership proof of step 1 against a request claiming another repository URL.
    const otherUrl = otherRepositoryUrl(member.name, member.value);
    const forgedLeaf: OccupiedLeaf = recordLeaf(member.name, otherUrl, B);
    const forged = readOnlyRequest(OpKind.Membership, member.slot, forgedLeaf, memberRequest.witness.siblings, memberRequest.publicInputs.oldRoot, B);
    record("C1", "c1-membership-other-url", "membership", `step 1's proof offered for ${member.name} → ${otherUrl}`, member.name, member.slot, forged, { bytes: memberProof.bytes, ms: undefined }, "REJECT", [r0, r0]);
    // C2 (proved between steps 4 and 5).
    record("C2", "c2-membership-deleted", "membership", `a proof made for the false claim that ${removed.name} is still registered`, removed.name, removed.slot, falseMember, falseMemberProof, "REJECT", [r1, r1]);
    // C3. Step 6's proof with one bit flipped.
    const flipped = replacement.bytes.slice();
    flipped[FLIP_OFFSET]! ^= 1;
    record("C3", "c3-replace-bit-flipped", "replace", `step 6's proof with one bit flipped (byte ${FLIP_OFFSET}, a sumcheck round coefficient)`, replaced.name, replaced.slot, replacement.request, { bytes: flipped, ms: undefined }, "REJECT", replaceStep.roots);

    const head = store.head();
    rootLabel(head.root, "");
    return {
      dir: options.dir,
      registryDir,
      source: imported.source,
      records: imported.imported,
      depth,
      leafMaxFields: B,
      importMs: imported.timings.wallMs,
      prepareMs: prepared.timings.totalMs,
      roots,
      steps,
      totalMs: performance.now() - started,
    };
  } finally {
    await store.close();
  }
}

