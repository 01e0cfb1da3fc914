/**
 * A NATS proof worker (depth 4, as `startWorker` runs it) that kills itself with SIGKILL at a
 * chosen point, for the fault tests. Runs only when SSGKR_TEST_FAULT is set:
 * - `kill-on-flush`: as soon as its first batch is flushed (jobs pulled, nothing published);
 * - `kill-after-publish:N`: once the broker acknowledged its N-th result, before that job's ack.
 * Usage: node nats-fault-worker.js SERVERS HOST_ID
 */
import { NatsWorker } from "../../../src/serve/nats/worker.js";
import { stringifyJson } from "../../../src/serve/protocol/json.js";

const fault = process.env.SSGKR_TEST_FAULT;
if (fault !== undefined) {
  const [servers, hostId] = process.argv.slice(2);
  const afterPublish = /^kill-after-publish:([0-9]+)$/.exec(fault);
  const die = () => process.kill(process.pid, "SIGKILL");
  const worker = new NatsWorker(
    {
      endpoint: { servers: servers!.split(",") },
      depth: 4,
      workers: 1,
      controlSamples: 1,
      batchMax: 8,
      hostId: hostId!,
      runMs: 120_000,
      pullExpiresMs: 500,
    },
    {
      ...(fault === "kill-on-flush" ? { onFlush: die } : {}),
      ...(afterPublish
        ? {
            onPublished: (n: number) => {
              if (n >= Number(afterPublish[1])) die();
            },
          }
        : {}),
    },
  );
  const ready = await worker.start();
  process.stdout.write(stringifyJson({ status: "SERVER_READY", process_id: ready.processId, fault }) + "\n");
}
