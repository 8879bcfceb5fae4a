import type { Tx } from "../../db/pool.ts";
import { derivationDay, derivationInputRow } from "../../db/seed/derivedItems.ts";

/** Whether the lab_results projection builds the index of derivation inputs (config DERIVATION_INDEX): off only to measure what it costs a push. */
export const derivationIndex = { enabled: true };

/**
 * The rows a formula may read (contract F.2), by item and day of collection: what
 * clinical.derived_results reads for a period of every patient, instead of all of each item's
 * rows. Some six of a report's twenty rows, keyed narrowly: the only work derived values add to
 * writing a report (npm run bench -- derived).
 */
export async function createDerivationIndex(tx: Tx): Promise<void> {
  if (!derivationIndex.enabled) return;
  await tx.query(
    "create index lab_results_by_derivation_day on lab_results (tenant, std_code, " +
      `(${derivationDay("lab_results")})) where ${derivationInputRow("lab_results")}`,
  );
}
