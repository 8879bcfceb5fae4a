import {
  externalIdOf,
  isReceived,
  type ReceivedReport,
  type ReceivedType,
  type ReportStreamEvent,
} from "../commands/ingestion/events.ts";
import type { WithPayload } from "../commands/kit/events.ts";
import { NAME_DIFFERS, NO_PATIENT } from "../commands/ingestion/patientMatching.ts";
import { reportKinds, type ReportKind } from "../commands/ingestion/reportKinds.ts";
import { PATIENT_EVENT_TYPES, patientStreams, sameName, type PatientEvent } from "../commands/patients/events.ts";
import { queueDecider } from "../commands/ingestion/queueDecisions.ts";
import { handleCommandInTransaction } from "../commands/kit/handleCommand.ts";
import type { StoredEvent } from "../db/eventStore.ts";
import type { Tx } from "../db/pool.ts";
import type { Checkpoint } from "../projections/runtime/eventFeed.ts";
import { lastOfEachStream, throughParams, upTo } from "../projections/runtime/loadAtOnce.ts";
import type { Projection } from "../projections/runtime/projection.ts";

/*
 * Registering a patient claims the reports already waiting for them (contract C.4). This runs as
 * a projection that reacts: it sees patients and pending reports in the one global event order, so
 * a report pushed a moment before its patient was registered is claimed as surely as one pushed a
 * day before; and its Claimed events commit with its checkpoint, so each claim happens once.
 */

const CLAIMABLE_REASONS = new Set([NO_PATIENT, NAME_DIFFERS]);
const receivedTypes = Object.values(reportKinds).map((kind) => kind.events.received);
const kindOfEvent = new Map(
  Object.values(reportKinds).flatMap((kind) => Object.values(kind.events).map((type) => [type, kind] as const)),
);

/** A received report's payload as the reactor reads it (`payload`): whom it is about, not its items. */
type ReceivedWhom = { match: ReceivedReport["match"]; report: { patient: ReceivedReport["report"]["patient"] } };
type ReactsTo = WithPayload<ReportStreamEvent, ReceivedType, ReceivedWhom> | PatientEvent;
type ReportEventRead = Exclude<StoredEvent<ReactsTo>, StoredEvent<PatientEvent>>;

export const autoClaimReactor: Projection<ReactsTo> = {
  name: "auto_claim",
  version: 2,
  handles: ["PatientRegistered", "PatientUpdated", ...kindOfEvent.keys()],
  // Of a received report only whom it is about is needed, not its items.
  payload: `case when type in (${receivedTypes.map((type) => `'${type}'`).join(", ")})
                 then jsonb_build_object('match', data->'match', 'report', jsonb_build_object('patient', data->'report'->'patient'))
                 else data end`,
  emits: Object.values(reportKinds).map((kind) => kind.events.claimed),
  tables: [],
  ddl: "reactors/autoClaim.sql",
  loadThrough: loadWaiting,
  async apply(tx, event) {
    await this.applyBatch!(tx, [event]);
  },
  /*
   * Reports come in runs between patient events. Of a run, nearly every event only takes a report
   * out of the pending list (it arrived matched, was claimed or dismissed) or puts it there: those
   * changes are gathered and written with two statements, the last change of each report winning,
   * and the known patients of all its id cards are looked up in one. A batch may hold hundreds of
   * such reports, and this transaction holds back every projection's reading horizon while it
   * runs (projections/runtime/eventFeed.ts): it must not take a round trip per report. A patient event
   * ends a run, and a claim writes what was gathered first, so effects keep the order of events.
   */
  async applyBatch(tx, events, { loading } = { loading: false }) {
    let run: ReportEventRead[] = [];
    for (const event of events) {
      if (event.type !== "PatientRegistered" && event.type !== "PatientUpdated") {
        run.push(event);
        continue;
      }
      await applyReportRun(tx, run, loading);
      run = [];
      await patientKnown(tx, event, loading);
    }
    await applyReportRun(tx, run, loading);
  },
};

