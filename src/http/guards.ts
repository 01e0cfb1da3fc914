/**
 * The guards every request passes before any route, as one fastify plugin (not encapsulated: its
 * hooks are the app's), in this order: the CORS headers (so every answer carries them, errors and
 * 429s included), the client's request budget (before the URL check and before any route's token
 * check), the URL length; and the CORS preflight route when CORS is on.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import rateLimit from "@fastify/rate-limit";
import type { HttpContext } from "./context.js";
import { HttpError } from "./errors.js";

/**
 * Sets the CORS headers of an answer: with one allowed origin every answer depends on Origin and
 * says so (whatever the request's Origin and status), so a shared cache never serves one origin's
 * variant to another. Nothing when CORS is off (`cors` undefined).
 */
export function corsHeaders(cors: string | undefined, req: FastifyRequest, reply: FastifyReply): void {
  if (cors === undefined) return;
  void reply.header("vary", "Origin");
  if (cors === "*" || req.headers.origin === cors) {
    void reply.header("access-control-allow-origin", cors);
    void reply.header("access-control-expose-headers", "x-ssgkr-statement, x-ssgkr-root, retry-after");
  }
}

async function guards(app: FastifyInstance, ctx: HttpContext): Promise<void> {
  app.addHook("onRequest", async (req, reply) => corsHeaders(ctx.cors, req, reply));

  if (ctx.rateLimit > 0) {
    await app.register(rateLimit, {
      global: false,
      max: ctx.rateLimit,
      timeWindow: 60_000,
      // The socket's address: forwarding headers (X-Forwarded-For, Forwarded, …) never choose the client.
      keyGenerator: (req) => req.socket.remoteAddress ?? "unknown",
      errorResponseBuilder: (_req, c) =>
        new HttpError(
          "RATE_LIMITED",
          `more than ${c.max} requests per minute from this client; retry in ${Math.ceil(c.ttl / 1000)} s`,
        ),
    });
    // One global hook: every request (reads, writes, refused ones, unknown routes) spends the client's budget before any route hook compares a token.
    const spend = app.rateLimit();
    ctx.spendBudget = spend;
    app.addHook("onRequest", spend);
  }

  app.addHook("onRequest", async (req) => {
    if (Buffer.byteLength(req.url) > ctx.maxUrl)
      throw new HttpError("URL_TOO_LONG", `URL: longer than ${ctx.maxUrl} bytes`);
  });

  if (ctx.cors !== undefined) {
    app.options("/v1/*", { schema: { hide: true } }, async (_req, reply) => {
      void reply
        .header("access-control-allow-methods", "GET, POST, PUT, DELETE, OPTIONS")
        .header("access-control-allow-headers", "authorization, content-type")
        .header("access-control-max-age", "600")
        .status(204);
      return "";
    });
  }
}

/** The guards plugin (options: the app's `HttpContext`). */
export const guardsPlugin = fp(guards, { name: "ssgkr-guards", fastify: "5.x" });
