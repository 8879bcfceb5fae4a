import type { QualityMonthEvent } from "../../commands/quality/events.ts";
import type { Projection } from "../runtime/projection.ts";

/**
 * The figures each close froze (contract G.2), an indicator a row, for report SQL to read beside
 * the open months' (clinical.quality_months, db/clinicalViews.ts): the close's own numbers, never
 * counted again. A ward's rows are seen by the callers of that ward; the whole tenant's (ward
 * null) by callers without wards alone, as `GET /api/quality/months` answers a caller with wards
 * only for one of them (decision 0081).
 */
export const qualityClosedFiguresProjection: Projection<QualityMonthEvent> = {
  name: "quality_closed_figures",
  version: 1,
  handles: ["QualityMonthClosed"],
  tables: ["quality_closed_figures"],
  patientRows: { quality_closed_figures: { ward: "ward" } },
  ddl: "projections/quality/closedFigures.sql",
  async apply(tx, event) {
    const { month, ward, indicators } = event.data;
    await tx.query(
      `insert into quality_closed_figures
       select $1, ($2 || '-01')::date, $3, code, version, numerator, denominator, rate
       from jsonb_to_recordset($4::jsonb) as x(code text, version integer, numerator integer, denominator integer, rate double precision)
       on conflict do nothing`,
      [
        event.tenant,
        month,
        ward,
        JSON.stringify(
          indicators.map(({ code, version, numerator, denominator, rate }) => ({
            code,
            version,
            numerator,
            denominator,
            rate,
          })),
        ),
      ],
    );
  },
};
