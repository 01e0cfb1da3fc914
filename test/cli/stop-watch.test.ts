/**
 * When a long-running command stops (src/cli/commands/stop-watch.ts): on SIGTERM, and when the
 * process that started it ends (the `npx ssgkr … &` then `kill` case), each reported once.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const module = pathToFileURL(fileURLToPath(new URL("../../src/cli/commands/stop-watch.js", import.meta.url))).href;
const script = `import { watchStop } from ${JSON.stringify(module)};
const dispose = watchStop((why) => { console.log("stop: " + why); dispose(); process.exit(0); });
setTimeout(() => { console.log("still running"); process.exit(1); }, 8000);
console.log("ready");`;

async function until(read: () => string, want: RegExp, ms: number): Promise<string> {
  const end = Date.now() + ms;
  for (;;) {
    const text = read();
    if (want.test(text) || Date.now() > end) return text;
    await new Promise((r) => setTimeout(r, 50));
  }
}

test("watchStop: SIGTERM stops the command once, with its reason", async () => {
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (b: Buffer) => (out += b.toString()));
  await until(() => out, /ready/, 5000);
  child.kill("SIGTERM");
  const code = await new Promise<number | null>((r) => child.on("exit", r));
  assert.equal(code, 0);
  assert.equal(out.trim(), "ready\nstop: SIGTERM");
});

test("watchStop: the end of the process that started the command stops it (its parent PID changes)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ssgkr-stop-watch-"));
  try {
    const outFile = join(dir, "out.txt");
    // A shell starts the command in the background and ends, as npx's shell does when its job is killed.
    const sh = spawnSync(
      "sh",
      ["-c", `"$0" --input-type=module -e "$1" > "$2" 2>&1 & sleep 0.5; exit 0`, process.execPath, script, outFile],
      { encoding: "utf8" },
    );
    assert.equal(sh.status, 0, sh.stderr);
    const text = await until(() => readFileSync(outFile, "utf8"), /stop: |still running/, 7000);
    assert.equal(text.trim(), "ready\nstop: the process that started it ended");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
