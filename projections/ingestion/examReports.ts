import { isReceived, type ExamReportEvent } from "../../commands/ingestion/events.ts";
import type { StoredEvent } from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";
import { inRuns, lastPerStream, patientColumns } from "../runtime/eventRuns.ts";
import { applyDecision, reportTable } from "./labReports.ts";
import type { Projection } from "../runtime/projection.ts";
import { recordReceivedCtes } from "./reportDays.ts";

/** Examination reports as last received; their few measured items stay with the report as JSON. */
export const examReportsProjection: Projection<ExamReportEvent> = {
  name: "exam_reports",
  version: 6,
  handles: ["ExamReportReceived", "ExamReportClaimed", "ExamReportDismissed"],
  tables: ["exam_reports", "exam_report_days"],
  patientRows: { exam_reports: { patientRef: "patient_ref" } },
  async setup(tx: Tx) {
    await tx.query(
      reportTable(
        "exam_reports",
        "exam_report_days",
        `
        exam_type text not null,
        exam_name text,
        examined_at timestamp,
        reported_at timestamp not null,
        report_day date not null,
        status text,
        department text,
        reporter text,
        reviewer text,
        findings text,
        conclusion text,
        items jsonb not null,
        received_at timestamptz not null,
        client_name text not null,`,
      ),
    );
  },
  async apply(tx, event) {
    await this.applyBatch!(tx, [event]);
  },
  async applyBatch(tx, events) {
    await inRuns(
      events,
      "ExamReportReceived",
      async (run) => {
        const received = run.filter(isReceived);
        await recordExamDays(tx, received);
        await applyReceived(tx, lastPerStream(received));
      },
      (event) => applyDecision(tx, event, "exam_reports", "exam_report_days"),
    );
  },
};

type ExamReceived = Extract<StoredEvent<ExamReportEvent>, { type: "ExamReportReceived" }>;

async function recordExamDays(tx: Tx, events: ExamReceived[]): Promise<void> {
  const versions = events.map((event) => {
    const received = event.data;
    return {
      tenant: event.tenant,
      external_id: received.externalId,
      version: event.streamVersion,
      valid_from: event.recordedAt,
      report_day: received.report.reportedAt.slice(0, 10),
      unmatched: !received.match.matched,
      ledger_tx: event.transactionId,
      ledger_position: event.position,
    };
  });
  await tx.query(
    `with versions as (
       select * from json_to_recordset($1::json) as v(tenant text, external_id text, version integer,
         valid_from timestamptz, report_day date, unmatched boolean,
                                                       ledger_tx xid8, ledger_position bigint)
     ),
     ${recordReceivedCtes("exam_report_days", "versions")}
     select 1`,
    [JSON.stringify(versions)],
  );
}

async function applyReceived(tx: Tx, events: ExamReceived[]): Promise<void> {
  const rows = events.map((event) => {
    const received = event.data;
    const r = received.report as typeof received.report & Record<string, string | undefined>;
    const sent = (received.report.items ?? []) as unknown as Array<Record<string, unknown>>;
    return {
      tenant: event.tenant,
      external_id: received.externalId,
      report_no: r.reportNo ?? null,
      ...patientColumns(received),
      exam_type: r.examType,
      exam_name: r.examName ?? null,
      examined_at: r.examinedAt ?? null,
      reported_at: r.reportedAt,
      report_day: r.reportedAt.slice(0, 10),
      status: r.status ?? null,
      department: r.department ?? null,
      reporter: r.reporter ?? null,
      reviewer: r.reviewer ?? null,
      findings: r.findings ?? null,
      conclusion: r.conclusion ?? null,
      items: received.items.map((mapped, index) => ({
        ...sent[index],
        stdCode: mapped.stdCode,
        stdValue: mapped.stdValue,
        stdUnit: mapped.stdUnit,
      })),
      received_at: event.recordedAt,
      client_name: received.client.name,
      ledger_tx: event.transactionId,
      ledger_position: event.position,
    };
  });
  await tx.query(
    `insert into exam_reports
     select tenant, external_id, report_no, patient_ref, matched, pending_reason, id_card, patient_name, his_patient_id,
            exam_type, exam_name, examined_at, reported_at, report_day, status, department, reporter, reviewer, findings,
            conclusion, items, received_at, client_name, null, null, ledger_tx, ledger_position
     from json_to_recordset($1::json) as x(tenant text, external_id text, report_no text, patient_ref text, matched boolean,
       pending_reason text, id_card text, patient_name text, his_patient_id text, exam_type text, exam_name text,
       examined_at timestamp, reported_at timestamp, report_day date, status text, department text, reporter text,
       reviewer text, findings text, conclusion text, items jsonb, received_at timestamptz, client_name text,
       ledger_tx xid8, ledger_position bigint)
     on conflict (tenant, external_id) do update set
       report_no = excluded.report_no, patient_ref = excluded.patient_ref, matched = excluded.matched,
       pending_reason = excluded.pending_reason, id_card = excluded.id_card, patient_name = excluded.patient_name,
       his_patient_id = excluded.his_patient_id, exam_type = excluded.exam_type, exam_name = excluded.exam_name,
       examined_at = excluded.examined_at, reported_at = excluded.reported_at, report_day = excluded.report_day,
       status = excluded.status, department = excluded.department, reporter = excluded.reporter,
       reviewer = excluded.reviewer, findings = excluded.findings, conclusion = excluded.conclusion, items = excluded.items,
       received_at = excluded.received_at, client_name = excluded.client_name, dismissed_at = null, dismiss_reason = null,
       ledger_tx = excluded.ledger_tx, ledger_position = excluded.ledger_position`,
    [JSON.stringify(rows)],
  );
}
