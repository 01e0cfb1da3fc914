/**
 * The registry demo (`ssgkr demo`): imports the npm package → repository map into a name-keyed
 * registry (record-leaf-v2, depth 48: the root commits to names), prepares the three circuits
 * once (derived wiring), then proves real statements about package names and checks each one the
 * way a counterparty would — `verifyRecordProof` / `verifyRecordUpdateProof` against a root it
 * trusts, from the files written for the step — : a present package and its repository, a name
 * that was never registered, a deletion and the deleted name's absence, a restore, a replaced
 * repository URL, an insert, and negative controls that must be rejected (another URL claimed, a
 * deleted package claimed present, a proof replayed for another name, a stale root, a forged
 * proof, a flipped proof bit). Every step comes with the `ssgkr registry verify` command line
 * that repeats its check. A private absence follows step 2: the same never-registered name proved
 * absent at the same root in profile v3's zero-knowledge mode (v3-zk), checked by the same
 * counterparty call from the proof and the statement alone, beside what step 2's plain path
 * reveals (which neighbouring subtrees are occupied), with a control that must be rejected.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Digest } from "../hash/digest.js";
import { compress, digestEquals } from "../hash/digest.js";
import { EMPTY, hashLeaf } from "../smt/leaf.js";
import { SsgkrError } from "../errors.js";
import type { OpRequest } from "../smt/operation.js";
import { OFFSET, EF_BYTES } from "../codec/index.js";
import { prepareAll } from "../sync/prepare-all.js";
import { DerivedRegularWiring } from "../gkr/index.js";
import { provePrepared } from "../sync/prove.js";
import { encodeSyncResult } from "../sync/encoded.js";
import { fromOpRequest } from "../sync/request-convert.js";
import { requestToJson } from "../sync/request.js";
import { OpKind } from "../statement/types.js";
import { npmReposSource, NPM_REPOS_PACKAGE, NPM_REPOS_VERSION } from "../registry/import/dataset.js";
import { recordLeaf, type RecordValue } from "../registry/mapping.js";
import { DEFAULT_NAME_DEPTH } from "../registry/name-key.js";
import { NameStore } from "../registry/store/name-store.js";
import { importNames } from "../registry/import/name-import.js";
import { planNameUpdate, type PlannedNameUpdate } from "../registry/name-operations.js";
import {
  nameReadRequest,
  proveNameStatement,
  readOnlyStatementJson,
  updateStatementJson,
} from "../registry/name-prove.js";
import { preparedV3Of } from "../registry/record-v3.js";
import { RecordState } from "../registry/store/record-codec.js";
import { readOnlyRequest, updateRequest } from "../registry/requests.js";
import {
  cachedPrepared,
  primePreparedCache,
  verifyRecordProof,
  verifyRecordUpdateProof,
  type NameSide,
  type RecordVerdict,
} from "../registry/verify-record.js";

export { DemoError, DEMO_ERROR_CODES, type DemoErrorCode } from "./errors.js";
import { DemoError } from "./errors.js";

export type DemoVerdict = "ACCEPT" | "REJECT";

/** Packages the demo uses when the registry holds them (the first 2,000 records of the npm map do). */
export const DEMO_PACKAGES = Object.freeze({
  /** Membership and the controls: https://github.com/winsonwq/2048term. */
  member: "2048",
  /** Delete, absence of the deleted name, restore: https://github.com/Madvinking/0-logger. */
  removed: "0-logger",
  /** Replace: https://github.com/ReiiYuki/0.css. */
  replaced: "0.css",
  /** A name that was never registered (no npm package of the pinned map has it). */
  never: "ssgkr-demo-never-registered",
  /** Inserted by the demo. */
  inserted: "ssgkr-demo-inserted",
});

export const DEMO_INSERTED_VALUE = "https://example.org/ssgkr-demo-inserted.git";

