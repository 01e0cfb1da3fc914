/** A worker for the pool-core tests: echoes, exits, throws or hangs on command. */
import { parentPort, threadId } from "node:worker_threads";

parentPort?.on("message", (msg: { type: "echo" | "exit" | "throw"; value?: number }) => {
  if (msg.type === "echo") parentPort!.postMessage({ value: msg.value, threadId });
  else if (msg.type === "exit") process.exit(msg.value ?? 7);
  else throw new RangeError(`asked to throw ${msg.value}`);
});
