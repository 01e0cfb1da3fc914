/**
 * The command line of the registry proof jobs: `registry worker` and `registry http --nats` refuse
 * every bad option with one line `error CODE: message` and exit 2, before they connect to anything;
 * a worker whose broker cannot be reached fails with `BROKER_CONNECT` and creates no copy.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bin } from "../serve/support/nats.js";
import { testKey } from "../mirror/support.js";

const dir = mkdtempSync(join(tmpdir(), "ssgkr-proof-jobs-cli-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function ssgkr(args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const KEY = testKey().verifierKey;
const worker = (extra: string[]) => [
  "registry",
  "worker",
  "--nats",
  "nats://127.0.0.1:1",
  "--from",
  "http://127.0.0.1:1",
  "--key",
  KEY,
  "--db",
  join(dir, "copy"),
  ...extra,
];

test("registry worker: each bad option is one `error CODE: message` line, exit 2, and no copy is created", () => {
  const cases: [string[], RegExp][] = [
    [
      worker(["--nats", "localhost:4222"]),
      /^error BAD_OPTION: --nats entry "localhost:4222" is not nats:\/\/HOST:PORT/,
    ],
    [worker(["--threads", "0"]), /^error BAD_OPTION: --threads must be an integer in \[1, 64\]/],
    [worker(["--max-deliveries", "1001"]), /^error BAD_OPTION: --max-deliveries must be an integer in \[1, 1000\]/],
    [worker(["--sync-wait-ms", "x"]), /^error BAD_OPTION: --sync-wait-ms must be an integer/],
    [worker(["--follow-ms", "50"]), /^error BAD_OPTION: --follow-ms must be an integer in \[100, 3600000\]/],
    [worker(["--pull-expires-ms", "1"]), /^error BAD_OPTION: --pull-expires-ms must be an integer in \[5, 60000\]/],
    [worker(["--timeout", "0"]), /^error BAD_OPTION: --timeout must be an integer in \[1, 3600\]/],
    [worker(["--host-id", "a b"]), /^error BAD_OPTION: --host-id must be 1\.\.64 of/],
    [worker(["--nats-tls-cert", "c.pem"]), /^error BAD_OPTION: --nats-tls-cert and --nats-tls-key go together/],
    [worker(["--key", "not-a-key"]), /^error BAD_VERIFIER_KEY: /],
    [worker(["--from", "ftp://x"]), /^error BAD_OPTION: --from ftp:\/\/x: give the primary's http or https URL/],
    [worker(["--from", "127.0.0.1:8080"]), /^error BAD_OPTION: --from 127\.0\.0\.1:8080: give the primary's http/],
    [worker([]), /^error BROKER_CONNECT: cannot connect to nats:\/\/127\.0\.0\.1:1: CONNECTION_REFUSED$/],
  ];
  for (const [args, re] of cases) {
    const r = ssgkr(args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    const lines = r.stderr.trim().split("\n");
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, re);
    assert.equal(existsSync(join(dir, "copy")), false, "no copy was created");
  }
});

test("registry http: --nats options are checked before the registry is opened, and go with --nats", () => {
  const http = (extra: string[]) => [
    "registry",
    "http",
    "--db",
    join(dir, "no-registry"),
    "--listen",
    "127.0.0.1:0",
    ...extra,
  ];
  const cases: [string[], RegExp][] = [
    [http(["--nats", "nats://127.0.0.1"]), /^error BAD_OPTION: --nats entry/],
    [
      http(["--nats", "nats://127.0.0.1:4222", "--nats-block-capacity", "0"]),
      /^error BAD_OPTION: --nats-block-capacity must be an integer in \[1, 1024\]/,
    ],
    [
      http(["--nats", "nats://127.0.0.1:4222", "--nats-read-timeout-ms", "99"]),
      /^error BAD_OPTION: --nats-read-timeout-ms must be an integer in \[100, 86400000\]/,
    ],
    [
      http(["--nats", "nats://127.0.0.1:4222", "--nats-block-timeout-ms", "x"]),
      /^error BAD_OPTION: --nats-block-timeout-ms must be an integer/,
    ],
    [http(["--nats-creds", "c.creds"]), /^error BAD_OPTION: --nats-creds goes with --nats/],
    [http(["--nats-block-capacity", "3"]), /^error BAD_OPTION: --nats-block-capacity goes with --nats/],
  ];
  for (const [args, re] of cases) {
    const r = ssgkr(args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    const lines = r.stderr.trim().split("\n");
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, re);
  }
});