/** The id card a received report waits for, when a patient registered with it may claim the report; else null. */
function claimableIdCard(match: ReceivedReport["match"]): string | null {
  return !match.matched && match.idCard && CLAIMABLE_REASONS.has(match.pendingReason) ? match.idCard : null;
}

interface PendingChange {
  tenant: string;
  kind: string;
  externalId: string;
  /** null: the report leaves the pending list. `version`: of the report's stream, the last event of it this reactor met. */
  waits: { idCard: string; name: string | null; version: number } | null;
}

async function applyReportRun(tx: Tx, events: ReportEventRead[], loading: boolean): Promise<void> {
  if (events.length === 0) return;
  // Each event looked at once: its kind, its externalId, and the id card it waits for (a claimable unmatched report).
  const reports = events.map((event) => {
    const kind = kindOfEvent.get(event.type)!;
    const idCard = isReceived(event) ? claimableIdCard(event.data.match) : null;
    return { event, kind, externalId: externalIdOf(event), idCard };
  });
  const known = await knownPatients(
    tx,
    reports.flatMap(({ event, idCard }) => (idCard ? [{ tenant: event.tenant, idCard }] : [])),
  );
  const changes = new Map<string, PendingChange>();
  for (const { event, kind, externalId, idCard } of reports) {
    const key = JSON.stringify([event.tenant, kind.name, externalId]);
    if (idCard === null) {
      changes.set(key, { tenant: event.tenant, kind: kind.name, externalId, waits: null });
      continue;
    }
    const name = isReceived(event) ? (event.data.report.patient.name ?? null) : null;
    const patient = known
      .get(JSON.stringify([event.tenant, idCard]))
      ?.find((row) => name === null || sameName(name, row.name));
    if (!patient) {
      changes.set(key, {
        tenant: event.tenant,
        kind: kind.name,
        externalId,
        waits: { idCard, name, version: event.streamVersion },
      });
      continue;
    }
    // Registered after the push matched nothing: claimed now.
    await writePendingChanges(tx, [...changes.values()]);
    changes.clear();
    await claim(tx, event, { kind, externalId, atVersion: event.streamVersion }, patient.patientRef, idCard, loading);
  }
  await writePendingChanges(tx, [...changes.values()]);
}

/** The registered patients of these id cards, by JSON [tenant, idCard]. */
async function knownPatients(
  tx: Tx,
  wanted: Array<{ tenant: string; idCard: string }>,
): Promise<Map<string, Array<{ patientRef: string; name: string }>>> {
  const known = new Map<string, Array<{ patientRef: string; name: string }>>();
  if (wanted.length === 0) return known;
  const { rows } = await tx.query(
    `select k.tenant, k.id_card, k.patient_ref, k.name
     from known_patients k join (select distinct * from unnest($1::text[], $2::text[]) as w(tenant, id_card)) w using (tenant, id_card)`,
    [wanted.map((w) => w.tenant), wanted.map((w) => w.idCard)],
  );
  for (const row of rows) {
    const key = JSON.stringify([row.tenant, row.id_card]);
    const patients = known.get(key) ?? [];
    patients.push({ patientRef: row.patient_ref, name: row.name });
    known.set(key, patients);
  }
  return known;
}

