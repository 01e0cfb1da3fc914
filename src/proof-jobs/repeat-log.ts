/**
 * A log for faults that repeat every round (a registry worker whose primary is down follows it
 * every `--follow-ms`): a line is written the first time, then while it keeps coming at most once
 * per `everyMs` with how often it came meanwhile, and `recovered()` writes one line when the
 * faults stop.
 */

/** A line logger that quiets repeats (see the file comment). */
export interface RepeatLog {
  (line: string): void;
  /** The faults stopped: forgets them, and writes `line` if any was logged. */
  recovered(line: string): void;
}

/**
 * @param log where lines go (undefined: nowhere).
 * @param everyMs the shortest time between two writes of one repeating line (default 60 s).
 * @param now the clock in ms (tests).
 * @example
 *   const say = repeatLog((l) => console.error(l));
 *   say("follow: MIRROR_UNREACHABLE: …"); // written
 *   say("follow: MIRROR_UNREACHABLE: …"); // counted, written again a minute later with the count
 *   say.recovered("follow: the primary answers again"); // written
 */
export function repeatLog(
  log: ((line: string) => void) | undefined,
  everyMs = 60_000,
  now: () => number = () => performance.now(),
): RepeatLog {
  const seen = new Map<string, { since: number; repeats: number }>();
  const write = ((line: string): void => {
    const s = seen.get(line);
    const t = now();
    if (s === undefined) {
      seen.set(line, { since: t, repeats: 0 });
      log?.(line);
      return;
    }
    s.repeats++;
    if (t - s.since >= everyMs) {
      log?.(`${line} (${s.repeats} more time${s.repeats === 1 ? "" : "s"} in ${Math.round((t - s.since) / 1000)} s)`);
      s.since = t;
      s.repeats = 0;
    }
  }) as RepeatLog;
  write.recovered = (line: string): void => {
    if (seen.size === 0) return;
    seen.clear();
    log?.(line);
  };
  return write;
}
