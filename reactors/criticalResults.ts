import { randomUUID } from "node:crypto";
import {
  alertsDictionary,
  CRITICAL_AT_RECEIPT,
  CRITICAL_RESULTS_ACTOR,
  criticalResultsDecider,
  findCritical,
  isRecentEnough,
  type CriticalFinding,
  type ReportItem,
} from "../commands/alerts/criticalResults.ts";
import { criticalResultsStreams, type RaisedAlert } from "../commands/alerts/events.ts";
import { externalIdOf, type LabReportEvent, type ReceivedReport } from "../commands/ingestion/events.ts";
import type { WithPayload } from "../commands/kit/events.ts";
import type { LabReport } from "../commands/ingestion/reportSchemas.ts";
import { handleCommandInTransaction } from "../commands/kit/handleCommand.ts";
import type { StoredEvent } from "../db/eventStore.ts";
import type { Tx } from "../db/pool.ts";
import type { ApplyContext, Projection } from "../projections/runtime/projection.ts";

/*
 * Raises and closes critical-result alerts from the laboratory reports received (contract D.7):
 * never in the push's own path, so a push is answered as fast with alerts as without. Its decisions
 * are events of each report's critical-results stream, each naming the event it reacted to
 * (causationId): a replay finds them made and makes none again. While a rebuild loads history it
 * does nothing, so a version change never raises alerts for old results.
 */

export const ALERT_WEBHOOK_QUEUE = "alert-webhook";

const dictionary = alertsDictionary();

/*
 * Nearly every report holds nothing critical. Such a first version needs no reaction, and the
 * database tells so with two jsonpath tests of the stored report, so that its payload is not
 * built, sent or parsed: the reactor runs beside every push, and this keeps it cheap.
 */
const FLAGGED = `$.report.items[*].abnormalFlag ? (@ like_regex "^\\s*(LL|HH)\\s*$" flag "i")`;
const BEYOND_LIMITS = `$.items[*] ? (${dictionary.items
  .flatMap(({ code, critical }) => {
    if (!critical) return [];
    const beyond = [
      critical.low !== null ? `@.stdValue < ${critical.low}` : null,
      critical.high !== null ? `@.stdValue > ${critical.high}` : null,
    ]
      .filter(Boolean)
      .join(" || ");
    return [`(@.stdCode == "${code}" && (${beyond}))`];
  })
  .join(" || ")})`;
const MAYBE_CRITICAL = `(d->'match'->>'matched')::boolean and (d @? '${FLAGGED}' or d @? '${BEYOND_LIMITS}')`;

/** A received report as the reactor needs it: whose it is, when, and its items. */
interface ReportForAlerts {
  patientRef: string | null;
  collectedAt: string | null;
  reportedAt: string;
  items: ReportItem[];
}

const RECEIVED_PAYLOAD = `
  select case when stream_version = 1 and not coalesce(${MAYBE_CRITICAL}, false) then null else d end
  from (select data || '{}'::jsonb as d offset 0) payload`;

/*
 * Ingestion answers the same question when it receives a report, with the reactor's own rules
 * (mayRaiseAlert), and records it in the event's metadata, which is stored inline: a first version
 * it says cannot raise an alert is passed over without its payload even being decompressed. The
 * test above cost some 60 µs an event more than a read without payloads on a quiet machine, 120
 * under a bulk import (PostgreSQL's own statement statistics, #35); events stored before the hint
 * existed still take it.
 */
const CANNOT_RAISE = `stream_version = 1 and metadata->'${CRITICAL_AT_RECEIPT}' = 'false'::jsonb`;

/** What the reactor reads: a received version's payload only where it may be critical (else null), and claims. */
type ReactsTo = WithPayload<
  Extract<LabReportEvent, { type: "LabReportReceived" | "LabReportClaimed" }>,
  "LabReportReceived",
  ReceivedReport | null
>;

export const criticalResultsReactor: Projection<ReactsTo> = {
  name: "critical_results",
  version: 1,
  handles: ["LabReportReceived", "LabReportClaimed"],
  // A received first version that cannot be critical crosses the wire without its payload.
  payload: `case when type <> 'LabReportReceived' then data when ${CANNOT_RAISE} then null else (${RECEIVED_PAYLOAD}) end`,
  emits: ["CriticalResultRaised", "CriticalResultClosed"],
  tables: [],
  // While a rebuild loads history the reactor does nothing (what it did is in the store): its load
  // passes over every event at once instead of reading, at two million reports, a minute of
  // payloads to ignore.
  loadThrough: async () => {},
  async apply(tx, event) {
    await this.applyBatch!(tx, [event]);
  },
  async applyBatch(tx, events, context = { loading: false }) {
    if (context.loading) return;
    for (const event of events) {
      const report = event.type === "LabReportReceived" ? receivedReport(event.data) : await claimedReport(tx, event);
      if (!report) continue;
      const recent = isRecentEnough(report.collectedAt, report.reportedAt, event.recordedAt);
      const findings = report.patientRef !== null && recent ? findCritical(report.items, dictionary) : [];
      // A first version with nothing critical has no alerts to close: nothing to read.
      if (findings.length === 0 && event.type === "LabReportReceived" && event.streamVersion === 1) continue;
      await react(tx, event, { ...report, findings }, context);
    }
  },
};

/** A received version as the reactor reads it, the patient its match found (or the one it was claimed for). */
function reportForAlerts(received: ReceivedReport, patientRef: string | null): ReportForAlerts {
  const report = received.report as unknown as Pick<LabReport, "collectedAt" | "reportedAt" | "items">;
  return {
    patientRef,
    collectedAt: report.collectedAt ?? null,
    // Required by the push's schema: a stored report has it.
    reportedAt: report.reportedAt!,
    items: report.items.map((sent, index) => ({ index, sent, mapped: received.items[index]! })),
  };
}

function receivedReport(received: ReceivedReport | null): ReportForAlerts | null {
  return received && reportForAlerts(received, received.match.matched ? received.match.patientRef : null);
}

/** A claimed report: its last received version, now the patient's. */
async function claimedReport(
  tx: Tx,
  claim: Extract<StoredEvent<ReactsTo>, { type: "LabReportClaimed" }>,
): Promise<ReportForAlerts | null> {
  const { rows } = await tx.query<{ data: ReceivedReport }>(
    `select data from events where tenant = $1 and stream_id = $2 and type = 'LabReportReceived' and position < $3 order by stream_version desc limit 1`,
    [claim.tenant, claim.streamId, claim.position],
  );
  return rows[0] ? reportForAlerts(rows[0].data, claim.data.patientRef) : null;
}

async function react(
  tx: Tx,
  cause: StoredEvent,
  report: Omit<ReportForAlerts, "items"> & { findings: CriticalFinding[] },
  context: ApplyContext,
): Promise<void> {
  const externalId = externalIdOf(cause);
  // A person acknowledging an alert of this report at this instant makes it decide again on the new state.
  const { events } = await handleCommandInTransaction(
    tx,
    { tenant: cause.tenant, streamId: criticalResultsStreams.id(externalId) },
    criticalResultsDecider(randomUUID),
    { cause: cause.position, report: { externalId, ...report } },
    { actor: CRITICAL_RESULTS_ACTOR, causationId: String(cause.position) },
  );
  for (const event of events) {
    if (event.type === "CriticalResultRaised")
      await context.jobs?.send(
        tx,
        ALERT_WEBHOOK_QUEUE,
        { tenant: cause.tenant, alert: event.data satisfies RaisedAlert },
        event.data.alertId,
      );
  }
}
