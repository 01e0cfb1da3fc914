/**
 * `ssgkr --version`: the package version (from package.json) and the profile and proof format
 * this build speaks.
 */
import { readFileSync } from "node:fs";

/** The package version, or "unknown" if package.json cannot be read. */
export function packageVersion(): string {
  try {
    // dist/src/cli/version.js → the package root holds package.json.
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
      name?: string;
      version?: string;
    };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}

/** e.g. `ssgkr 0.1.0 (statesync-gkr; profiles compat-v1, v2, v3; proof formats inner-proof-v1, -v2, -v3)`. */
export function versionLine(): string {
  return `ssgkr ${packageVersion()} (statesync-gkr; profiles compat-v1, v2, v3; proof formats inner-proof-v1, -v2, -v3)`;
}
