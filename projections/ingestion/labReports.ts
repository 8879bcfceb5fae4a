import {
  externalIdOf,
  isClaimed,
  isDismissed,
  labReportStream,
  type LabReportEvent,
  type ReceivedType,
  type ReportStreamEvent,
} from "../../commands/ingestion/events.ts";
import type { WithPayload } from "../../commands/kit/events.ts";
import type { StoredEvent } from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";
import type { Checkpoint } from "../runtime/eventFeed.ts";
import { inRuns } from "../runtime/eventRuns.ts";
import { deferIndexes, LOAD_MEMORY_SQL } from "../runtime/deferredIndexes.ts";
import { lastOfEachStream, throughParams, upTo } from "../runtime/loadAtOnce.ts";
import { createReportDays, recordDecision, recordReceivedCtes } from "./reportDays.ts";
import type { Projection } from "../runtime/projection.ts";

/** Received reports are applied from the stored payload inside the database (RECEIVED): the feed brings the others' payloads only. */
export const RECEIVED_READ_IN_DATABASE = "case when type = 'LabReportReceived' then null else data end";

/**
 * Laboratory reports as last received, one row each: what reconciliation counts and the unmatched
 * queue shows. Kept apart from the item rows (labResults.ts), which cost about three times more to
 * write, so that a report is visible in reconciliation without waiting for them.
 */
export const labReportsProjection: Projection<WithPayload<LabReportEvent, "LabReportReceived", null>> = {
  name: "lab_reports",
  version: 8,
  handles: ["LabReportReceived", "LabReportClaimed", "LabReportDismissed"],
  tables: ["lab_reports", "lab_report_days"],
  patientRows: { lab_reports: { patientRef: "patient_ref" } },
  payload: RECEIVED_READ_IN_DATABASE,
  batchSize: 1000,
  async setup(tx: Tx) {
    await tx.query(
      reportTable(
        "lab_reports",
        "lab_report_days",
        `
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
        item_count integer not null,`,
      ),
    );
  },
  async apply(tx, event) {
    await this.applyBatch!(tx, [event]);
  },
  async applyBatch(tx, events) {
    await inRuns(
      events,
      "LabReportReceived",
      (run) => applyReceived(tx, run),
      (event) => applyDecision(tx, event, "lab_reports", "lab_report_days"),
    );
  },
  loadThrough: loadReports,
};

/*
 * A received report's event is large (the report and every mapped item, some 7 KB of JSON), and
 * its rows are a plain reshaping of it: the database builds them from the stored payload, which
 * so never travels to the service and back (the feed reads no payload for these events, see
 * `payload`). RECEIVED decompresses each payload once per event: a stored payload is a pointer
 * to compressed data, and every `->` on it would decompress it anew (seven times per event);
 * `|| '{}'` makes one decompressed copy, and "offset 0" keeps the planner from inlining that copy
 * into every column. Reading 260,000 reports' item rows took 10.9 s without it, 6.9 s with it.
 * The JSON paths follow ReceivedReport.
 */
export const RECEIVED = receivedReports("e.position = any($1::bigint[])");

/** RECEIVED over the events `where` selects: lab_results' load by set and the rebuild's floor benchmark read every received report at once. */
export function receivedReports(where: string): string {
  return `
  select e.tenant, e.stream_id, e.recorded_at, e.position, e.transaction_id, e.stream_version, p.*
  from events e
  cross join lateral (
    select d->>'externalId' as external_id, d->'report' as report, d->'items' as mapped, d->'report'->'items' as sent,
           (d->'match'->>'matched')::boolean as matched, d->'match' as match, d->'client'->>'name' as client_name,
           case when (d->'match'->>'matched')::boolean then d->'match'->>'patientRef' end as patient_ref,
           (d->'report'->>'collectedAt')::timestamp as collected_at, (d->'report'->>'reportedAt')::timestamp as reported_at
    from (select e.data || '{}'::jsonb as d offset 0) payload offset 0
  ) p
  where ${where}`;
}

/**
 * Of a row read by receivedReports, what lab_reports and lab_report_days keep: materialized whole
 * (some 8 kB a report), a rebuild's batches of 5,000 spilled to disk, 21 GB at two million reports.
 */
