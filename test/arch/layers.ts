/**
 * The allowed-imports matrix of `src/` and `bench/`: every folder (and every file directly in
 * `src/`) is a unit with its job and the units it may import. `test/arch/layering.test.ts` checks
 * every relative import of every file against it (static, `import type`, re-exports, dynamic
 * imports), that the matrix has no cycles, that every folder is placed in it, and that the Layout
 * section of docs/layout.md is the one `renderLayout()` writes (`npm run layout` rewrites it).
 *
 * Sub-folders are placed in `SUBFOLDERS` under their top folder, each with the sibling
 * sub-folders it may import; a folder's own root files and its sub-folders may import each other
 * (the folder's entry re-exports its parts, the parts share its contracts and errors).
 */

export interface Unit {
  /** One line: what the folder does. */
  readonly job: string;
  /** Units this unit may import directly (its own files always). */
  readonly imports: readonly string[];
  /**
   * Files (relative to the unit) that other folders may import besides the unit's public entry
   * (`index.ts`) and what the entry re-exports: internal interfaces of the engine that are not
   * part of the package's exports.
   */
  readonly entries?: readonly string[];
}

const CORE = [
  "src/errors.ts",
  "src/workers",
  "src/memory",
  "src/field",
  "src/hash",
  "src/transcript",
  "src/sumcheck",
  "src/kernels",
  "src/pcs",
  "src/gkr",
];
const ALL_SRC = [
  ...CORE,
  "src/pcs-workers",
  "src/statement",
  "src/smt",
  "src/codec",
  "src/sync",
  "src/registry",
  "src/counterparty",
  "src/proving",
  "src/mirror",
  "src/serve",
  "src/proof-jobs",
  "src/http",
  "src/web",
  "src/demo",
  "src/cli",
];

