import type { ReceivedReport } from "../commands/ingestion/pushReports.ts";
import type { StoredEvent } from "../db/eventStore.ts";
import type { Tx } from "../db/pool.ts";
import { inRuns, lastPerStream, patientColumns } from "./eventRuns.ts";
import type { Projection } from "./projection.ts";

/** Laboratory reports as last received, and one row per result item with its standard code and value. */
export const labReportsProjection: Projection = {
  name: "lab_reports",
  version: 2,
  handles: ["LabReportReceived", "LabReportClaimed", "LabReportDismissed"],
  tables: ["lab_reports", "lab_results"],
  // A report carries some twenty result rows: keep each batch's transaction short.
  batchSize: 200,
  async setup(tx: Tx) {
    await tx.query(`
      create table lab_reports (
        tenant text not null,
        external_id text not null,
        report_no text,
        patient_ref text,
        matched boolean not null,
        pending_reason text,
        id_card text,
        patient_name text,
        his_patient_id text,
        panel_name text,
        specimen text,
        status text,
        lab_name text,
        reporter text,
        reviewer text,
        collected_at timestamp,
        reported_at timestamp not null,
        report_day date not null,
        received_at timestamptz not null,
        client_name text not null,
        item_count integer not null,
        dismissed_at timestamptz,
        dismiss_reason text,
        primary key (tenant, external_id)
      );
      create index lab_reports_by_day on lab_reports (tenant, report_day, external_id collate "C");
      create index lab_reports_pending on lab_reports (tenant, id_card) where not matched and dismissed_at is null;
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
    await inRuns(events, "LabReportReceived", (run) => applyReceived(tx, lastPerStream(run)), (event) => applyDecision(tx, event, "lab_reports", "lab_results"));
  },
};

async function applyReceived(tx: Tx, events: StoredEvent[]): Promise<void> {
  const reports = events.map((event) => {
    const received = event.data as ReceivedReport;
    const r = received.report as ReceivedReport["report"] & Record<string, string | undefined>;
    return {
      tenant: event.tenant,
      external_id: received.externalId,
      report_no: r.reportNo ?? null,
      ...patientColumns(received),
      panel_name: r.panelName ?? null,
      specimen: r.specimen ?? null,
      status: r.status ?? null,
      lab_name: r.labName ?? null,
      reporter: r.reporter ?? null,
      reviewer: r.reviewer ?? null,
      collected_at: r.collectedAt ?? null,
      reported_at: r.reportedAt,
      report_day: r.reportedAt.slice(0, 10),
      received_at: event.recordedAt,
      client_name: received.client.name,
      item_count: received.items.length,
    };
  });
  await tx.query(
    `insert into lab_reports as t
     select tenant, external_id, report_no, patient_ref, matched, pending_reason, id_card, patient_name, his_patient_id,
            panel_name, specimen, status, lab_name, reporter, reviewer, collected_at, reported_at, report_day, received_at,
            client_name, item_count, null, null
     from json_to_recordset($1::json) as x(tenant text, external_id text, report_no text, patient_ref text, matched boolean,
       pending_reason text, id_card text, patient_name text, his_patient_id text, panel_name text, specimen text, status text,
       lab_name text, reporter text, reviewer text, collected_at timestamp, reported_at timestamp, report_day date,
       received_at timestamptz, client_name text, item_count integer)
     on conflict (tenant, external_id) do update set
       report_no = excluded.report_no, patient_ref = excluded.patient_ref, matched = excluded.matched,
       pending_reason = excluded.pending_reason, id_card = excluded.id_card, patient_name = excluded.patient_name,
       his_patient_id = excluded.his_patient_id, panel_name = excluded.panel_name, specimen = excluded.specimen,
       status = excluded.status, lab_name = excluded.lab_name, reporter = excluded.reporter, reviewer = excluded.reviewer,
       collected_at = excluded.collected_at, reported_at = excluded.reported_at, report_day = excluded.report_day,
       received_at = excluded.received_at, client_name = excluded.client_name, item_count = excluded.item_count,
       dismissed_at = null, dismiss_reason = null`,
    [JSON.stringify(reports)],
  );
  await tx.query(
    `delete from lab_results r using json_to_recordset($1::json) as k(tenant text, external_id text)
     where r.tenant = k.tenant and r.external_id = k.external_id`,
    [JSON.stringify(reports.map(({ tenant, external_id }) => ({ tenant, external_id })))],
  );
  const results = events.flatMap((event) => {
    const received = event.data as ReceivedReport;
    const sent = (received.report.items ?? []) as unknown as Array<Record<string, unknown>>;
    return received.items.map((mapped, index) => {
      const item = sent[index] ?? {};
      return {
        tenant: event.tenant,
        external_id: received.externalId,
        item_index: index,
        patient_ref: received.match.matched ? received.match.patientRef : null,
        item_code: item.itemCode ?? null,
        item_name: item.itemName ?? null,
        std_code: mapped.stdCode,
        std_name: mapped.stdName,
        category: mapped.category,
        value_num: mapped.valueNum,
        value_text: mapped.valueText,
        unit: item.unit ?? null,
        std_value: mapped.stdValue,
        std_unit: mapped.stdUnit,
        unit_status: mapped.unitStatus,
        ref_low: item.refLow ?? null,
        ref_high: item.refHigh ?? null,
        abnormal_flag: item.abnormalFlag ?? null,
        result_type: item.resultType ?? null,
        collected_at: received.report.collectedAt ?? null,
        reported_at: received.report.reportedAt,
        collected_on: (received.report.collectedAt as string | undefined)?.slice(0, 10) ?? null,
        reported_on: received.report.reportedAt.slice(0, 10),
      };
    });
  });
  if (results.length === 0) return;
  await tx.query(
    `insert into lab_results
     select * from json_to_recordset($1::json) as x(tenant text, external_id text, item_index integer, patient_ref text,
       item_code text, item_name text, std_code text, std_name text, category text, value_num double precision, value_text text,
       unit text, std_value double precision, std_unit text, unit_status text, ref_low double precision, ref_high double precision,
       abnormal_flag text, result_type text, collected_at timestamp, reported_at timestamp, collected_on date, reported_on date)`,
    [JSON.stringify(results)],
  );
}

/** A claim or a dismissal, for lab or exam reports (`itemsTable` null: the kind has no item rows). */
export async function applyDecision(tx: Tx, event: StoredEvent, reportsTable: string, itemsTable: string | null): Promise<void> {
  const externalId = event.streamId.slice(event.streamId.indexOf(":") + 1);
  const data = event.data as { patientRef?: string; reason?: string };
  if (event.type.endsWith("Claimed")) {
    await tx.query(`update ${reportsTable} set patient_ref = $3, matched = true, pending_reason = null where tenant = $1 and external_id = $2`, [
      event.tenant,
      externalId,
      data.patientRef,
    ]);
    if (itemsTable) await tx.query(`update ${itemsTable} set patient_ref = $3 where tenant = $1 and external_id = $2`, [event.tenant, externalId, data.patientRef]);
  } else if (event.type.endsWith("Dismissed")) {
    await tx.query(`update ${reportsTable} set dismissed_at = $3, dismiss_reason = $4 where tenant = $1 and external_id = $2`, [
      event.tenant,
      externalId,
      event.recordedAt,
      data.reason,
    ]);
  }
}
