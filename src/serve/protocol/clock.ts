/**
 * Wall-clock timestamps of the serving protocol: unix time in nanoseconds as a u64 (bigint),
 * the unit of every `*_unix_ns` field of §16.2–16.3.
 *
 * The wall clock is read once (`Date.now()`, millisecond resolution) and advanced with the
 * monotonic high-resolution clock, so timestamps taken by one process are ordered and have
 * nanosecond resolution, and do not jump when the system clock is adjusted.
 */
const anchorHr = process.hrtime.bigint();
const anchorUnixNs = BigInt(Date.now()) * 1_000_000n;

/** Current unix time in ns (u64). */
export function nowUnixNs(): bigint {
  return anchorUnixNs + (process.hrtime.bigint() - anchorHr);
}

/** Monotonic time in ns (for durations such as `server_queue_ns`). */
export function monotonicNs(): bigint {
  return process.hrtime.bigint();
}