/** Top-level units, bottom first. */
export const UNITS: Readonly<Record<string, Unit>> = {
  "src/errors.ts": {
    job: "`SsgkrError`, the base of every error with a stable `code`; `InternalError`, a broken invariant",
    imports: [],
  },
  "src/workers": {
    job: "the worker-pool core: start, crash detection, respawn with a crash limit, close",
    imports: [],
  },
  "src/memory": {
    job: "large word arrays recycled from one proof to the next on a thread (the provers' layer vectors, the commitments' copies and hiding tables)",
    imports: [],
  },
  "src/field": {
    job: "KoalaBear field F_p (p = 2^31 − 2^24 + 1), its degree-4 extension F_p[X]/(X^4 − 3), inline extension arithmetic",
    imports: ["src/errors.ts"],
    entries: ["ext-inline.ts", "ext-split.ts"],
  },
  "src/hash": {
    job: "Poseidon2 width 16, padding-free sponge, 2-to-1 compression",
    imports: ["src/errors.ts", "src/field"],
  },
  "src/transcript": {
    job: "Fiat–Shamir transcript (duplex challenger, Plonky3 0.4.x semantics)",
    imports: ["src/errors.ts", "src/field", "src/hash"],
  },
  "src/sumcheck": {
    job: "generic sumcheck prover and verifier",
    imports: ["src/errors.ts", "src/field", "src/transcript"],
  },
  "src/pcs": {
    job: "WHIR multilinear polynomial commitment: Reed–Solomon codewords, Merkle rows, sumcheck, folding, parameter sets and their security",
    imports: ["src/errors.ts", "src/memory", "src/field", "src/hash", "src/transcript"],
    // The kernel seam and the subgroup roots the WASM backend (src/kernels/pcs-kernels.ts) uses; the worker seam src/pcs-workers implements.
    entries: ["backend.ts", "domain.ts", "parallel.ts"],
  },
  "src/kernels": {
    job: "AssemblyScript (WASM SIMD) kernels and their loader; the WASM backends of the hashing and commitment seams",
    imports: ["src/errors.ts", "src/field", "src/hash", "src/transcript", "src/pcs"],
    // The Keccak-256 batch kernel the registry's leaf hashing and name import use.
    entries: ["keccak-batch.ts"],
  },
  "src/pcs-workers": {
    job: "the commitment's worker pool: the prover's kernel calls (NTT, folds, sumcheck, eq tables, Merkle trees) and grinding searches on worker threads, Merkle hashing of codeword rows in chunks, the default pool of the `statesync-gkr/pcs` entry",
    imports: ["src/errors.ts", "src/workers", "src/field", "src/hash", "src/kernels", "src/pcs"],
  },
  "src/gkr": {
    job: "layered-circuit IR, layer oracles, GKR prover and verifier; `wiring/` wiring predicates, `wasm/` the WASM layer oracle and evaluation, `structured/` profile v2's structured linear family",
    imports: [
      "src/errors.ts",
      "src/memory",
      "src/field",
      "src/hash",
      "src/kernels",
      "src/transcript",
      "src/sumcheck",
      "src/pcs",
    ],
    // The copies MLE of profile v2's input claims (per-copy WASM inner products).
    entries: ["mle-copies.ts"],
  },
  "src/statement": {
    job: "statement types shared by the SMT frontend, the codec and sync: operation kinds, public inputs, circuit identity, `SyncError`",
    imports: ["src/errors.ts", "src/field", "src/hash"],
  },
  "src/smt": {
    job: "sparse-Merkle leaves, tree, circuit configuration and compiler, witness",
    imports: ["src/errors.ts", "src/field", "src/hash", "src/gkr", "src/statement"],
  },
  "src/codec": {
    job: "inner-proof-v1 encoding; `v2/` inner-proof-v2, `v3/` inner-proof-v3",
    imports: ["src/errors.ts", "src/field", "src/hash", "src/pcs", "src/gkr", "src/statement"],
  },
  "src/sync": {
    job: "prepared circuits, prove/verify, request files, limits, batches, worker pool",
    imports: [...CORE, "src/statement", "src/smt", "src/codec"],
    // Prepared circuits as bytes, which the CLI's on-disk cache stores (src/cli/prepared-disk.ts).
    entries: ["prepared-material.ts"],
  },
  "src/registry": {
    job: "persistent registry: `store/` (LMDB), `import/` (record sources, bulk import), `hashing/` (leaf hashing on workers), `checkpoint/` (signed checkpoints: C2SP signed notes, Ed25519), `consistency/` (change-log replay, the background block prover, consistency chains), `sequencer/` (writes applied in epochs), record → leaf mapping, root encoding, statements",
    imports: [...CORE, "src/statement", "src/smt", "src/codec", "src/sync"],
    entries: [
      "requests.ts",
      "name-block.ts",
      "block-limits.ts",
      "block-dir.ts",
      "verify-block.ts",
      "block-v3.ts",
      "record-v3.ts",
      "root.ts",
      "consistency/block-prover.ts",
      "consistency/verify-consistency.ts",
      "checkpoint/checkpoint.ts",
      "checkpoint/note.ts",
      "consistency/replay.ts",
      "store/block-rows.ts",
      "store/folder-hold.ts",
      "sequencer/sequencer.ts",
      "sequencer/epoch.ts",
      "hashing/name-keys.ts",
    ],
  },
  "src/counterparty": {
    job: "statements about names: proving them from a registry, checking them in one call (Node and browser)",
    imports: [...CORE, "src/statement", "src/smt", "src/codec", "src/sync", "src/registry"],
  },
  "src/proving": {
    job: "the proving pool: worker threads that make a registry's proofs (names' proofs at a root, parts of blocks) off the serving thread",
    imports: [...CORE, "src/statement", "src/smt", "src/codec", "src/sync", "src/registry", "src/counterparty"],
  },
  "src/mirror": {
    job: "registry mirrors: a copy of a primary's registry that applies only the signed checkpoints and block proofs it verified",
    imports: [...CORE, "src/statement", "src/smt", "src/codec", "src/sync", "src/registry"],
  },
  "src/serve": {
    job: "proof server, NATS worker and frontend, open-loop load generator, serving fixtures",
    imports: [...CORE, "src/statement", "src/smt", "src/codec", "src/sync"],
  },
  "src/proof-jobs": {
    job: "the registry's proof jobs on NATS JetStream: the primary's proving pool on the broker and the registry worker that proves from its own verified copy",
    imports: [
      ...CORE,
      "src/statement",
      "src/smt",
      "src/codec",
      "src/sync",
      "src/registry",
      "src/counterparty",
      "src/proving",
      "src/mirror",
      "src/serve",
    ],
  },
  "src/http": {
    job: "registry HTTP API (fastify): routes, auth, proof cache, OpenAPI",
    imports: [
      ...CORE,
      "src/statement",
      "src/smt",
      "src/codec",
      "src/sync",
      "src/registry",
      "src/counterparty",
      "src/proving",
    ],
  },
  "src/browser.ts": {
    job: "public entry `statesync-gkr/browser`: the checks a web page makes (proof bodies, v3 blocks, consistency chains, checkpoints) and the WASM kernels' loader, with no Node built-in reachable",
    imports: [...CORE, "src/statement", "src/smt", "src/codec", "src/sync", "src/registry", "src/counterparty"],
  },
  "src/web": {
    job: "browser verifier page, built on the `statesync-gkr/browser` entry",
    imports: [...CORE, "src/statement", "src/smt", "src/codec", "src/sync", "src/counterparty", "src/browser.ts"],
  },
  "src/demo": {
    job: "the registry demo (`ssgkr demo`): import, prove, verify, report",
    imports: [...CORE, "src/statement", "src/smt", "src/codec", "src/sync", "src/registry"],
  },
  "src/error-codes.ts": {
    job: "`LibraryErrorCode`: the catalogue's error code unions but the CLI's (types only), which the CLI types its codes with",
    imports: ALL_SRC.filter((u) => u !== "src/cli"),
  },
  "src/cli": { job: "the `ssgkr` command", imports: [...ALL_SRC.filter((u) => u !== "src/cli"), "src/error-codes.ts"] },
  "src/error-catalogue.ts": {
    job: "the one error catalogue: every code union with its module (docs/errors.md)",
    imports: [...ALL_SRC, "src/error-codes.ts"],
  },
  "src/engine.ts": { job: "public entry `statesync-gkr/engine`: the proof engine without statements", imports: CORE },
  "src/index.ts": {
    job: "public entry `statesync-gkr`",
    imports: [
      ...ALL_SRC.filter((u) => !["src/cli", "src/http", "src/web", "src/demo"].includes(u)),
      "src/error-codes.ts",
      "src/error-catalogue.ts",
    ],
  },
  "src/v2.ts": {
    job: "public entry `statesync-gkr/v2`: profile v2 proofs, aggregates and blocks, inner-proof-v2 bytes, the registry block check",
    imports: [...CORE, "src/statement", "src/smt", "src/codec", "src/sync", "src/registry"],
  },
  "src/v3.ts": {
    job: "public entry `statesync-gkr/v3`: profile v3 aggregates and blocks checked from their statements alone, inner-proof-v3 bytes, the registry block check",
    imports: [...CORE, "src/statement", "src/smt", "src/codec", "src/sync", "src/registry"],
  },
  "src/pcs.ts": {
    job: "public entry `statesync-gkr/pcs`: the WHIR polynomial commitment, with the WASM kernels and (more than one core) the default worker pool installed",
    imports: ["src/pcs", "src/kernels", "src/pcs-workers"],
  },
  "bench/lib": {
    job: "benchmark harness: options, conditions, timing, output, the verifier's process",
    imports: ALL_SRC,
  },
  "bench/children": {
    job: "child processes of the benchmarks (one measured point each)",
    imports: [...ALL_SRC, "bench/lib", "test"],
  },
  "bench/report": { job: "the benchmark report page (`npm run bench -- report`)", imports: ["bench/lib"] },
  bench: {
    job: "the benchmarks (`npm run bench -- <name>`)",
    imports: [...ALL_SRC, "src/index.ts", "src/engine.ts", "bench/lib", "bench/children", "bench/report", "test"],
  },
};

