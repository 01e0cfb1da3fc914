/**
 * autocannon with its request errors counted by kind (`reqError`: a timeout, a reset, a refused
 * connection…), so that a bench line can say what its errors were instead of only how many.
 */
import autocannon, { type Options, type Result } from "autocannon";

/** autocannon's result and its request errors by code (or message), most frequent first. */
export interface LoadResult {
  readonly result: Result;
  readonly errorKinds: readonly (readonly [string, number])[];
}

/** Runs autocannon with `opts` and collects its request errors by kind. */
export function runLoad(opts: Options): Promise<LoadResult> {
  const kinds = new Map<string, number>();
  return new Promise((resolve, reject) => {
    const instance = autocannon(opts, (err, result) => {
      if (err) reject(err);
      else resolve({ result, errorKinds: [...kinds].sort((a, b) => b[1] - a[1]) });
    });
    instance.on("reqError", (e: unknown) => {
      const code = (e as { code?: unknown }).code;
      const key = typeof code === "string" ? code : e instanceof Error ? e.message : String(e);
      kinds.set(key, (kinds.get(key) ?? 0) + 1);
    });
  });
}

/** "3 ETIMEDOUT, 1 ECONNRESET" (empty without errors). */
export function errorKindsText(kinds: LoadResult["errorKinds"]): string {
  return kinds.map(([k, n]) => `${n} ${k}`).join(", ");
}

/** The answers other than 2xx by status: "2 × 503, 1 × 409" (empty without any). */
export function statusesText(r: Result): string {
  return Object.entries(r.statusCodeStats ?? {})
    .filter(([code]) => !code.startsWith("2"))
    .sort((a, b) => b[1].count - a[1].count)
    .map(([code, { count }]) => `${count} × ${code}`)
    .join(", ");
}

/** Writes of this process so far: every PUT of `writeLoad` names a new record. */
let written = 0;

/** What `writeLoad` offers: over `connections` × `pipelining` slots, closed loop or at `overallRate`/s. */
export interface WriteLoadOptions {
  readonly base: string;
  readonly token: string;
  readonly connections: number;
  readonly duration: number;
  readonly pipelining?: number;
  /** Requests per second over all connections (open loop); absent: each slot refilled once answered. */
  readonly overallRate?: number;
  /** Names are `${prefix}-N` with values `https://example.com/${prefix}/N`. */
  readonly prefix: string;
  /** Called on each 2xx answer. */
  readonly onAck?: () => void;
}

/** `PUT /v1/records/{name}` of new names under load (autocannon, timeout 60 s), errors by kind. */
export function writeLoad(o: WriteLoadOptions): Promise<LoadResult> {
  const onAck = o.onAck;
  return runLoad({
    url: o.base,
    connections: o.connections,
    pipelining: o.pipelining ?? 1,
    duration: o.duration,
    timeout: 60,
    ...(o.overallRate !== undefined ? { overallRate: o.overallRate } : {}),
    requests: [
      {
        method: "PUT",
        headers: { authorization: `Bearer ${o.token}`, "content-type": "application/json" },
        setupRequest: (req) => {
          const i = written++;
          return {
            ...req,
            path: `/v1/records/${o.prefix}-${i}`,
            body: JSON.stringify({ value: `https://example.com/${o.prefix}/${i}` }),
          };
        },
        ...(onAck !== undefined
          ? {
              onResponse: (status: number) => {
                if (status >= 200 && status < 300) onAck();
              },
            }
          : {}),
      },
    ],
  });
}