async function writePendingChanges(tx: Tx, changes: PendingChange[]): Promise<void> {
  const leaving = changes.filter((change) => change.waits === null);
  const waiting = changes.flatMap((change) => (change.waits ? [{ ...change, ...change.waits }] : []));
  if (leaving.length > 0) {
    await tx.query(
      `delete from pending_reports p using unnest($1::text[], $2::text[], $3::text[]) as x(tenant, kind, external_id)
       where p.tenant = x.tenant and p.kind = x.kind and p.external_id = x.external_id`,
      [leaving.map((l) => l.tenant), leaving.map((l) => l.kind), leaving.map((l) => l.externalId)],
    );
  }
  if (waiting.length > 0) {
    await tx.query(
      `insert into pending_reports select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::integer[])
       on conflict (tenant, kind, external_id) do update set id_card = excluded.id_card, name = excluded.name, stream_version = excluded.stream_version`,
      [
        waiting.map((w) => w.tenant),
        waiting.map((w) => w.kind),
        waiting.map((w) => w.externalId),
        waiting.map((w) => w.idCard),
        waiting.map((w) => w.name),
        waiting.map((w) => w.version),
      ],
    );
  }
}

async function patientKnown(tx: Tx, event: StoredEvent<PatientEvent>, loading: boolean): Promise<void> {
  const patientRef = patientStreams.key(event.streamId);
  const patient = event.data;
  await tx.query(
    `insert into known_patients values ($1, $2, $3, $4)
     on conflict (tenant, patient_ref) do update set id_card = excluded.id_card, name = excluded.name`,
    [event.tenant, patientRef, patient.idCard, patient.name],
  );
  const { rows } = await tx.query(
    "select kind, external_id, name, stream_version from pending_reports where tenant = $1 and id_card = $2",
    [event.tenant, patient.idCard],
  );
  for (const row of rows) {
    if (row.name !== null && !sameName(row.name, patient.name)) continue;
    const report = {
      kind: reportKinds[row.kind as "lab" | "exam"],
      externalId: row.external_id as string,
      atVersion: row.stream_version as number,
    };
    await claim(tx, event, report, patientRef, patient.idCard, loading);
  }
}

/**
 * Claims a report as things stood at the event that makes the claim: at the stream's version this
 * reactor last met (`atVersion`). A stream that has moved on since (a later push, perhaps about
 * someone else; a person's claim) is left alone: the reactor meets those events in their turn. A
 * rebuild (`loading`) claims nothing: what the reactor did is in the store already, and a replay
 * that decided on today's streams would claim a report that has since changed hands.
 */
async function claim(
  tx: Tx,
  cause: StoredEvent,
  { kind, externalId, atVersion }: { kind: ReportKind; externalId: string; atVersion: number },
  patientRef: string,
  idCard: string,
  loading: boolean,
): Promise<void> {
  if (!loading) {
    await handleCommandInTransaction(
      tx,
      { tenant: cause.tenant, streamId: kind.stream.id(externalId) },
      queueDecider(kind),
      { type: "claim", patientRef, idCard, by: "auto-claim", auto: true },
      { actor: "auto-claim", causationId: String(cause.position) },
      { atVersion },
    );
  }
  await tx.query("delete from pending_reports where tenant = $1 and kind = $2 and external_id = $3", [
    cause.tenant,
    kind.name,
    externalId,
  ]);
}

/** Report events as the store names them, of every kind. */
const reportTypes = [...kindOfEvent.keys()];

/**
 * A rebuild's load by set (Projection.loadThrough): the tables applying every event with `loading`
 * leaves, without carrying every received report's payload to the service (at two million reports
 * the batches took 110 s of the rebuild, beside the item rows' load).
 * - known_patients: each patient's last registration or update.
 * - pending_reports: a report waits when its last event is a version received waiting for a
 *   claimable id card and no patient took it: none known then with that id card and a name that
 *   agrees (applyReportRun would have claimed it on arrival), none registered or updated since
 *   with them (patientKnown would have). The database finds the reports whose last event is a
 *   version received without a match, reading their payloads once in the store's order; which of
 *   them a patient took is decided here, by the same rules (claimableIdCard, sameName), from the
 *   events of the few patients who ever held those id cards.
 */