/**
 * Sub-folders of each top folder (paths relative to it), with the sibling sub-folders they may
 * import. Every folder holding TypeScript must be placed here or in `UNITS`.
 */
export const SUBFOLDERS: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  "src/gkr": { wiring: [], wasm: [], structured: ["wiring", "wasm"], zk: ["structured", "wiring"] },
  "src/kernels": { assembly: [] },
  "src/smt": { v2: [], v3: ["v2"] },
  "src/codec": { v2: [], v3: ["v2"] },
  "src/sync": { parallel: [], v2: ["parallel"], v3: ["v2"] },
  "src/registry": {
    hashing: [],
    store: ["hashing"],
    import: ["hashing", "store"],
    "import/sources": [],
    checkpoint: [],
    consistency: ["hashing", "store", "checkpoint"],
    sequencer: ["hashing", "store"],
  },
  "src/serve": {
    protocol: [],
    fixtures: [],
    load: ["protocol", "fixtures"],
    server: ["protocol", "fixtures"],
    nats: ["protocol", "load", "server"],
  },
  "src/cli": { commands: [] },
  "bench/report": { sections: [] },
};

/**
 * Sub-folders without a public entry whose files are their interface (other folders import them
 * directly): profile v2's folders, which the compat-v1 entries must not re-export, and folders of
 * one job. Any other sub-folder is reached through the nearest entry (`index.ts`) above it.
 */