const REPORT_FIELDS = `tenant, stream_id, external_id, stream_version, recorded_at, transaction_id, position, matched,
                         patient_ref, collected_at, reported_at, client_name,
  report->>'reportNo' as report_no, case when not matched then match->>'pendingReason' end as pending_reason,
  coalesce(match->>'idCard', report->'patient'->>'idCard') as id_card, report->'patient'->>'name' as patient_name,
  report->'patient'->>'hisPatientId' as his_patient_id, report->>'panelName' as panel_name, report->>'specimen' as specimen,
  report->>'status' as status, report->>'labName' as lab_name, report->>'reporter' as reporter, report->>'reviewer' as reviewer,
  jsonb_array_length(mapped) as item_count`;

/** A lab_reports row, in its columns' order, from REPORT_FIELDS: as a version leaves it, neither claimed since nor dismissed. */
const REPORT_ROW = `tenant, external_id, report_no, patient_ref, matched, pending_reason, id_card, patient_name, his_patient_id,
  panel_name, specimen, status, lab_name, reporter, reviewer, collected_at,
  reported_at, reported_at::date, recorded_at, client_name, item_count, null, null, transaction_id, position`;

/** A version as lab_report_days records it (recordReceivedCtes' source), from REPORT_FIELDS. */
const VERSION_DAY = `tenant, external_id, stream_version as version, recorded_at as valid_from, reported_at::date as report_day, not matched as unmatched,
  transaction_id as ledger_tx, position as ledger_position`;

/** Every received version of the run goes into lab_report_days; each report's last into lab_reports (a later push overwrites wholly). */
async function applyReceived(tx: Tx, events: StoredEvent[]): Promise<void> {
  const positions = events.map((event) => event.position);
  await tx.query(
    `with received as materialized (select ${REPORT_FIELDS} from (${RECEIVED}) payload),
     versions as (select ${VERSION_DAY} from received),
     ${recordReceivedCtes("lab_report_days", "versions")}
     insert into lab_reports as t
     select ${REPORT_ROW}
     from (select distinct on (tenant, external_id) * from received order by tenant, external_id, position desc) last_of_each
     on conflict (tenant, external_id) do update set
       report_no = excluded.report_no, patient_ref = excluded.patient_ref, matched = excluded.matched,
       pending_reason = excluded.pending_reason, id_card = excluded.id_card, patient_name = excluded.patient_name,
       his_patient_id = excluded.his_patient_id, panel_name = excluded.panel_name, specimen = excluded.specimen,
       status = excluded.status, lab_name = excluded.lab_name, reporter = excluded.reporter, reviewer = excluded.reviewer,
       collected_at = excluded.collected_at, reported_at = excluded.reported_at, report_day = excluded.report_day,
       received_at = excluded.received_at, client_name = excluded.client_name, item_count = excluded.item_count,
       dismissed_at = null, dismiss_reason = null, ledger_tx = excluded.ledger_tx, ledger_position = excluded.ledger_position`,
    [positions],
  );
}

/**
 * True of a lab report's event (an `events` row or a row with its tenant, stream_id and
 * stream_version, aliased `alias`) when no later version of the report was received up to a
 * load's `through` (upTo): a later version replaces the report wholly.
 */
export const noLaterVersion = (alias: string) => `not exists (
  select 1 from events l
  where l.tenant = ${alias}.tenant and l.stream_id = ${alias}.stream_id and l.stream_version > ${alias}.stream_version
    and l.type = 'LabReportReceived' and ${upTo("l")})`;

/**
 * A rebuild's load by set (Projection.loadThrough), leaving what applying the events would, in a
 * few statements over the store read once in its order, the tables' indexes built after it:
 * - lab_report_days: a row per version and per decision, each valid until the report's next; a
 *   decision keeps the day of the version before it and awaits nobody (recordDecision);
 * - lab_reports: each report's last version, then the last claim and dismissal made after it,
 *   the newest of these three holding the ledger receipt (applyDecision).
 */
