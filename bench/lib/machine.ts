/** The machine's capacity for two threads right now, as the benchmarks report beside their thread figures. */
import { Worker } from "node:worker_threads";

/**
 * What two threads get from this machine right now: a pure integer loop (no memory traffic) in
 * 1 and in 2 worker threads; returns (2 × work) / time(2 threads) over work / time(1 thread),
 * about 2 on two free cores and about 1 when the machine gives this process one core's worth.
 */
export async function machineSpeedup2(iterations = 3e8): Promise<number> {
  const code = `const { parentPort } = require("node:worker_threads"); parentPort.on("message", (n) => { let x = 0; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; parentPort.postMessage(x); });`;
  const time = async (threads: number): Promise<number> => {
    const ws = Array.from({ length: threads }, () => new Worker(code, { eval: true }));
    await Promise.all(
      ws.map(
        (w) =>
          new Promise((r) => {
            w.once("message", r);
            w.postMessage(1e6);
          }),
      ),
    );
    const t0 = performance.now();
    await Promise.all(
      ws.map(
        (w) =>
          new Promise((r) => {
            w.once("message", r);
            w.postMessage(iterations);
          }),
      ),
    );
    const dt = performance.now() - t0;
    await Promise.all(ws.map((w) => w.terminate()));
    return dt;
  };
  const one = await time(1);
  const two = await time(2);
  return (2 * one) / two;
}
