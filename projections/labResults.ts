import type { StoredEvent } from "../db/eventStore.ts";
import type { Tx } from "../db/pool.ts";
import { inRuns, lastPerStream } from "./eventRuns.ts";
import { externalIdOf, RECEIVED, RECEIVED_READ_IN_DATABASE } from "./labReports.ts";
import type { Projection } from "./projection.ts";

/**
 * One row per result item of a laboratory report, with its standard code and converted value:
 * what report SQL reads (clinical.lab_results). A dismissal changes nothing here.
 */
export const labResultsProjection: Projection = {
  name: "lab_results",
  version: 1,
  handles: ["LabReportReceived", "LabReportClaimed"],
  tables: ["lab_results"],
  payload: RECEIVED_READ_IN_DATABASE,
  // A report carries some twenty result rows, and from its first write to its commit a batch holds
  // back what every feed may read (reconciliation included). 50 reports (some 30 ms) left a bulk
  // import's item rows 30 s behind its end; 200 keep them 8 s behind, and the pushes' visible lag
  // p99 moved from 320 to 343 ms (npm run bench -- bulk ingest).
  batchSize: 200,
  async setup(tx: Tx) {
    await tx.query(`
      create table lab_results (
        tenant text not null,
        external_id text not null,
        item_index integer not null,
        patient_ref text,
        item_code text,
        item_name text,
        std_code text,
        std_name text,
        category text,
        value_num double precision,
        value_text text,
        unit text,
        std_value double precision,
        std_unit text,
        unit_status text not null,
        ref_low double precision,
        ref_high double precision,
        abnormal_flag text,
        result_type text,
        collected_at timestamp,
        reported_at timestamp not null,
        -- The days as their own columns: report SQL compares them with date parameters, and only
        -- date-to-date comparisons may pass the clinical views' tenant barrier to reach an index.
        collected_on date,
        reported_on date not null,
        primary key (tenant, external_id, item_index)
      );
      create index lab_results_by_item on lab_results (tenant, std_code, reported_on)`);
  },
  async apply(tx, event) {
    await this.applyBatch!(tx, [event]);
  },
  async applyBatch(tx, events) {
    await inRuns(events, "LabReportReceived", (run) => applyReceived(tx, lastPerStream(run)), (event) => applyClaim(tx, event));
  },
};

async function applyReceived(tx: Tx, events: StoredEvent[]): Promise<void> {
  // Only a report received before has item rows to replace (its first event is version 1).
  const updated = events.filter((event) => event.streamVersion > 1);
  if (updated.length > 0) {
    await tx.query(
      `delete from lab_results t using unnest($1::text[], $2::text[]) as k(tenant, external_id)
       where t.tenant = k.tenant and t.external_id = k.external_id`,
      [updated.map((event) => event.tenant), updated.map(externalIdOf)],
    );
  }
  // The mapped items and the sent items are parallel arrays, zipped by position; what every item
  // row of a report shares (patient, times) is worked out once per report, in RECEIVED.
  await tx.query(
    `insert into lab_results
     select tenant, external_id, (i.ord - 1)::integer, patient_ref,
            i.s->>'itemCode', i.s->>'itemName', i.m->>'stdCode', i.m->>'stdName', i.m->>'category',
            (i.m->>'valueNum')::double precision, i.m->>'valueText', i.s->>'unit',
            (i.m->>'stdValue')::double precision, i.m->>'stdUnit', i.m->>'unitStatus',
            (i.s->>'refLow')::double precision, (i.s->>'refHigh')::double precision, i.s->>'abnormalFlag', i.s->>'resultType',
            collected_at, reported_at, collected_at::date, reported_at::date
     from (${RECEIVED}) received
     cross join lateral rows from (jsonb_array_elements(mapped), jsonb_array_elements(sent)) with ordinality as i(m, s, ord)`,
    [events.map((event) => event.position)],
  );
}

async function applyClaim(tx: Tx, event: StoredEvent): Promise<void> {
  const { patientRef } = event.data as { patientRef: string };
  await tx.query("update lab_results set patient_ref = $3 where tenant = $1 and external_id = $2", [event.tenant, externalIdOf(event), patientRef]);
}