export const OPEN_SUBFOLDERS: readonly string[] = [
  "src/gkr/structured",
  "src/gkr/zk",
  "src/smt/v2",
  "src/smt/v3",
  "src/codec/v2",
  "src/codec/v3",
  "src/serve/nats",
  "src/serve/fixtures",
];

/**
 * File-level imports tolerated against the matrix, each listed as "file → target" so that nothing
 * else is (none today: the kernel backend is injected into hash through src/hash/backend.ts).
 */
export const PENDING: readonly string[] = [];

/** `imports` without the units that another listed unit already brings in transitively. */
function reduced(name: string): string[] {
  const direct = UNITS[name]!.imports;
  const reach = (u: string, seen: Set<string>): void => {
    for (const v of UNITS[u]?.imports ?? [])
      if (!seen.has(v)) {
        seen.add(v);
        reach(v, seen);
      }
  };
  return direct.filter(
    (d) =>
      !direct.some(
        (o) =>
          o !== d &&
          (() => {
            const s = new Set<string>();
            reach(o, s);
            return s.has(d);
          })(),
      ),
  );
}

const short = (u: string): string => u.replace(/^src\//, "");
const nodeId = (u: string): string => u.replace(/[^a-z0-9]/gi, "_");

/** The Layout section of docs/layout.md: the folder table and the dependency diagram, from `UNITS`. */
export function renderLayout(): string {
  const src = Object.keys(UNITS).filter((u) => u.startsWith("src/"));
  const lines: string[] = [];
  lines.push("<!-- generated from test/arch/layers.ts by `npm run layout`; test/arch/layering.test.ts checks it -->");
  lines.push("");
  lines.push("| Folder | Module | May import |");
  lines.push("|---|---|---|");
  for (const u of Object.keys(UNITS)) {
    const unit = UNITS[u]!;
    const subs = SUBFOLDERS[u]
      ? ` (${Object.keys(SUBFOLDERS[u]!)
          .map((s) => `\`${s}/\``)
          .join(", ")})`
      : "";
    const may = unit.imports.length ? unit.imports.map((i) => `\`${short(i)}\``).join(", ") : "—";
    lines.push(`| \`${u}\`${subs} | ${unit.job} | ${may} |`);
  }
  lines.push("");
  lines.push(
    "Dependencies of `src/` (an arrow points at what a folder may import; arrows implied by others are left out):",
  );
  lines.push("");
  lines.push("```mermaid");
  lines.push("graph BT");
  for (const u of src) lines.push(`  ${nodeId(u)}["${short(u)}"]`);
  for (const u of src) for (const d of reduced(u)) lines.push(`  ${nodeId(u)} --> ${nodeId(d)}`);
  lines.push("```");
  return lines.join("\n");
}

export const LAYOUT_BEGIN = "<!-- layout:begin -->";
export const LAYOUT_END = "<!-- layout:end -->";

/**
 * What the files directly in a folder of `src/` may import by the matrix, as the folder READMEs
 * name it: other units (`field`, the root's `errors.ts`), the folder's own top folder or
 * sub-folders it may reach (`registry`, `registry/hashing`). `folder` is relative to `src/`.
 */
export function allowedImports(folder: string): { folders: string[]; rootFiles: string[] } {
  const [top, ...rest] = folder.split("/");
  const unit = `src/${top}`;
  if (!UNITS[unit]) throw new RangeError(`src/${folder} is not placed in the matrix`);
  const sub = rest.join("/");
  const subs = SUBFOLDERS[unit] ?? {};
  const placed = Object.keys(subs)
    .filter((s) => sub === s || sub.startsWith(`${s}/`))
    .sort((a, b) => b.length - a.length)[0];
  const own = new Set<string>();
  if (sub === "") for (const s of Object.keys(subs)) own.add(`${top}/${s}`);
  else {
    own.add(top!);
    for (const s of Object.keys(subs)) {
      // nested in, or above, its own sub-folder; or a sibling it is allowed
      if (
        placed !== undefined &&
        (s.startsWith(`${placed}/`) || placed.startsWith(`${s}/`) || subs[placed]!.includes(s))
      )
        own.add(`${top}/${s}`);
    }
  }
  own.delete(folder);
  const others = UNITS[unit]!.imports.filter((u) => u.startsWith("src/"));
  return {
    folders: [...others.filter((u) => !u.endsWith(".ts")).map(short), ...own].sort(),
    rootFiles: others
      .filter((u) => u.endsWith(".ts"))
      .map(short)
      .sort(),
  };
}
