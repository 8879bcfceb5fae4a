import type { StoredEvent } from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";

/*
 * What reconciliation counted for each report over time (contract D.3), kept by the lab_reports
 * and exam_reports projections beside their rows: one row per received version, claim and
 * dismissal, valid from that event's recorded time until the next one's, with the day the report
 * then counted on and whether it then awaited a patient. Reconciliation as of a moment reads the
 * rows valid then; the times are the events' own, so a rebuild gives the same answers. Kept in
 * the statements that already read each received report's payload: a projection of its own read
 * every payload once more and cost a quarter of the ingest throughput.
 */

export function createReportDays(table: string): string {
  return `
    create table ${table} (
      tenant text not null,
      external_id text not null,
      version integer not null,
      valid_from timestamptz not null,
      valid_to timestamptz,
      report_day date not null,
      unmatched boolean not null,
      -- The event that made this version or decision: where it lies in the ledger.
      ledger_tx xid8 not null,
      ledger_position bigint not null,
      primary key (tenant, external_id, version)
    );
    create index ${table}_by_day on ${table} (tenant, report_day, valid_from);
    create index ${table}_current on ${table} (tenant, external_id) where valid_to is null`;
}

/**
 * A claim or a dismissal: from now on the report awaits nobody, on the day it had. From the time
 * the store recorded, to the microsecond as a received version's (event.recordedAt, a JavaScript
 * Date, keeps milliseconds: a moment between the two would have seen the decision before it was made).
 */
export async function recordDecision(tx: Tx, table: string, event: StoredEvent, externalId: string): Promise<void> {
  await tx.query(
    `with decided as (select recorded_at from events where position = $5),
     closed as (
       update ${table} set valid_to = (select recorded_at from decided) where tenant = $1 and external_id = $2 and valid_to is null returning report_day
     )
     insert into ${table} (tenant, external_id, version, valid_from, report_day, unmatched, ledger_tx, ledger_position)
     select $1, $2, $3, (select recorded_at from decided), report_day, false, $4::xid8, $5 from closed`,
    [event.tenant, externalId, event.streamVersion, event.transactionId, event.position],
  );
}

/**
 * CTEs that record received versions, for a statement that defines `source` with the columns
 * tenant, external_id, version, valid_from, report_day, unmatched, ledger_tx, ledger_position (a
 * report's versions in order):
 * each version is valid until the next, and closes the row the report had before this statement.
 */
export function recordReceivedCtes(table: string, source: string): string {
  return `days as materialized (
       select s.tenant, s.external_id, s.version, s.valid_from, s.report_day, s.unmatched, s.ledger_tx, s.ledger_position,
              lead(s.valid_from) over (partition by s.tenant, s.external_id order by s.version) as valid_to
       from ${source} s
     ), closed as (
       update ${table} t set valid_to = f.first_at
       from (select tenant, external_id, min(valid_from) as first_at from days group by tenant, external_id) f
       where t.tenant = f.tenant and t.external_id = f.external_id and t.valid_to is null
     ), recorded as (
       insert into ${table} (tenant, external_id, version, valid_from, valid_to, report_day, unmatched, ledger_tx, ledger_position)
       select tenant, external_id, version, valid_from, valid_to, report_day, unmatched, ledger_tx, ledger_position from days
     )`;
}
