import { expect } from "chai";
import { withTransaction } from "../../db/pool.ts";
import { labResultsProjection } from "../../projections/ingestion/labResults.ts";
import { countEveryMonth } from "../../projections/ingestion/resultSummaries.ts";
import { createGeneration } from "../../projections/runtime/generations.ts";
import { useTestDatabase } from "../support/database.ts";
import { monthRecountSql } from "../support/monthRecount.ts";

/*
 * A rebuild counts result_months from every item row at once (countEveryMonth), the patients from
 * each patient's month of items held as the bits of bigints, 64 item codes a word. Item rows are
 * written straight into a building generation, with more codes than one word holds, and the
 * counts compared with a recount by count(distinct).
 */
const RECOUNT = monthRecountSql({ items: "lab_results", wards: "patient_wards", targets: "std_targets" });
const COUNTED =
  "select tenant, std_code, month, ward, results, patients, value_sum, below_target, in_target, above_target from result_months";

/**
 * Item rows of tenants t1 and t2: patient p<n> has the item codes 0 to n * 13 (so the highest
 * codes, in the third word, are held by some patients only) on two days of January, two reports on
 * the second, and one of March; every third row has no value, and p12's reports no patient. Code 0
 * is HGB and 1 ALB, which have clinical targets.
 */
const ITEM_ROWS = `
  insert into lab_results (tenant, external_id, item_index, patient_ref, std_code, std_value, unit_status, reported_at, reported_on)
  select tenant, format('%s-%s-%s-%s', tenant, coalesce(patient, 'none'), day, report), code_index, patient,
         case code_index when 0 then 'HGB' when 1 then 'ALB' else format('C%s', lpad(code_index::text, 3, '0')) end,
         case when (code_index + report) % 3 = 2 then null else 80 + code_index * 0.7 + report * 31.3 + patient_number end,
         'converted', day + time '11:00', day
  from unnest(array['t1', 't2']) tenant,
       generate_series(0, 12) patient_number,
       lateral (select case when patient_number = 12 then null else format('p%s', patient_number) end as patient) p,
       unnest(array[date '2026-01-05', date '2026-01-20', date '2026-03-31']) day,
       generate_series(0, 1) report,
       generate_series(0, (patient_number * 13) % 160) code_index
  where report = 0 or day = date '2026-01-20'`;

describe("a rebuild's month summaries (countEveryMonth)", () => {
  const database = useTestDatabase();

  it("count each patient once in a month of an item and ward, whatever the number of item codes", async () => {
    await withTransaction(database.db, async (tx) => {
      const gen = await createGeneration(tx, labResultsProjection, "building");
      await tx.query(`set local search_path to ${gen.schemaName}, public`);
      await tx.query(ITEM_ROWS);
      // p0..p5 in ward A, p6..p9 in B, p10 known without a ward, p11 not known at all.
      await tx.query(
        `insert into patient_wards select tenant, format('p%s', n), case when n < 6 then 'A' when n < 10 then 'B' end
         from unnest(array['t1', 't2']) tenant, generate_series(0, 10) n`,
      );
      const { rows: codes } = await tx.query(
        "select count(distinct std_code)::int as n from lab_results where std_value is not null",
      );
      expect(codes[0].n).to.be.greaterThan(128);

      await countEveryMonth(tx);
      const sorted = async (sql: string) => (await tx.query(sql)).rows.map((row) => JSON.stringify(row)).sort();
      const [counted, recount] = [await sorted(COUNTED), await sorted(RECOUNT)];
      expect(counted).to.have.length(recount.length);
      expect(counted).to.deep.equal(recount);
      // The sample holds what the counts must tell apart: a patient with two reports in a month,
      // several patients in a group, and rows without a ward.
      const { rows } = await tx.query(
        `select max(patients) as most, max(results - patients) as repeated, count(*) filter (where ward is null) as unwarded from result_months`,
      );
      expect(rows[0].most).to.equal(6);
      expect(Number(rows[0].repeated)).to.be.greaterThan(0);
      expect(Number(rows[0].unwarded)).to.be.greaterThan(0);
    });
  });
});
