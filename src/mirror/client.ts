/**
 * The mirror's client of a primary's HTTP API: every request bounded in time (one deadline for
 * the answer and its whole body, so a response that never ends is cut) and in size (a body past
 * its bound is cut as it arrives), `429` and `503` answered by waiting their `Retry-After` (at most
 * `maxRetries` times), and every failure one `MirrorError` with a stable code.
 */
import { MirrorError } from "./errors.js";

/** Bounds of one request. */
export interface RequestBounds {
  /** Milliseconds for the whole answer, body included. */
  readonly timeoutMs: number;
  /** Bytes of the body at most. */
  readonly maxBytes: number;
}

/** An answer: its status, headers and body bytes. */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Buffer;
}

/** Retries of one request answered 429 or 503 before giving up. */
const MAX_RETRIES = 20;
/** Longest `Retry-After` honoured, in seconds. */
const MAX_RETRY_AFTER_S = 60;

/**
 * The base URL of a primary, without a trailing slash.
 * @throws MirrorError `MIRROR_UNREACHABLE` for a URL that does not parse or is not http(s).
 */
export function primaryBase(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch (e) {
    throw new MirrorError("MIRROR_UNREACHABLE", `--from ${url}: ${(e as Error).message}`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:")
    throw new MirrorError("MIRROR_UNREACHABLE", `--from ${url}: give an http or https URL`);
  return u.href.replace(/\/+$/, "");
}

/** Seconds of a `Retry-After` header (1 when absent or unreadable, at most 60). */
export function retryAfterSeconds(h: string | null): number {
  const n = Number(h ?? "1");
  return Number.isFinite(n) ? Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil(n))) : 1;
}

/** Why fetch failed, in words (its cause's code when it has one). */
function causeOf(e: unknown): string {
  const c = (e as { cause?: { code?: string; message?: string } }).cause;
  return c?.code ?? c?.message ?? (e as Error).message;
}

/**
 * One GET, bounded; `429` and `503` waited out by their `Retry-After`.
 * @param sleep waits (tests pass a faster one).
 * @throws MirrorError `MIRROR_UNREACHABLE`, `MIRROR_TIMEOUT`, `MIRROR_TOO_LARGE`,
 *   `MIRROR_SERVER_ERROR` (still 429/503 after the retries).
 */
export async function boundedGet(
  url: string,
  bounds: RequestBounds,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    const a = await getOnce(url, bounds);
    if ((a.status === 429 || a.status === 503) && attempt < MAX_RETRIES) {
      await sleep(retryAfterSeconds(a.headers.get("retry-after")) * 1000);
      continue;
    }
    if (a.status === 429 || a.status === 503)
      throw new MirrorError("MIRROR_SERVER_ERROR", `${url}: still HTTP ${a.status} after ${MAX_RETRIES} retries`, {
        status: a.status,
      });
    return a;
  }
}

/**
 * One GET within the time bound: the deadline settles the call by itself (it does not wait for an
 * aborted body read to notice its abort), then aborts the request.
 */
async function getOnce(url: string, bounds: RequestBounds): Promise<Answer> {
  const ctl = new AbortController();
  const body: BodyReader = { reader: undefined };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new MirrorError("MIRROR_TIMEOUT", `${url}: no complete answer within ${bounds.timeoutMs} ms`, {
          timeoutMs: bounds.timeoutMs,
        }),
      );
      ctl.abort();
      // the body's reader too: its connection is released even where the abort does not reach it
      body.reader?.cancel().catch(() => undefined);
    }, bounds.timeoutMs);
  });
  const reading = readAnswer(url, bounds, ctl, body);
  // after the deadline the read ends in an abort error that nobody waits for
  reading.catch(() => undefined);
  try {
    return await Promise.race([reading, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The reader of an answer's body while it is read (set by `readAnswer`). */
interface BodyReader {
  reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
}

/** The answer of one GET, its body bounded in bytes (aborted through `ctl` past the bound). */
async function readAnswer(url: string, bounds: RequestBounds, ctl: AbortController, body: BodyReader): Promise<Answer> {
  let res: Response;
  try {
    res = await fetch(url, { signal: ctl.signal, redirect: "error" });
  } catch (e) {
    throw new MirrorError("MIRROR_UNREACHABLE", `${url}: ${causeOf(e)}`);
  }
  const declared = Number(res.headers.get("content-length") ?? "NaN");
  const tooLarge = () =>
    new MirrorError("MIRROR_TOO_LARGE", `${url}: an answer of more than ${bounds.maxBytes} bytes`, {
      maxBytes: bounds.maxBytes,
    });
  if (declared > bounds.maxBytes) {
    ctl.abort();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    if (res.body !== null) {
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      body.reader = reader;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.length;
        if (bytes > bounds.maxBytes) {
          ctl.abort();
          await reader.cancel().catch(() => undefined);
          throw tooLarge();
        }
        chunks.push(Buffer.from(value));
      }
    }
  } catch (e) {
    if (e instanceof MirrorError) throw e;
    throw new MirrorError("MIRROR_UNREACHABLE", `${url}: the answer broke off (${causeOf(e)})`);
  }
  return { status: res.status, headers: res.headers, body: Buffer.concat(chunks) };
}

/** The API's error body `{code, message}` of an answer, when it is one. */
export function apiError(a: Answer): { code: string; message: string } | undefined {
  try {
    const v = JSON.parse(a.body.toString("utf8")) as { code?: unknown; message?: unknown };
    if (v !== null && typeof v === "object" && typeof v.code === "string")
      return { code: v.code, message: typeof v.message === "string" ? v.message : "" };
  } catch {
    // not JSON
  }
  return undefined;
}

/**
 * An answer's body as a JSON object.
 * @throws MirrorError `MIRROR_NOT_REGISTRY` when it is not one.
 */
export function jsonObject(url: string, a: Answer): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(a.body.toString("utf8"));
  } catch {
    throw new MirrorError(
      "MIRROR_NOT_REGISTRY",
      `${url}: HTTP ${a.status} with a body that is not JSON (not a registry's API)`,
      { status: a.status },
    );
  }
  if (v === null || typeof v !== "object" || Array.isArray(v))
    throw new MirrorError("MIRROR_NOT_REGISTRY", `${url}: the answer is not a JSON object (not a registry's API)`);
  return v as Record<string, unknown>;
}

/**
 * The error of an answer that is not the expected status: the API's code in the message when it
 * sent one (`MIRROR_SERVER_ERROR`), else `MIRROR_NOT_REGISTRY`.
 */
export function unexpected(url: string, a: Answer): MirrorError {
  const e = apiError(a);
  return e !== undefined
    ? new MirrorError("MIRROR_SERVER_ERROR", `${url}: HTTP ${a.status} ${e.code}: ${e.message}`.slice(0, 500), {
        status: a.status,
        code: e.code,
      })
    : new MirrorError("MIRROR_NOT_REGISTRY", `${url}: HTTP ${a.status}, not an answer of a registry's API`, {
        status: a.status,
      });
}
