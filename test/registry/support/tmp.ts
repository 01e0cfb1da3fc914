import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";

/** A fresh temporary directory, removed after the test file. */
export function tempDir(prefix = "ssgkr-registry-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes a file in a fresh temporary directory and returns its path. */
export function tempFile(name: string, content: string | Uint8Array): string {
  const path = join(tempDir(), name);
  writeFileSync(path, content);
  return path;
}