async function loadWaiting(tx: Tx, through: Checkpoint): Promise<void> {
  const params = throughParams(through);
  await tx.query(
    `insert into known_patients
     select tenant, substr(stream_id, length($3) + 1), data->>'idCard', data->>'name' from ${lastOfEachStream(PATIENT_EVENT_TYPES)} p`,
    [...params, patientStreams.prefix],
  );
  const { rows: unmatched } = await tx.query(
    `select e.tenant, e.type, e.stream_id, e.stream_version, e.transaction_id::text as transaction_id, e.position, w.match, w.name
     from events e
     cross join lateral (
       select d->'match' as match, d->'report'->'patient'->>'name' as name
       from (select e.data || '{}'::jsonb as d offset 0) payload offset 0
     ) w
     where e.type = any($3::text[]) and ${upTo("e")}
       and not exists (select 1 from events l
                       where l.tenant = e.tenant and l.stream_id = e.stream_id and l.stream_version > e.stream_version
                         and l.type = any($4::text[]) and ${upTo("l")})
       and not coalesce((w.match->>'matched')::boolean, false)`,
    [...params, receivedTypes, reportTypes],
  );
  const waiting = (unmatched as UnmatchedRow[]).flatMap((row) => {
    const idCard = claimableIdCard(row.match);
    return idCard ? [{ ...row, idCard, at: feedOrder(row) }] : [];
  });
  if (waiting.length === 0) return;
  // Every event of each patient who ever held one of those id cards, in the feed's order.
  const { rows: patientEvents } = await tx.query(
    `select p.tenant, p.stream_id, p.data->>'idCard' as id_card, p.data->>'name' as name, p.transaction_id::text as transaction_id, p.position
     from events p
     where p.type in ('PatientRegistered', 'PatientUpdated') and ${upTo("p")}
       and (p.tenant, p.stream_id) in (
         select h.tenant, h.stream_id from events h
         where h.type in ('PatientRegistered', 'PatientUpdated') and ${upTo("h")}
           and (h.tenant, h.data->>'idCard') in (select * from unnest($3::text[], $4::text[])))
     order by p.transaction_id, p.position`,
    [...params, waiting.map((row) => row.tenant), waiting.map((row) => row.idCard)],
  );
  const patients = (patientEvents as PatientEventRow[]).map((row) => ({ ...row, at: feedOrder(row) }));
  const agrees = (name: string | null, idCard: string, patient: { id_card: string; name: string }) =>
    patient.id_card === idCard && (name === null || sameName(name, patient.name));
  const changes: PendingChange[] = [];
  for (const report of waiting) {
    const ofTenant = patients.filter((patient) => patient.tenant === report.tenant);
    const lastBefore = new Map<string, PatientEventRow>();
    for (const patient of ofTenant) if (patient.at < report.at) lastBefore.set(patient.stream_id, patient);
    const knownOnArrival = [...lastBefore.values()].some((patient) => agrees(report.name, report.idCard, patient));
    const registeredSince = ofTenant.some(
      (patient) => patient.at > report.at && agrees(report.name, report.idCard, patient),
    );
    if (knownOnArrival || registeredSince) continue;
    const kind = kindOfEvent.get(report.type)!;
    changes.push({
      tenant: report.tenant,
      kind: kind.name,
      externalId: kind.stream.key(report.stream_id),
      waits: { idCard: report.idCard, name: report.name, version: report.stream_version },
    });
  }
  await writePendingChanges(tx, changes);
}

interface UnmatchedRow {
  tenant: string;
  type: ReceivedType;
  stream_id: string;
  stream_version: number;
  transaction_id: string;
  position: number;
  match: ReceivedReport["match"];
  name: string | null;
}

interface PatientEventRow {
  tenant: string;
  stream_id: string;
  id_card: string;
  name: string;
  transaction_id: string;
  position: number;
}

/** An event's place in the feed's order (transaction, then position), as one comparable number. */
function feedOrder(row: { transaction_id: string; position: number }): bigint {
  return (BigInt(row.transaction_id) << 64n) | BigInt(row.position);
}
