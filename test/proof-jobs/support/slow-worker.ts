/**
 * A registry worker that holds every job it takes for a minute before proving it, and prints
 * `JOB <id> <kind>` when it takes one, so that a test can kill it mid-job. Runs only when
 * SSGKR_TEST_SLOW_WORKER is set. Usage: node slow-worker.js NATS FROM KEY DB HOST_ID
 */
import { installKernelBackend } from "../../../src/kernels/backend.js";
import { RegistryWorker } from "../../../src/proof-jobs/worker.js";
import { streamSettings } from "../../../src/serve/nats/setup.js";

if (process.env.SSGKR_TEST_SLOW_WORKER !== undefined) {
  installKernelBackend();
  const [nats, from, key, db, hostId] = process.argv.slice(2);
  const worker = await RegistryWorker.start(
    {
      endpoint: { servers: nats!.split(",") },
      streams: streamSettings(),
      from: from!,
      key: key!,
      db: db!,
      hostId: hostId!,
      followMs: 500,
      pullExpiresMs: 500,
    },
    {
      onJob: async (job) => {
        process.stdout.write(`JOB ${job.id} ${job.kind}\n`);
        await new Promise((r) => setTimeout(r, 60_000));
      },
    },
  );
  process.stdout.write("READY\n");
  await worker.done;
}