export interface DemoOptions {
  /** Working directory: created if absent, must be empty (`dir/registry`, `dir/steps`). */
  readonly dir: string;
  /** Records of the npm map to import: a count (up to 100,000 offline) or "all". */
  readonly limit: number | "all";
  /** Tree depth of the demo registry, 1..48 (default 48). */
  readonly depth?: number;
  readonly threads?: number;
  /** Flips one bit of this step's proof before it is checked (a wrong verdict must fail the demo). */
  readonly faultStep?: string;
  readonly onProgress?: (line: string) => void;
}

/** What the counterparty is told, as checked by the step. */
export type DemoClaim =
  | { readonly side: NameSide; readonly root: Digest }
  | { readonly old: NameSide; readonly new: NameSide; readonly oldRoot: Digest; readonly newRoot: Digest };

export interface DemoStep {
  /** "1".."7" for honest statements, "C1".."C6" for negative controls. */
  readonly id: string;
  readonly operation: string;
  readonly description: string;
  readonly name: string;
  /** The claim checked (for controls, the false one). */
  readonly claim: DemoClaim;
  readonly roots: readonly [string, string];
  readonly proofBytes: number;
  /** Proving + encoding ms; undefined when the proof comes from another step. */
  readonly proveMs: number | undefined;
  /** The counterparty call (claim checks, then the proof with circuits prepared once), ms. */
  readonly verifyMs: number;
  readonly expected: DemoVerdict;
  readonly got: DemoVerdict;
  readonly code: string | undefined;
  readonly reason: string | undefined;
  readonly files: {
    readonly dir: string;
    readonly request: string;
    readonly proof: string;
    readonly statement: string;
  };
}

/** A step of the private absence: a v3-zk proof checked from the proof and the statement alone (no request). */
export interface DemoPrivateStep {
  /** "Z1" (the absence, ACCEPT) or "Z2" (its control, REJECT). */
  readonly id: string;
  readonly description: string;
  readonly name: string;
  readonly claim: { readonly side: NameSide; readonly root: Digest };
  readonly root: string;
  readonly proofBytes: number;
  /** Proving ms (circuit preparation excluded); undefined when the proof comes from another step. */
  readonly proveMs: number | undefined;
  readonly verifyMs: number;
  readonly expected: DemoVerdict;
  readonly got: DemoVerdict;
  /** The accepted proof's profile as the counterparty call names it (`v3-zk`). */
  readonly profile: string | undefined;
  readonly code: string | undefined;
  readonly reason: string | undefined;
  readonly files: { readonly dir: string; readonly proof: string; readonly statement: string };
}

/**
 * The private absence (docs/demo.md): step 2's never-registered name proved absent at R0 in v3-zk,
 * beside what step 2's plain path shows. `skipped` says why it did not run (a depth whose
 * non-membership circuit leaves no room for the zero-knowledge lanes).
 */
export interface DemoPrivateAbsence {
  /** Preparing the v3 non-membership circuit once, ms. */
  readonly prepareMs: number;
  /** Siblings of the plain path (the depth) and their bytes (32 each). */
  readonly siblings: number;
  readonly pathBytes: number;
  /** Siblings of step 2's path that are not the empty subtree's digest: neighbouring subtrees the plain path shows occupied. */
  readonly occupiedNeighbours: number;
  readonly steps: readonly DemoPrivateStep[];
  readonly skipped?: string;
}

export interface DemoRoot {
  readonly label: string;
  readonly root: Digest;
  readonly after: string;
}

export interface DemoReport {
  readonly dir: string;
  readonly registryDir: string;
  readonly source: string;
  readonly records: number;
  readonly depth: number;
  readonly leafMaxFields: number;
  readonly importMs: number;
  /** Preparing the three circuits once (compile, commitments, derived wiring), ms. */
  readonly prepareMs: number;
  readonly roots: readonly DemoRoot[];
  readonly steps: readonly DemoStep[];
  readonly privateAbsence: DemoPrivateAbsence;
  readonly totalMs: number;
}

export function verdictMismatches(steps: readonly Pick<DemoStep, "id" | "expected" | "got">[]): string[] {
  return steps.filter((s) => s.expected !== s.got).map((s) => s.id);
}

