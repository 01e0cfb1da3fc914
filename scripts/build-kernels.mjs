#!/usr/bin/env node
// Compiles the AssemblyScript kernels (src/kernels/assembly/index.ts) to wasm/kernels.wasm with
// the locally installed compiler, then checks the properties the loader relies on: imported
// shared memory with a declared maximum, no data segments, no start function. It also writes
// wasm/kernels.sources.json, the SHA-256 of every kernel source and the compiler version, which
// the test suite compares with the tree (a kernel edited without a rebuild fails `npm test`).
//
// wasm/kernels.wasm is checked in: installing the package never compiles kernels. The generated
// kernel files (scripts/gen-kernels.mjs) are written first; with --check they must be current.
//
// Usage: node scripts/build-kernels.mjs [--text] [--check]
//   --text   also writes kernels.wat next to the module, for reading
//   --check  compiles into a temporary folder and exits 1 unless the result equals the
//            checked-in wasm/kernels.wasm byte for byte (and the sources record is current)
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import asc from "assemblyscript/asc";
import { kernelSourcesRecord } from "./kernel-sources.mjs";
import { generateKernels } from "./gen-kernels.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const entry = "src/kernels/assembly/index.ts";
const check = process.argv.includes("--check");
const checkedIn = join(root, "wasm", "kernels.wasm");
const recordFile = join(root, "wasm", "kernels.sources.json");
const tempDir = check ? mkdtempSync(join(tmpdir(), "ssgkr-kernels-")) : null;
const outDir = check ? tempDir : join(root, "wasm");
const outFile = join(outDir, "kernels.wasm");
/** Maximum memory in 64 KiB pages declared by the module (2 GiB, the largest that WebAssembly.Memory accepts everywhere). */
const MAXIMUM_PAGES = 32768;

const args = [
  entry,
  "--outFile",
  outFile,
  "--runtime",
  "stub",
  "--importMemory",
  "--sharedMemory",
  "--initialMemory",
  "1",
  "--maximumMemory",
  String(MAXIMUM_PAGES),
  "--enable",
  "simd",
  "--enable",
  "threads",
  "--optimizeLevel",
  "3",
  "--shrinkLevel",
  "0",
  "--noAssert",
];
if (process.argv.includes("--text")) args.push("--textFile", `${outDir}/kernels.wat`);

for (const [path, text] of generateKernels()) {
  const file = join(root, path);
  let current = null;
  try {
    current = readFileSync(file, "utf8");
  } catch {
    /* missing */
  }
  if (current === text) continue;
  if (check) {
    console.error(
      `build-kernels: ${path} is not what scripts/gen-kernels.mjs generates; run \`node scripts/gen-kernels.mjs\` and \`npm run build:kernels\``,
    );
    process.exit(1);
  }
  writeFileSync(file, text);
  console.error(`build-kernels: regenerated ${path}`);
}

mkdirSync(outDir, { recursive: true });
const previous = process.cwd();
process.chdir(root);
let result;
try {
  result = await asc.main(args, { stdout: process.stdout, stderr: process.stderr });
} finally {
  process.chdir(previous);
}
if (result.error) {
  console.error(`build-kernels: compilation failed: ${result.error.message}`);
  process.exit(1);
}

const bytes = readFileSync(outFile);
const problems = checkModule(new WebAssembly.Module(bytes));
if (problems.length > 0) {
  console.error(`build-kernels: ${outFile} violates the kernel memory model:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
const record = JSON.stringify(kernelSourcesRecord(root), null, 2) + "\n";
if (check) {
  rmSync(tempDir, { recursive: true, force: true });
  const same = Buffer.compare(bytes, readFileSync(checkedIn)) === 0;
  const current = readFileSync(recordFile, "utf8") === record;
  if (!same || !current) {
    console.error(
      `build-kernels: ${!same ? "rebuilding does not reproduce wasm/kernels.wasm byte for byte" : "wasm/kernels.sources.json is stale"}; run \`npm run build:kernels\` and commit wasm/`,
    );
    process.exit(1);
  }
  console.error(`build-kernels: rebuilding reproduces wasm/kernels.wasm byte for byte (${bytes.length} bytes)`);
} else {
  writeFileSync(recordFile, record);
  console.error(
    `build-kernels: wrote ${relative(process.cwd(), outFile) || outFile} (${statSync(outFile).size} bytes) and ${relative(process.cwd(), recordFile)}`,
  );
}

/**
 * The module must import exactly one memory (env.memory), shared, with a maximum; it must not
 * carry data segments or a start function (instantiating it must never write to memory).
 */
function checkModule(module) {
  const out = [];
  const imports = WebAssembly.Module.imports(module);
  const memories = imports.filter((i) => i.kind === "memory");
  if (memories.length !== 1 || memories[0].module !== "env" || memories[0].name !== "memory") {
    out.push(`expected one memory import env.memory, got ${JSON.stringify(memories)}`);
  }
  const others = imports.filter((i) => i.kind !== "memory");
  if (others.length > 0) out.push(`unexpected imports: ${others.map((i) => `${i.module}.${i.name}`).join(", ")}`);
  const sections = sectionIds(bytes);
  if (sections.includes(11))
    out.push("module has a data section (would re-initialise shared memory on every instantiation)");
  if (sections.includes(8)) out.push("module has a start function");
  const memLimits = memoryImportLimits(bytes);
  if (!memLimits || !memLimits.shared || memLimits.maximum === undefined) {
    out.push(`memory import must be shared with a maximum, got ${JSON.stringify(memLimits)}`);
  }
  return out;
}

function readLeb(buf, pos) {
  let result = 0,
    shift = 0,
    byte;
  do {
    byte = buf[pos++];
    result += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return [result, pos];
}

function sectionIds(buf) {
  const ids = [];
  let pos = 8;
  while (pos < buf.length) {
    const id = buf[pos++];
    let size;
    [size, pos] = readLeb(buf, pos);
    ids.push(id);
    pos += size;
  }
  return ids;
}

/** Limits of the memory import (import section, id 2). */
function memoryImportLimits(buf) {
  let pos = 8;
  while (pos < buf.length) {
    const id = buf[pos++];
    let size;
    [size, pos] = readLeb(buf, pos);
    const end = pos + size;
    if (id === 2) {
      let count;
      [count, pos] = readLeb(buf, pos);
      for (let k = 0; k < count; k++) {
        let len;
        [len, pos] = readLeb(buf, pos);
        pos += len; // module name
        [len, pos] = readLeb(buf, pos);
        pos += len; // field name
        const kind = buf[pos++];
        if (kind === 0) {
          [, pos] = readLeb(buf, pos);
        } // func: type index
        else if (kind === 1) {
          pos++;
          pos = skipLimits(buf, pos);
        } // table: reftype, limits
        else if (kind === 3) {
          pos += 2;
        } // global: valtype, mutability
        else if (kind === 2) {
          const flags = buf[pos++];
          let initial, maximum;
          [initial, pos] = readLeb(buf, pos);
          if (flags & 1) [maximum, pos] = readLeb(buf, pos);
          return { initial, maximum, shared: (flags & 2) !== 0 };
        }
      }
    }
    pos = end;
  }
  return null;
}

function skipLimits(buf, pos) {
  const flags = buf[pos++];
  [, pos] = readLeb(buf, pos);
  if (flags & 1) [, pos] = readLeb(buf, pos);
  return pos;
}
