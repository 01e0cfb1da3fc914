/**
 * The browser verifier page (docs/http.md "The verifier page"), as one fastify plugin:
 * `/verify/` and its files from the built page folder (dist/web unless given), the package's
 * kernel module as kernels.wasm when the folder holds none. Cross-origin isolation headers let the
 * page use shared WASM memory (the kernels); files are read once and kept.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { HttpContext } from "./context.js";
import { HttpError } from "./errors.js";
import { SCHEMAS } from "./schemas.js";

/** The package's kernel module, served as the page's kernels.wasm when the page folder holds none (the package ships it once). */
const PACKAGE_KERNELS = new URL("../../../wasm/kernels.wasm", import.meta.url).pathname;

const WEB_TYPES: Readonly<Record<string, string>> = {
  "index.html": "text/html; charset=utf-8",
  "page.js": "text/javascript; charset=utf-8",
  "page.js.map": "application/json",
  "kernels.wasm": "application/wasm",
};

/** The page routes plugin (options: the app's `HttpContext`). */
export async function pageRoutes(app: FastifyInstance, ctx: HttpContext): Promise<void> {
  const files = new Map<string, Buffer>();
  const serve = (file: string, reply: FastifyReply) => {
    const type = WEB_TYPES[file];
    if (!type) throw new HttpError("NOT_FOUND", `no file ${file} in the verifier page`);
    let bytes = files.get(file);
    if (!bytes) {
      let path = join(ctx.webDir, file);
      if (file === "kernels.wasm" && !existsSync(path) && existsSync(PACKAGE_KERNELS)) path = PACKAGE_KERNELS;
      if (!existsSync(path))
        throw new HttpError(
          "WEB_NOT_BUILT",
          `the verifier page is not built (${path} is missing): the package ships it in dist/web and \`npm ci\` in a clone builds it there (\`npm run build:web\` rebuilds it); reinstall, or give the folder of a built page (--web DIR)`,
        );
      bytes = readFileSync(path);
      files.set(file, bytes);
    }
    void reply
      .header("content-type", type)
      .header("cross-origin-opener-policy", "same-origin")
      .header("cross-origin-embedder-policy", "require-corp")
      .header("cross-origin-resource-policy", "same-origin")
      .header("cache-control", "no-cache");
    return bytes;
  };
  app.get("/verify", { schema: { hide: true } }, async (_req, reply) => reply.redirect("/verify/"));
  app.get("/verify/", { schema: SCHEMAS.page }, async (_req, reply) => serve("index.html", reply));
  app.get("/verify/:file", { schema: { hide: true } }, async (req, reply) =>
    serve((req.params as { file: string }).file, reply),
  );
}
