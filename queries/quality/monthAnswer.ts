import type { Db } from "../../db/pool.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { closedAnswer, closeOf } from "./closedMonths.ts";
import { wardKnown } from "./monthFacts.ts";
import { liveMonth, type MonthAnswer } from "./months.ts";

/**
 * A month of the tenant or of a ward as its answers give it (the API's, the FHIR MeasureReports):
 * a closed month's frozen figures, else the figures counted now; undefined for a ward that was
 * neither closed in the month nor has a patient of the tenant.
 */
export async function monthAnswer(
  db: Db,
  tenant: string,
  month: string,
  ward: string | null,
): Promise<MonthAnswer | undefined> {
  const closed = await closeOf(db, tenant, month, ward);
  if (closed) return closedAnswer(closed);
  return readAsTenant(db, tenant, async (reader) => {
    if (ward !== null && !(await wardKnown(reader, ward))) return undefined;
    const live = await liveMonth(reader, { month, ward });
    return { month, ward, state: "open", indicators: live.figures };
  });
}
