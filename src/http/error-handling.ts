/**
 * How the API answers errors, as one fastify plugin (not encapsulated: its handlers are the
 * app's): every error is `{"code", "message"}` with its code's status (errors.ts,
 * `HTTP_STATUSES`); a request the framework refused before any route gets the code of what was
 * wrong (`URL_TOO_LONG`, `BODY_TOO_LARGE`, `RATE_LIMITED`, `BAD_INPUT`); any other error is a
 * fault of the server, 500 `INTERNAL`, whose details go to the log or standard error only. Also
 * the answer to URLs the router cannot take (`frameworkErrorAnswer`) and to bytes the HTTP parser
 * refuses (`clientErrorAnswer`), fastify constructor options.
 */
import { STATUS_CODES } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { SsgkrError } from "../errors.js";
import type { HttpContext } from "./context.js";
import { HttpError, statusOf, statusOfCode } from "./errors.js";
import { corsHeaders } from "./guards.js";

const INTERNAL_MESSAGE = "internal error (the server's standard error has the details)";

/** Milliseconds a request has to arrive whole, headers and body (`REQUEST_TIMEOUT` past it). */
export const REQUEST_TIMEOUT_MS = 60_000;

/**
 * The `clientErrorHandler` option of the app: bytes Node's HTTP parser refuses before the
 * framework sees a request — a request that did not arrive whole in time, a header block over
 * Node's 16 KiB, anything that is not HTTP/1.1 — answered in the API's error shape
 * (`REQUEST_TIMEOUT` 408, `HEADERS_TOO_LARGE` 431, `BAD_HTTP` 400), then the connection closes:
 * ended at once, destroyed a second later if the client keeps it open.
 */
export function clientErrorAnswer(
  requestTimeoutMs: number,
): (err: NodeJS.ErrnoException, socket: import("node:stream").Duplex) => void {
  return (err, socket) => {
    if (err.code === "ECONNRESET" || socket.destroyed) return;
    const e =
      err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? new HttpError(
            "REQUEST_TIMEOUT",
            `the request did not arrive whole within ${requestTimeoutMs / 1000} s; the connection is closed`,
          )
        : err.code === "HPE_HEADER_OVERFLOW"
          ? new HttpError(
              "HEADERS_TOO_LARGE",
              "the request's header block is larger than 16 KiB; the connection is closed",
            )
          : new HttpError(
              "BAD_HTTP",
              `not a well-formed HTTP/1.1 request (${err.code ?? "malformed"}); the connection is closed`,
            );
    const body = JSON.stringify({ code: e.code, message: e.message });
    if (socket.writable)
      socket.end(
        `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    setTimeout(() => socket.destroy(), 1000).unref();
  };
}

/**
 * The `frameworkErrors` option of the app: URLs the router cannot take (bad percent-encoding, a
 * path segment over the router's limit) are answered here, without the hooks, so this answer
 * sets the CORS headers, spends the client's budget and answers in the API's error shape itself.
 */
export function frameworkErrorAnswer(ctx: HttpContext) {
  return (err: { code?: string }, req: FastifyRequest, reply: FastifyReply): void => {
    corsHeaders(ctx.cors, req, reply);
    const answer = (e: HttpError) => void reply.status(e.status).send({ code: e.code, message: e.message });
    const refusal =
      err.code === "FST_ERR_MAX_PARAM_LENGTH"
        ? new HttpError("URL_TOO_LONG", `URL: longer than ${ctx.maxUrl} bytes`)
        : new HttpError(
            "BAD_INPUT",
            "URL: not a valid URL (bad percent-encoding, or percent-encoded bytes that are not UTF-8)",
          );
    (ctx.spendBudget ? ctx.spendBudget(req, reply) : Promise.resolve()).then(
      () => answer(refusal),
      (e: unknown) => answer(e instanceof HttpError ? e : new HttpError("INTERNAL", INTERNAL_MESSAGE)),
    );
  };
}

/** The code, status and message of a request the framework refused before any route. */
function frameworkRefusal(
  e: Error & { statusCode: number; code?: string },
  req: FastifyRequest,
  app: FastifyInstance,
  maxUrl: number,
): { code: string; status: number; message: string } {
  const s = e.statusCode;
  // Its code's status, but BAD_INPUT keeps the framework's (415 for a body that is not JSON; docs/errors.md, HttpErrorCode).
  const coded = (code: string, message: string) => ({ code, message, status: statusOfCode(code) });
  if (e.code === "FST_ERR_MAX_PARAM_LENGTH" || s === 414)
    return coded("URL_TOO_LONG", `URL: longer than ${maxUrl} bytes`);
  if (s === 413)
    return coded(
      "BODY_TOO_LARGE",
      `body: larger than this route accepts (${req.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit} bytes)`,
    );
  if (s === 429) return coded("RATE_LIMITED", e.message);
  if (s === 415)
    return {
      code: "BAD_INPUT",
      status: s,
      message: `content-type: send JSON (application/json), got ${JSON.stringify(req.headers["content-type"] ?? "")}`,
    };
  return {
    code: "BAD_INPUT",
    status: s,
    message:
      e.code === "FST_ERR_CTP_EMPTY_JSON_BODY"
        ? "body: empty, but the content-type says JSON"
        : e instanceof SyntaxError || e.code === "FST_ERR_CTP_INVALID_JSON_BODY"
          ? `body: not valid JSON (${e.message})`
          : e.message,
  };
}

async function errorHandling(app: FastifyInstance, ctx: HttpContext): Promise<void> {
  app.setErrorHandler((err: unknown, req, reply) => {
    const e = err as Error & { statusCode?: number; code?: string };
    let status = statusOf(err);
    let code = err instanceof SsgkrError ? err.code : "INTERNAL";
    let message = e.message;
    if (!(err instanceof SsgkrError) && typeof e.statusCode === "number" && e.statusCode < 500)
      ({ code, status, message } = frameworkRefusal(e as Error & { statusCode: number }, req, app, ctx.maxUrl));
    if (status >= 500 && !(err instanceof HttpError)) {
      if (ctx.logger) req.log.error(err);
      else process.stderr.write(`error ${code}: ${req.method} ${req.url.split("?")[0]}: ${e.message}\n`);
    }
    if (code === "INTERNAL") message = INTERNAL_MESSAGE;
    if (status === 401) void reply.header("www-authenticate", 'Bearer realm="ssgkr registry"');
    // A full proving queue: ask again shortly (docs/http.md "How it runs").
    if (code === "PROVER_BUSY" || code === "PROVER_TIMEOUT") void reply.header("retry-after", "1");
    // A root outside the retention window: the body names the oldest provable root and its size.
    const window =
      err instanceof HttpError && code === "ROOT_NOT_PROVABLE" && typeof err.details["oldest_root"] === "string"
        ? { oldest_root: err.details["oldest_root"], oldest_size: err.details["oldest_size"] }
        : {};
    void reply.status(status).send({ code, message, ...window });
  });
  app.setNotFoundHandler((req, reply) => {
    const e = new HttpError("NOT_FOUND", `no route ${req.method} ${req.url.split("?")[0]}`);
    void reply.status(e.status).send({ code: e.code, message: e.message });
  });
}

/** The error-handling plugin (options: the app's `HttpContext`). */
export const errorHandlingPlugin = fp(errorHandling, { name: "ssgkr-error-handling", fastify: "5.x" });
