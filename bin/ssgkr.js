#!/usr/bin/env node
import { main } from "../dist/src/cli/main.js";

// A reader that stops early (`ssgkr … | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err) => {
    if (err && err.code === "EPIPE") process.exit(process.exitCode ?? 0);
    else throw err;
  });
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`error: ${err && err.message ? err.message : String(err)}\n`);
    process.exitCode = 2;
  },
);