export function demoSucceeded(steps: readonly Pick<DemoStep, "id" | "expected" | "got">[]): boolean {
  return steps.length > 0 && verdictMismatches(steps).length === 0;
}

const STEP_IDS = ["1", "2", "3", "4", "5", "6", "7", "C1", "C2", "C3", "C4", "C5", "C6"] as const;

function prepareDir(dir: string): void {
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory())
      throw new DemoError("DEMO_DIR_NOT_EMPTY", `${dir} is a file; the demo needs an empty or new directory`, { dir });
    const entries = readdirSync(dir);
    if (entries.length > 0)
      throw new DemoError(
        "DEMO_DIR_NOT_EMPTY",
        `${dir} is not empty (found ${entries.slice(0, 3).join(", ")}); the demo needs an empty or new directory`,
        { dir },
      );
  }
  mkdirSync(dir, { recursive: true });
}

/** A live record: the preferred name if live, else the first live text record not taken. */
function pickRecord(
  store: NameStore,
  preferred: string,
  taken: ReadonlySet<string>,
): { name: string; value: RecordValue } {
  const l = store.lookup(preferred);
  if (l.record?.state === RecordState.Live && !taken.has(preferred)) return { name: preferred, value: l.record.value };
  const found = store.read((txn) => {
    for (const row of store.leafRows(txn))
      if (row.record.state === RecordState.Live && typeof row.record.value === "string" && !taken.has(row.record.name))
        return { name: row.record.name, value: row.record.value as RecordValue };
    return undefined;
  });
  if (found === undefined)
    throw new DemoError("DEMO_TOO_FEW_RECORDS", `the demo needs 3 live records, the registry has ${store.head().live}`);
  return found;
}

/** A name whose key holds nothing (never registered, no collision): `base`, `base-1`, … */
function freeName(store: NameStore, base: string): string {
  for (let i = 0; ; i++) {
    const n = i === 0 ? base : `${base}-${i}`;
    const l = store.lookup(n);
    if (l.record === undefined && l.other === undefined) return n;
  }
}

/** A repository URL different from `value`: the same path on gitlab.com (codeberg.org if that is the value). */
export function otherRepositoryUrl(name: string, value: RecordValue): string {
  const m = typeof value === "string" ? /^[a-z+]+:\/\/(?:[^@/]*@)?[^/]+(\/.*)?$/i.exec(value) : null;
  const path = m && m[1] && m[1] !== "/" ? m[1] : `/ssgkr-demo/${encodeURIComponent(name)}`;
  const url = `https://gitlab.com${path}`;
  return url === value ? `https://codeberg.org${path}` : url;
}

/** A byte in the first sumcheck round of the output layer (its second coefficient, c0, low byte). */
const FLIP_OFFSET = OFFSET.layers + 4 + 1 + EF_BYTES;

/**
 * Runs the demo; `DemoReport.steps` records expected and obtained verdicts (use `demoSucceeded`).
 * @throws DemoError `DEMO_DIR_NOT_EMPTY`, `DEMO_TOO_FEW_RECORDS`, `DEMO_BAD_STEP`; RegistryError
 *   from the import (`SOURCE_MISSING`, `BAD_SOURCE`, `BAD_CONFIG`) and the updates.
 */
