#!/usr/bin/env node
import { main } from "../dist/src/cli/main.js";

main(process.argv).then(
  (code) => { process.exitCode = code; },
  (err) => {
    process.stderr.write(`error: ${err && err.message ? err.message : String(err)}\n`);
    process.exitCode = 2;
  },
);
