/**
 * Opening a registry read-only (either mapping) for one command.
 */
import { openRegistry } from "../../registry/store/open-any.js";

/** Opens the registry at `db` read-only (either mapping), runs `fn` on it and closes it. */
export async function readOnlyRegistry(db: string, fn: (any: ReturnType<typeof openRegistry>) => void): Promise<void> {
  const any = openRegistry(db, { readOnly: true });
  try {
    fn(any);
  } finally {
    await any.store.close();
  }
}
