/**
 * The CLI's client of a registry's HTTP API (`registry verify-consistency`, `registry monitor`):
 * the base URL, the signed checkpoint (`GET /v1/checkpoint`) and the chain of block proofs between
 * two sizes (`GET /v1/consistency`, every page, a `202 PROOF_PENDING` waited out by its
 * `Retry-After`).
 */
import type { ConsistencyLink } from "../registry/consistency/verify-consistency.js";
import { HTTP_ERROR_CODES, type HttpErrorCode } from "../http/errors.js";
import { CliError } from "./errors.js";

/** Longest checkpoint note read from a server. */
const CHECKPOINT_BYTES = 64 * 1024;

/**
 * The base URL of a registry's API, without a trailing slash.
 * @throws CliError `BAD_OPTION` naming `--url` for a URL that does not parse or is not http(s).
 */
export function registryBase(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch (e) {
    throw new CliError("BAD_OPTION", `--url ${url}: ${(e as Error).message}`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:")
    throw new CliError("BAD_OPTION", `--url ${url}: give an http or https URL`);
  return u.href.replace(/\/+$/, "");
}

function networkError(url: string, e: unknown): CliError {
  return new CliError("NETWORK_ERROR", `${url}: ${(e as Error).message}`);
}

/**
 * Every link of the chain from size `from` to size `to`, page by page.
 * @throws CliError `PROOF_PENDING` (blocks still being proved after `waitMs`), the server's code
 *   when it answered with one (`CHAIN_NOT_PROVABLE`, `SIZE_UNKNOWN`, …), `NETWORK_ERROR` otherwise.
 */
export async function fetchChain(base: string, from: number, to: number, waitMs: number): Promise<ConsistencyLink[]> {
  const links: ConsistencyLink[] = [];
  const deadline = Date.now() + waitMs;
  let after = from;
  /** Set when the last page ended inside batch after + 1 (a batch proved in parts): the last part it held. */
  let afterPart: number | undefined;
  for (;;) {
    const url = `${base}/v1/consistency?from=${from}&to=${to}${after !== from || afterPart !== undefined ? `&after=${after}` : ""}${afterPart !== undefined ? `&after_part=${afterPart}` : ""}`;
    let res: Response;
    let body: Record<string, unknown>;
    try {
      res = await fetch(url, { headers: { accept: "application/json" } });
      body = (await res.json()) as Record<string, unknown>;
    } catch (e) {
      throw networkError(url, e);
    }
    if (res.status === 202) {
      const seconds = Math.min(30, Math.max(1, Number(res.headers.get("retry-after") ?? "2") || 2));
      if (Date.now() + seconds * 1000 > deadline)
        throw new CliError(
          "PROOF_PENDING",
          `${url}: ${String(body.message ?? "a block is still being proved")} (waited ${Math.round(waitMs / 1000)} s; --wait SECONDS waits longer)`,
        );
      await new Promise((r) => setTimeout(r, seconds * 1000));
      continue;
    }
    if (res.status !== 200) {
      const code =
        typeof body.code === "string" && (HTTP_ERROR_CODES as readonly string[]).includes(body.code)
          ? (body.code as HttpErrorCode)
          : "NETWORK_ERROR";
      throw new CliError(code, `${url}: HTTP ${res.status}: ${String(body.message ?? "")}`);
    }
    const page = body.links;
    if (!Array.isArray(page)) throw new CliError("NETWORK_ERROR", `${url}: the answer holds no links`);
    links.push(...(page as ConsistencyLink[]));
    const next = body.next;
    if (next === null || next === undefined) return links;
    const nextPart = body.next_part;
    // The next page starts at (batch, part): (next + 1, 0), or (next + 1, next_part + 1) inside a batch in parts.
    const forward =
      typeof next === "number" &&
      next <= to &&
      (nextPart === undefined || (Number.isInteger(nextPart) && (nextPart as number) >= 0)) &&
      (next > after ||
        (next === after && nextPart !== undefined && (afterPart === undefined || (nextPart as number) > afterPart)));
    if (!forward)
      throw new CliError(
        "NETWORK_ERROR",
        `${url}: the answer's next (${JSON.stringify(next)}${nextPart !== undefined ? `, next_part ${JSON.stringify(nextPart)}` : ""}) does not go forward`,
      );
    after = next as number;
    afterPart = nextPart as number | undefined;
  }
}

/**
 * The signed checkpoint the registry serves now (`GET /v1/checkpoint`, the note's text).
 * @throws CliError the server's code when it answered with one (`CHECKPOINT_NOT_SERVED`, …),
 *   `NETWORK_ERROR` otherwise (unreachable, not text, larger than 64 KiB).
 */
export async function fetchCheckpoint(base: string): Promise<string> {
  const url = `${base}/v1/checkpoint`;
  let res: Response;
  let text: string;
  try {
    res = await fetch(url);
    text = await res.text();
  } catch (e) {
    throw networkError(url, e);
  }
  if (res.status !== 200) {
    let code: HttpErrorCode | "NETWORK_ERROR" = "NETWORK_ERROR";
    try {
      const c = (JSON.parse(text) as { code?: unknown }).code;
      if (typeof c === "string" && (HTTP_ERROR_CODES as readonly string[]).includes(c)) code = c as HttpErrorCode;
    } catch {
      // not the API's error body
    }
    throw new CliError(code, `${url}: HTTP ${res.status}`);
  }
  if (text.length > CHECKPOINT_BYTES)
    throw new CliError("NETWORK_ERROR", `${url}: an answer of ${text.length} characters is not a checkpoint`);
  return text;
}
