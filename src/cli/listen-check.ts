/**
 * An early check of `--listen`: the address is bound once and released before a server spends
 * seconds starting its proving pool, so that a port in use is refused at once (`BAD_OPTION`)
 * rather than after the start-up. The server's own listen still reports a port taken meanwhile.
 */
import { createServer } from "node:net";
import { CliError } from "./errors.js";

/**
 * Resolves when `host:port` can be bound now (port 0 always can).
 * @throws CliError `BAD_OPTION` naming `--listen` and why (in use, not an address of this host, …).
 * @example
 *   await checkListenFree("127.0.0.1", 8080, "127.0.0.1:8080");
 */
export async function checkListenFree(host: string, port: number, given: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once("error", (e: NodeJS.ErrnoException) =>
      reject(
        new CliError(
          "BAD_OPTION",
          e.code === "EADDRINUSE"
            ? `--listen ${given}: the address is already in use (another process listens there; give another port, or 0 for a free one)`
            : e.code === "EADDRNOTAVAIL"
              ? `--listen ${given}: ${host} is not an address of this host`
              : `--listen ${given}: ${e.message}`,
        ),
      ),
    );
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}
