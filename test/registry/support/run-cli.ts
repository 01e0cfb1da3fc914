/** Runs the `ssgkr` CLI in this process and captures what it writes (the registry tests' one copy of this helper). */
import { main } from "../../../src/cli/main.js";

/** The CLI's exit code and everything it wrote to stdout and stderr. */
export async function runCli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  // Let the test runner flush what it has written before stdout is captured.
  await new Promise((resolve) => setTimeout(resolve, 10));
  const out: string[] = [];
  const err: string[] = [];
  const o = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((s: string | Uint8Array) => (out.push(String(s)), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string | Uint8Array) => (err.push(String(s)), true)) as typeof process.stderr.write;
  try {
    const code = await main(["node", "ssgkr", ...args]);
    return { code, out: out.join(""), err: err.join("") };
  } finally {
    process.stdout.write = o;
    process.stderr.write = e;
  }
}
