/**
 * The modules a fresh Node process loads when it imports one entry point of the package: every
 * URL the ESM loader resolves (a resolve hook) plus every CommonJS module in the require cache.
 */
import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";

const HOOKS = `
let port;
export async function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  port.postMessage(r.url);
  return r;
}`;

const CHILD = `
import { register, createRequire } from "node:module";
import { MessageChannel } from "node:worker_threads";
const { port1, port2 } = new MessageChannel();
const urls = new Set();
port1.on("message", (u) => urls.add(u));
register("data:text/javascript," + encodeURIComponent(${JSON.stringify(HOOKS)}), { data: { port: port2 }, transferList: [port2] });
await import(process.argv[1]);
await new Promise((r) => setTimeout(r, 200));
for (const k of Object.keys(createRequire(import.meta.url).cache)) urls.add(k);
port1.close();
process.stdout.write(JSON.stringify([...urls]));
`;

/** URLs (ESM) and paths (CommonJS) loaded by `import(file)` in a fresh process. */
export function modulesLoadedBy(file: string): string[] {
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", CHILD, pathToFileURL(file).href], {
    encoding: "utf8",
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`import of ${file} failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as string[];
}

/** The npm packages among `modules` (by their node_modules folder; scoped names kept whole). */
export function packagesAmong(modules: readonly string[]): string[] {
  const out = new Set<string>();
  for (const m of modules) {
    const i = m.lastIndexOf("/node_modules/");
    if (i < 0) continue;
    const parts = m.slice(i + "/node_modules/".length).split("/");
    out.add(parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!);
  }
  return [...out].sort();
}
