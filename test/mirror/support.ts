/**
 * What the mirror tests share: a signing key from a fixed seed, a registry whose blocks are all
 * proved, and a tiny node:http server on 127.0.0.1 that answers as a test decides (a bad primary)
 * or forwards to a real primary, changing answers on the way (a tampering primary).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { sign } from "node:crypto";
import { signingKeyOfSeed, type SigningKey } from "../../src/registry/checkpoint/signing-key.js";
import { checkpointText } from "../../src/registry/checkpoint/checkpoint.js";
import { base64Of, SIGNATURE_PREFIX } from "../../src/registry/checkpoint/note.js";
import { BlockProver } from "../../src/registry/consistency/block-prover.js";
import type { NameStore } from "../../src/registry/store/name-store.js";
import { freshDir, removeDir, startServer } from "../web/support.js";

/** A signing key of origin `origin` from a seed byte. */
export function testKey(origin = "example.com/mirror", seedByte = 7): SigningKey {
  return signingKeyOfSeed(origin, new Uint8Array(32).fill(seedByte));
}

/** A checkpoint whose signature line is `key`'s but whose text names another origin. */
export function checkpointOfOrigin(key: SigningKey, origin: string, size: number, root: ArrayLike<number>): string {
  const text = checkpointText({ origin, size, root });
  const sig = sign(null, Buffer.from(text, "utf8"), key.privateKey);
  const blob = new Uint8Array(4 + sig.length);
  blob.set(key.hash, 0);
  blob.set(sig, 4);
  return `${text}\n${SIGNATURE_PREFIX}${key.origin} ${base64Of(blob)}\n`;
}

/** Proves every batch's block the registry does not hold yet. */
export function proveAll(store: NameStore): void {
  new BlockProver(store).drain();
}

/** A primary registry served on 127.0.0.1 for a test file, in a directory of its own. */
export interface ServedPrimary {
  readonly dir: string;
  readonly primary: NameStore;
  readonly srv: Awaited<ReturnType<typeof startServer>>;
}

/**
 * Makes a primary in a fresh directory (`open` builds its registry there), proves every block it
 * holds and serves it with `key`'s checkpoints and no rate limit.
 */
export async function startPrimary(
  prefix: string,
  key: SigningKey,
  open: (dir: string) => NameStore,
): Promise<ServedPrimary> {
  const dir = freshDir(prefix);
  const primary = open(dir);
  proveAll(primary);
  const srv = await startServer({ store: primary, signingKey: key, rateLimit: 0 });
  return { dir, primary, srv };
}

/** Stops what `startPrimary` started (whatever of it exists) and removes its directory. */
export async function stopPrimary(p: Partial<ServedPrimary>): Promise<void> {
  await p.srv?.app.close();
  await p.primary?.close();
  if (p.dir) removeDir(p.dir);
}

/** A handler of the fake server: answer the request, or return false to forward it to the primary. */
export type Handler = (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;

/** A server on 127.0.0.1; with `target` it forwards the requests `handle` does not answer. */
export async function fakeServer(
  handle: Handler,
  target?: string,
): Promise<{ base: string; server: Server; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    void (async () => {
      if (await handle(req, res)) return;
      if (target === undefined) {
        res.writeHead(404).end();
        return;
      }
      const r = await fetch(`${target}${req.url}`);
      const body = Buffer.from(await r.arrayBuffer());
      const headers: Record<string, string> = {};
      r.headers.forEach((v, k) => {
        if (k !== "content-length" && k !== "transfer-encoding" && k !== "connection") headers[k] = v;
      });
      res.writeHead(r.status, headers).end(body);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The answer of a forwarded request as JSON, for handlers that change it. */
export async function forwardJson(target: string, url: string): Promise<{ status: number; body: any }> {
  const r = await fetch(`${target}${url}`);
  return { status: r.status, body: await r.json() };
}
