import type pg from "pg";

/**
 * Seeds the bench tenant straight into the live read models (what is measured is the data call or
 * the export, not ingestion): `patients.count` patients P1…Pn, named `patients.namePrefix` + n with
 * the id cards 110105194912310001…, spread over `patients.wards` in turn; then the lab results the
 * statement `labResultsInsert(labSchema)` writes; then analyzes both tables.
 */
export async function seedLiveReadModels(
  db: pg.Pool,
  patients: { count: number; namePrefix: string; wards: string[] },
  labResultsInsert: (labSchema: string) => string,
): Promise<void> {
  const { rows } = await db.query(
    "select schema_name from projection_generations where name in ('lab_results', 'patients') and state = 'live' order by name",
  );
  const [labSchema, patientSchema] = rows.map((row) => row.schema_name as string) as [string, string];
  await db.query(
    `insert into ${patientSchema}.patients
     select 'bench', 'P' || g, $1::text || g, '110105194912310' || lpad(g::text, 3, '0'), null,
       ($2::text[])[1 + g % cardinality($2::text[])], true, now(), now()
     from generate_series(1, $3::int) g`,
    [patients.namePrefix, patients.wards, patients.count],
  );
  await db.query(labResultsInsert(labSchema));
  await db.query(`analyze ${labSchema}.lab_results`);
  await db.query(`analyze ${patientSchema}.patients`);
}
