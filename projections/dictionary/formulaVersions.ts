import type { DictionaryReleased } from "../../commands/dictionary/events.ts";
import type { StoredEvent } from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";

/**
 * A dictionary release's formulas (contract F.2) into formula_versions: each formula in a version
 * not seen before is in force from the release's moment; the version it replaces, and a formula
 * the release no longer holds, are kept with the moment they ended. A release that names a
 * version seen before leaves it as it was (versions only go forward).
 */
export async function keepFormulaVersions(
  tx: Tx,
  event: Pick<StoredEvent<DictionaryReleased>, "recordedAt" | "data">,
): Promise<void> {
  const released = event.data.items.flatMap((item) =>
    item.formula ? [{ code: item.code, unit: item.unit, formula: item.formula }] : [],
  );
  await tx.query(
    `update formula_versions f set superseded_at = $3
     where f.superseded_at is null and (f.std_code, f.version) not in (select * from unnest($1::text[], $2::integer[]))`,
    [released.map((item) => item.code), released.map((item) => item.formula.version), event.recordedAt],
  );
  for (const { code, unit, formula } of released) {
    await tx.query(
      `insert into formula_versions values ($1, $2, $3, $4, $5, $6, $7, $8, null) on conflict do nothing`,
      [
        code,
        formula.version,
        formula.name,
        formula.expression,
        formula.decimals,
        formula.sentAs,
        unit,
        event.recordedAt,
      ],
    );
  }
}
