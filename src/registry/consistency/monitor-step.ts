/**
 * What a monitor (`ssgkr registry monitor`, docs/registry.md "Auditing a registry over time")
 * decides when a registry shows it a new signed checkpoint, given the last one it accepted (both
 * signatures already checked with the verifier key it trusts):
 *
 * | current against accepted | decision |
 * |---|---|
 * | same size, same root | `same`: nothing new |
 * | same size, another root | `CHECKPOINT_FORK`: two signed checkpoints of one size (two histories) |
 * | smaller size | `CHECKPOINT_ROLLBACK`: the registry shows an older state than one it signed |
 * | larger size | `newer`: check the chain of blocks between them (`verifyConsistency`) |
 *
 * A fork or a rollback is proven by the two signed notes alone: the monitor prints both.
 */
import { digestEquals } from "../../hash/digest.js";
import { parseRoot } from "../root.js";
import type { MonitorRejectCode } from "./verify-consistency.js";

/** A checkpoint as the monitor holds it: its size (batch) and root (64 hex characters or 8 elements). */
export interface MonitoredCheckpoint {
  readonly size: number;
  readonly root: string | ArrayLike<number>;
}

/** What to do with the current checkpoint (see the table above). */
export type MonitorStep =
  | { readonly step: "same" }
  | { readonly step: "newer" }
  | { readonly step: "reject"; readonly code: MonitorRejectCode; readonly reason: string };

/**
 * Compares the current signed checkpoint with the last accepted one.
 * @throws RegistryError `BAD_ROOT` for a root that is not one (callers pass verified checkpoints).
 * @example monitorStep({ size: 4, root: a }, { size: 4, root: b }) // { step: "reject", code: "CHECKPOINT_FORK", … } when a ≠ b
 */
export function monitorStep(accepted: MonitoredCheckpoint, current: MonitoredCheckpoint): MonitorStep {
  if (current.size < accepted.size)
    return {
      step: "reject",
      code: "CHECKPOINT_ROLLBACK",
      reason: `the registry signs size ${current.size}, older than size ${accepted.size} it signed before`,
    };
  if (current.size > accepted.size) return { step: "newer" };
  if (digestEquals(parseRoot(accepted.root), parseRoot(current.root))) return { step: "same" };
  return {
    step: "reject",
    code: "CHECKPOINT_FORK",
    reason: `two signed checkpoints of size ${current.size} with different roots: the registry shows two histories`,
  };
}
