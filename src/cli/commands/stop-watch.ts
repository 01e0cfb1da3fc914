/**
 * When a long-running command (`registry http`, `registry mirror`) stops: SIGINT, SIGTERM, or the
 * end of the process that started it. `npx ssgkr … &` runs the command under npx's shell; a `kill`
 * of that job ends the shell and leaves the command to init, which would otherwise keep serving
 * and holding its port: a changed parent PID stops it as SIGTERM does.
 */

/** How often (ms) the parent PID is checked. */
export const PARENT_CHECK_MS = 1000;

/**
 * Calls `onStop` once with the reason ("SIGINT", "SIGTERM" or "the process that started it
 * ended"); returns the disposer that removes the signal handlers and the parent check.
 * @example const dispose = watchStop((why) => { dispose(); void shutdown(why); });
 */
export function watchStop(onStop: (why: string) => void): () => void {
  const parent = process.ppid;
  let done = false;
  const fire = (why: string): void => {
    if (done) return;
    done = true;
    onStop(why);
  };
  const onInt = (): void => fire("SIGINT");
  const onTerm = (): void => fire("SIGTERM");
  const check = setInterval(() => {
    if (process.ppid !== parent) fire("the process that started it ended");
  }, PARENT_CHECK_MS);
  check.unref();
  process.once("SIGINT", onInt);
  process.once("SIGTERM", onTerm);
  return () => {
    done = true;
    clearInterval(check);
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  };
}