export async function runDemo(options: DemoOptions): Promise<DemoReport> {
  const started = performance.now();
  const progress = options.onProgress ?? (() => {});
  if (options.faultStep !== undefined && !(STEP_IDS as readonly string[]).includes(options.faultStep)) {
    throw new DemoError(
      "DEMO_BAD_STEP",
      `no demo step ${JSON.stringify(options.faultStep)} (steps: ${STEP_IDS.join(", ")})`,
    );
  }
  if (options.limit !== "all" && (!Number.isSafeInteger(options.limit) || options.limit < 3)) {
    throw new DemoError(
      "DEMO_TOO_FEW_RECORDS",
      `the demo needs at least 3 records, got a limit of ${String(options.limit)}`,
    );
  }
  const source = npmReposSource(options.limit);
  prepareDir(options.dir);
  const registryDir = join(options.dir, "registry");
  const stepsDir = join(options.dir, "steps");
  const store = NameStore.openOrCreate(registryDir, { depth: options.depth ?? DEFAULT_NAME_DEPTH });
  try {
    progress(
      `importing ${options.limit === "all" ? "all" : options.limit} records of ${NPM_REPOS_PACKAGE}@${NPM_REPOS_VERSION} into a name-keyed registry at ${registryDir} …`,
    );
    let first = true;
    const imported = await importNames(
      store,
      () => (first ? ((first = false), source) : npmReposSource(options.limit)),
      {
        onError: "skip",
        ...(options.threads !== undefined ? { threads: options.threads } : {}),
        onMalformed: (i) => progress(`line ${i.line}: ${i.code}: ${i.message}`),
      },
    );
    progress(`imported ${imported.imported} records in ${(imported.timings.wallMs / 1000).toFixed(1)} s`);
    const { depth, leafMaxFields: B } = store.config;

    progress(
      `preparing the membership, non-membership and update circuits once (depth ${depth}, leaf bound ${B}, derived wiring) …`,
    );
    const t0 = performance.now();
    const all = prepareAll({ depth, leafMaxFields: B }, { wiring: (c) => new DerivedRegularWiring(c.circuit, c.tags) });
    for (const p of [all.membership, all.nonmembership, all.update]) primePreparedCache(p);
    const prepareMs = performance.now() - t0;
    progress(`prepared in ${(prepareMs / 1000).toFixed(1)} s`);

    const roots: DemoRoot[] = [];
    const rootLabel = (root: Digest, after: string): string => {
      const same = roots.find((r) => digestEquals(r.root, root));
      if (same) return same.label;
      const label = `R${roots.length}`;
      roots.push({ label, root: Uint32Array.from(root), after });
      return label;
    };
    rootLabel(store.head().root, `import of ${imported.imported} records`);

    const prove = (request: OpRequest): { bytes: Uint8Array; ms: number } => {
      const prepared = cachedPrepared(request.operation.kind, depth, B);
      const t = performance.now();
      const bytes = encodeSyncResult(prepared, provePrepared(prepared, request));
      return { bytes, ms: performance.now() - t };
    };

    const steps: DemoStep[] = [];
    const record = (
      id: string,
      dirName: string,
      operation: string,
      description: string,
      name: string,
      request: OpRequest,
      proof: { bytes: Uint8Array; ms: number | undefined },
      claim: DemoClaim,
      expected: DemoVerdict,
      rootLabels: readonly [string, string],
    ): DemoStep => {
      progress(`step ${steps.length + 1}/${STEP_IDS.length} (${id}): ${description}`);
      const dir = join(stepsDir, dirName);
      mkdirSync(dir, { recursive: true });
      const files = {
        dir,
        request: join(dir, "request.json"),
        proof: join(dir, "proof.bin"),
        statement: join(dir, "statement.json"),
      };
      writeFileSync(files.request, JSON.stringify(requestToJson(fromOpRequest(request, depth, B)), null, 2) + "\n");
      const bytes = proof.bytes.slice();
      if (options.faultStep === id) bytes[FLIP_OFFSET]! ^= 1;
      writeFileSync(files.proof, bytes);
      const statement =
        "side" in claim
          ? readOnlyStatementJson(name, "value" in claim.side ? claim.side.value : undefined, claim.root, depth, B)
          : updateStatementJson(
              {
                kind: operation as PlannedNameUpdate["kind"],
                name,
                oldValue: "value" in claim.old ? claim.old.value : undefined,
                newValue: "value" in claim.new ? claim.new.value : undefined,
                oldRoot: claim.oldRoot,
                newRoot: claim.newRoot,
              },
              depth,
              B,
            );
      writeFileSync(files.statement, JSON.stringify(statement, null, 2) + "\n");
      // the counterparty's check, from the files
      const requestText = readFileSync(files.request, "utf8");
      const proofBytes = new Uint8Array(readFileSync(files.proof));
      const t = performance.now();
      const verdict: RecordVerdict =
        "side" in claim
          ? verifyRecordProof(
              { trustedRoot: claim.root, name, ...claim.side, depth, leafMaxFields: B } as never,
              requestText,
              proofBytes,
            )
          : verifyRecordUpdateProof(
              {
                trustedRoot: claim.oldRoot,
                newRoot: claim.newRoot,
                name,
                old: claim.old,
                new: claim.new,
                depth,
                leafMaxFields: B,
              },
              requestText,
              proofBytes,
            );
      const verifyMs = performance.now() - t;
      const step: DemoStep = {
        id,
        operation,
        description,
        name,
        claim,
        roots: rootLabels,
        proofBytes: bytes.length,
        proveMs: proof.ms,
        verifyMs,
        expected,
        got: verdict.ok ? "ACCEPT" : "REJECT",
        code: verdict.ok ? undefined : verdict.code,
        reason: verdict.ok ? undefined : verdict.reason,
        files,
      };
      steps.push(step);
      return step;
    };
    const readStep = (kind: "membership" | "nonmembership", name: string) => {
      const r = nameReadRequest(store, kind, name);
      return { ...r, proof: prove(r.request) };
    };
    const update = (
      id: string,
      dirName: string,
      description: string,
      p: PlannedNameUpdate,
    ): { request: OpRequest; bytes: Uint8Array } => {
      const request = updateRequest({ ...p, slot: p.key } as never, B);
      const proof = prove(request);
      const before = rootLabel(p.oldRoot, "");
      const seen = roots.some((r) => digestEquals(r.root, p.newRoot));
      const after = rootLabel(p.newRoot, `${p.kind} ${JSON.stringify(p.name)}`);
      const side = (v: RecordValue | undefined): NameSide => (v === undefined ? { absent: true } : { value: v });
      record(
        id,
        dirName,
        p.kind,
        seen ? `${description}; the root is ${after} again` : description,
        p.name,
        request,
        proof,
        { old: side(p.oldValue), new: side(p.newValue), oldRoot: p.oldRoot, newRoot: p.newRoot },
        "ACCEPT",
        [before, after],
      );
      p.commit();
      return { request, bytes: proof.bytes };
    };

    const taken = new Set<string>();
    const member = pickRecord(store, DEMO_PACKAGES.member, taken);
    taken.add(member.name);
    const removed = pickRecord(store, DEMO_PACKAGES.removed, taken);
    taken.add(removed.name);
    const replaced = pickRecord(store, DEMO_PACKAGES.replaced, taken);
    const never = freeName(store, DEMO_PACKAGES.never);

    // 1. A present package and its repository.
    const m1 = readStep("membership", member.name);
    const r0 = rootLabel(m1.root, "");
    record(
      "1",
      "01-membership",
      "membership",
      `${member.name} is registered with ${JSON.stringify(member.value)}`,
      member.name,
      m1.request,
      m1.proof,
      { side: { value: member.value }, root: m1.root },
      "ACCEPT",
      [r0, r0],
    );
    // 2. A name that was never registered.
    const n2 = readStep("nonmembership", never);
    record(
      "2",
      "02-nonmembership-never-registered",
      "non-membership",
      `${never} was never registered (Empty leaf at its key)`,
      never,
      n2.request,
      n2.proof,
      { side: { absent: true }, root: n2.root },
      "ACCEPT",
      [r0, r0],
    );
    // The private absence: the same statement as step 2, in v3-zk (no path in what is handed out).
    const privateAbsence = privateAbsenceOf(store, never, n2.request, r0, stepsDir, depth, B, progress, [
      member.name,
      member.value,
    ]);
    // 3. Delete; 4. the deleted name is absent; the false claim that it is still there, proved anyway (C2).
    update(
      "3",
      "03-delete",
      `delete ${removed.name} (Occupied → Tombstone)`,
      planNameUpdate(store, "delete", removed.name),
    );
    const n4 = readStep("nonmembership", removed.name);
    const r1 = rootLabel(n4.root, "");
    record(
      "4",
      "04-nonmembership-deleted",
      "non-membership",
      `${removed.name} is no longer registered (Tombstone at its key)`,
      removed.name,
      n4.request,
      n4.proof,
      { side: { absent: true }, root: n4.root },
      "ACCEPT",
      [r1, r1],
    );
    const forgedRequest = readOnlyRequest(
      OpKind.Membership,
      n4.key,
      recordLeaf(removed.name, removed.value, B),
      n4.request.witness.siblings,
      n4.root,
      B,
    );
    const forgedProof = prove(forgedRequest);
    // 5. Restore; 6. a new repository URL; 7. insert.
    update(
      "5",
      "05-restore",
      `restore ${removed.name} with its last value (Tombstone → Occupied)`,
      planNameUpdate(store, "restore", removed.name),
    );
    const newUrl = otherRepositoryUrl(replaced.name, replaced.value);
    const replacement = update(
      "6",
      "06-replace",
      `${replaced.name} moves to ${newUrl}`,
      planNameUpdate(store, "replace", replaced.name, newUrl),
    );
    const replaceRoots = steps[steps.length - 1]!.roots;
    const replaceClaim = steps[steps.length - 1]!.claim;
    const inserted = freeName(store, DEMO_PACKAGES.inserted);
    update(
      "7",
      "07-insert",
      `insert ${inserted} (Empty → Occupied)`,
      planNameUpdate(store, "insert", inserted, DEMO_INSERTED_VALUE),
    );
    const finalRoot = store.head().root;
    const rEnd = rootLabel(finalRoot, "");

    // Negative controls.
    const otherUrl = otherRepositoryUrl(member.name, member.value);
    record(
      "C1",
      "c1-other-url",
      "membership",
      `step 1's proof, but the claim is ${member.name} → ${otherUrl}`,
      member.name,
      m1.request,
      { bytes: m1.proof.bytes, ms: undefined },
      { side: { value: otherUrl }, root: m1.root },
      "REJECT",
      [r0, r0],
    );
    record(
      "C2",
      "c2-forged-deleted-present",
      "membership",
      `a proof made for the false statement that ${removed.name} is still registered after the delete`,
      removed.name,
      forgedRequest,
      forgedProof,
      { side: { value: removed.value }, root: n4.root },
      "REJECT",
      [r1, r1],
    );
    record(
      "C3",
      "c3-deleted-claimed-present",
      "non-membership",
      `step 4's absence proof, but the claim is that ${removed.name} still holds ${JSON.stringify(removed.value)}`,
      removed.name,
      n4.request,
      { bytes: n4.proof.bytes, ms: undefined },
      { side: { value: removed.value }, root: n4.root },
      "REJECT",
      [r1, r1],
    );
    record(
      "C4",
      "c4-replayed-other-name",
      "membership",
      `step 1's proof replayed as a proof about ${replaced.name}`,
      replaced.name,
      m1.request,
      { bytes: m1.proof.bytes, ms: undefined },
      { side: { value: member.value }, root: m1.root },
      "REJECT",
      [r0, r0],
    );
    record(
      "C5",
      "c5-stale-root",
      "membership",
      `step 1's proof checked against the latest root ${rEnd} (it was made at ${r0}, before the changes)`,
      member.name,
      m1.request,
      { bytes: m1.proof.bytes, ms: undefined },
      { side: { value: member.value }, root: finalRoot },
      "REJECT",
      [r0, rEnd],
    );
    const flipped = replacement.bytes.slice();
    flipped[FLIP_OFFSET]! ^= 1;
    record(
      "C6",
      "c6-replace-bit-flipped",
      "replace",
      `step 6's proof with one bit flipped (byte ${FLIP_OFFSET}, a sumcheck round coefficient)`,
      replaced.name,
      replacement.request,
      { bytes: flipped, ms: undefined },
      replaceClaim,
      "REJECT",
      replaceRoots,
    );

    return {
      dir: options.dir,
      registryDir,
      source: imported.source,
      records: imported.imported,
      depth,
      leafMaxFields: B,
      importMs: imported.timings.wallMs,
      prepareMs,
      roots,
      steps,
      privateAbsence,
      totalMs: performance.now() - started,
    };
  } finally {
    await store.close();
  }
}