async function loadReports(tx: Tx, through: Checkpoint): Promise<void> {
  const params = [...throughParams(through), labReportStream.prefix];
  await tx.query(LOAD_MEMORY_SQL);
  await deferIndexes(tx, ["lab_reports", "lab_report_days"]);
  await tx.query(
    `with received as materialized (
       select ${REPORT_FIELDS} from (${receivedReports(`e.type = 'LabReportReceived' and ${upTo("e")}`)}) payload
     ),
     decided as (
       select tenant, substr(stream_id, length($3) + 1) as external_id, stream_version as version, recorded_at as valid_from,
              null::date as report_day, false as unmatched, transaction_id as ledger_tx, position as ledger_position
       from events d where type in ('LabReportClaimed', 'LabReportDismissed') and ${upTo("d")}
     ),
     -- A decision's day is its version's: each version opens a run of rows, counted by the days seen so far.
     runs as (
       select *, count(report_day) over (partition by tenant, external_id order by version) as run
       from (select ${VERSION_DAY} from received union all select * from decided) every_row
     ),
     days as (
       insert into lab_report_days (tenant, external_id, version, valid_from, valid_to, report_day, unmatched, ledger_tx, ledger_position)
       select tenant, external_id, version, valid_from, lead(valid_from) over (partition by tenant, external_id order by version),
              max(report_day) over (partition by tenant, external_id, run), unmatched, ledger_tx, ledger_position
       from runs
     )
     insert into lab_reports select ${REPORT_ROW} from received r where ${noLaterVersion("r")}`,
    params,
  );
  for (const [type, decision] of [
    ["LabReportClaimed", "patient_ref = d.data->>'patientRef', matched = true, pending_reason = null"],
    ["LabReportDismissed", "dismissed_at = d.recorded_at, dismiss_reason = d.data->>'reason'"],
  ] as const) {
    await tx.query(
      `update lab_reports r set ${decision},
         ledger_tx = case when d.position > r.ledger_position then d.transaction_id else r.ledger_tx end,
         ledger_position = greatest(d.position, r.ledger_position)
       from ${lastOfEachStream([type])} d
       where r.tenant = d.tenant and r.external_id = substr(d.stream_id, length($3) + 1) and ${noLaterVersion("d")}`,
      params,
    );
  }
}

/**
 * A lab or exam report table: who the report is about (patientColumns), the kind's own columns,
 * the decision and ledger receipt columns, its keys, and its table of days. The columns keep this
 * order: received reports are inserted by position.
 */
export function reportTable(reportsTable: string, daysTable: string, ownColumns: string): string {
  return `
      create table ${reportsTable} (
        tenant text not null,
        external_id text not null,
        report_no text,
        patient_ref text,
        matched boolean not null,
        pending_reason text,
        id_card text,
        patient_name text,
        his_patient_id text,
${ownColumns}
        dismissed_at timestamptz,
        dismiss_reason text,
        -- The report's newest event (version, claim or dismissal), for the ledger receipt in reconciliation.
        ledger_tx xid8 not null,
        ledger_position bigint not null,
        primary key (tenant, external_id)
      );
      create index ${reportsTable}_by_day on ${reportsTable} (tenant, report_day, external_id collate "C");
      create index ${reportsTable}_pending on ${reportsTable} (tenant, id_card) where not matched and dismissed_at is null;
      -- The unmatched queue in its order (queries/ingestion/unmatched.ts): a page reads its own rows, not the whole queue.
      create index ${reportsTable}_queue on ${reportsTable} (tenant, received_at, external_id) where not matched and dismissed_at is null;
      ${createReportDays(daysTable)}`;
}

/** A claim or a dismissal, applied to a table of lab or exam reports and to its table of days. */
export async function applyDecision(
  tx: Tx,
  event: StoredEvent<WithPayload<ReportStreamEvent, ReceivedType, unknown>>,
  reportsTable: string,
  daysTable: string,
): Promise<void> {
  const externalId = externalIdOf(event);
  await recordDecision(tx, daysTable, event, externalId);
  const ledger = "ledger_tx = $3::xid8, ledger_position = $4";
  const key = [event.tenant, externalId, event.transactionId, event.position];
  if (isClaimed(event)) {
    await tx.query(
      `update ${reportsTable} set patient_ref = $5, matched = true, pending_reason = null, ${ledger} where tenant = $1 and external_id = $2`,
      [...key, event.data.patientRef],
    );
  } else if (isDismissed(event)) {
    // The store's time to the microsecond, as recordDecision's.
    await tx.query(
      `update ${reportsTable} set dismissed_at = (select recorded_at from events where position = $4), ` +
        `dismiss_reason = $5, ${ledger} where tenant = $1 and external_id = $2`,
      [...key, event.data.reason],
    );
  }
}