/** The digests of the empty subtrees of levels 0..depth (default_0 = h_leaf(Empty), default_{l+1} = h_node(default_l, default_l)). */
function emptySubtrees(depth: number, B: number): Digest[] {
  const d: Digest[] = [hashLeaf(EMPTY, B)];
  for (let l = 0; l < depth; l++) d.push(compress(d[l]!, d[l]!));
  return d;
}

/**
 * The private absence: `name` (never registered) proved absent at the head in v3-zk with
 * `proveNameStatement(…, { zk: true })`, written as proof.bin and statement.json, checked with
 * `verifyRecordProof` from the files; then the same proof offered for `other` (a live name)
 * claimed absent, which must be rejected. `plain` is step 2's request: its siblings are what the
 * plain path would have revealed.
 */
function privateAbsenceOf(
  store: NameStore,
  name: string,
  plain: OpRequest,
  rootLabel: string,
  stepsDir: string,
  depth: number,
  B: number,
  progress: (line: string) => void,
  other: readonly [string, RecordValue],
): DemoPrivateAbsence {
  const defaults = emptySubtrees(depth, B);
  const siblings = plain.witness.siblings;
  const occupiedNeighbours = siblings.filter((s, i) => !digestEquals(s, defaults[i]!)).length;
  const base = { siblings: siblings.length, pathBytes: siblings.length * 32, occupiedNeighbours };
  progress(`private absence (Z1): ${name} proved absent in profile v3-zk, zero knowledge (no path handed out) …`);
  const t0 = performance.now();
  let proof;
  let prepareMs = 0;
  try {
    preparedV3Of(OpKind.NonMembership, depth, B);
    prepareMs = performance.now() - t0;
    proof = proveNameStatement(store, "nonmembership", name, undefined, undefined, undefined, { zk: true });
  } catch (e) {
    if (e instanceof SsgkrError && e.code === "ZK_UNSUPPORTED")
      return { ...base, prepareMs: performance.now() - t0, steps: [], skipped: e.message };
    throw e;
  }
  const dir = join(stepsDir, "z1-private-absence");
  mkdirSync(dir, { recursive: true });
  const files = { dir, proof: join(dir, "proof.bin"), statement: join(dir, "statement.json") };
  writeFileSync(files.proof, proof.proof);
  writeFileSync(files.statement, JSON.stringify(proof.statementJson, null, 2) + "\n");
  const root = store.head().root;
  const bytes = new Uint8Array(readFileSync(files.proof));
  const check = (
    id: string,
    who: string,
    description: string,
    expected: DemoVerdict,
    proveMs: number | undefined,
  ): DemoPrivateStep => {
    const t = performance.now();
    const v = verifyRecordProof({ trustedRoot: root, name: who, absent: true, depth, leafMaxFields: B }, bytes);
    const verifyMs = performance.now() - t;
    return {
      id,
      description,
      name: who,
      claim: { side: { absent: true }, root },
      root: rootLabel,
      proofBytes: bytes.length,
      proveMs,
      verifyMs,
      expected,
      got: v.ok ? "ACCEPT" : "REJECT",
      profile: v.ok ? v.profile : undefined,
      code: v.ok ? undefined : v.code,
      reason: v.ok ? undefined : v.reason,
      files,
    };
  };
  return {
    ...base,
    prepareMs,
    steps: [
      check(
        "Z1",
        name,
        `${name} is not registered, proved in profile v3-zk: the proof and the statement, no path`,
        "ACCEPT",
        proof.proveMs,
      ),
      check(
        "Z2",
        other[0],
        `Z1's proof, but the claim is that ${other[0]} (registered with ${JSON.stringify(other[1])}) is absent`,
        "REJECT",
        undefined,
      ),
    ],
  };
}
