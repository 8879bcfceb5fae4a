import { randomUUID } from "node:crypto";
import { alertsDictionary, isRecentEnough } from "../commands/alerts/criticalResults.ts";
import { DELTA_CHECKS_ACTOR, deltaAlertsDecider, deltaLimitedItems, judgeResult, type DeltaFinding, type JudgedReport } from "../commands/alerts/deltaChecks.ts";
import { criticalResultsStreams, type RaisedAlert } from "../commands/alerts/events.ts";
import { externalIdOf, labReportStream, type LabReportEvent } from "../commands/ingestion/events.ts";
import type { WithPayload } from "../commands/kit/events.ts";
import { handleCommandInTransaction } from "../commands/kit/handleCommand.ts";
import type { StoredEvent } from "../db/eventStore.ts";
import type { Tx } from "../db/pool.ts";
import type { Checkpoint } from "../projections/runtime/eventFeed.ts";
import { lastOfEachStream, throughParams, upTo } from "../projections/runtime/loadAtOnce.ts";
import type { ApplyContext, Projection } from "../projections/runtime/projection.ts";
import { ALERT_WEBHOOK_QUEUE } from "./criticalResults.ts";

/*
 * Raises and closes DELTA alerts (contract F.3) from the laboratory reports received and claimed.
 * Its table is its state as of the event it reacts to: the delta-limited results it has met, each
 * in its patient's series of the item. A result is judged against its previous one there; the
 * result after it (its next one) is judged again, since the new result may now be that one's
 * previous (a late-arriving older result); and an updated report's old results' next ones too,
 * since their previous may have moved or gone. Decisions are events of each judged report's
 * critical-results stream, naming the event they react to, so a replay makes none again; while a
 * rebuild loads history the reactor decides nothing, but its table is built all the same.
 */

const dictionary = alertsDictionary();
const limited = deltaLimitedItems(dictionary);
const LIMITED_CODES = [...limited.keys()].map((code) => `'${code}'`).join(", ");

/** The delta-limited numeric items of a received report's payload `d`, with their index among its items. */
const itemsOf = (d: string) => `
  select (x.ord - 1)::integer as item_index, x.m->>'stdCode' as std_code, (x.m->>'stdValue')::double precision as value,
         ${d}->'report'->'items'->((x.ord - 1)::integer)->>'abnormalFlag' as flag
  from jsonb_array_elements(${d}->'items') with ordinality as x(m, ord)
  where x.m->>'stdCode' in (${LIMITED_CODES}) and jsonb_typeof(x.m->'stdValue') = 'number'`;

const patientOf = (d: string) => `case when (${d}->'match'->>'matched')::boolean then ${d}->'match'->>'patientRef' end`;

/** A received version as the reactor reads it: whose, when, and only its delta-limited numeric items. */
interface DeltaReceived {
  patientRef: string | null;
  collectedAt: string | null;
  reportedAt: string;
  items: Array<{ index: number; code: string; value: number; flag: string | null }>;
}

// What crosses the wire of a received report is a few fields and its delta-limited items: a push
// of a long panel without any costs the reactor one pass over the items inside the database.
const RECEIVED_PAYLOAD = `(
  select jsonb_build_object('patientRef', ${patientOf("d")}, 'collectedAt', d->'report'->>'collectedAt', 'reportedAt', d->'report'->>'reportedAt',
    'items', coalesce((select jsonb_agg(jsonb_build_object('index', i.item_index, 'code', i.std_code, 'value', i.value, 'flag', i.flag) order by i.item_index) from (${itemsOf("d")}) i), '[]'::jsonb))
  from (select data || '{}'::jsonb as d offset 0) payload)`;

type ReactsTo = WithPayload<Extract<LabReportEvent, { type: "LabReportReceived" | "LabReportClaimed" }>, "LabReportReceived", DeltaReceived>;

export const deltaChecksReactor: Projection<ReactsTo> = {
  name: "delta_checks",
  version: 1,
  handles: ["LabReportReceived", "LabReportClaimed"],
  payload: `case when type = 'LabReportReceived' then ${RECEIVED_PAYLOAD} else data end`,
  emits: ["DeltaAlertRaised", "DeltaAlertClosed"],
  tables: [],
  ddl: "reactors/deltaChecks.sql",
  loadThrough: loadResults,
  async apply(tx, event) {
    await this.applyBatch!(tx, [event]);
  },
  async applyBatch(tx, events, context = { loading: false }) {
    for (const event of events) await applyEvent(tx, event, context);
  },
};

async function applyEvent(tx: Tx, event: StoredEvent<ReactsTo>, context: ApplyContext): Promise<void> {
  const externalId = externalIdOf(event);
  const report = { tenant: event.tenant, externalId };
  // A first version without delta-limited items changes no series: nothing to write or judge.
  if (event.type === "LabReportReceived" && event.streamVersion === 1 && event.data.items.length === 0) return;
  // A first version has no results yet whose next ones it could change.
  const before = context.loading || (event.type === "LabReportReceived" && event.streamVersion === 1) ? [] : await nextResultsOf(tx, report);
  if (event.type === "LabReportReceived") await writeResults(tx, report, event.data);
  else await tx.query("update delta_results set patient_ref = $3 where tenant = $1 and external_id = $2", [event.tenant, externalId, event.data.patientRef]);
  if (context.loading) return;
  const after = await nextResultsOf(tx, report);
  const own = event.type === "LabReportReceived" ? { ...event.data, codes: null } : await ownReport(tx, report, event.data.patientRef);
  const judged = await judge(tx, event.tenant, [
    ...(own ? [{ externalId, codes: own.codes }] : []),
    ...groupCodes([...before, ...after].filter((next) => next.externalId !== externalId)),
  ]);
  for (const target of judged) {
    const isOwn = target.externalId === externalId;
    const facts = isOwn ? own! : target.report;
    if (!facts) continue;
    const mayRaise = isRecentEnough(facts.collectedAt, facts.reportedAt, event.recordedAt);
    await react(tx, event, { externalId: target.externalId, patientRef: facts.patientRef, collectedAt: facts.collectedAt, reportedAt: facts.reportedAt, codes: isOwn ? own!.codes : target.codes, findings: target.findings, mayRaise }, context);
  }
}

async function writeResults(tx: Tx, { tenant, externalId }: { tenant: string; externalId: string }, received: DeltaReceived): Promise<void> {
  await tx.query("delete from delta_results where tenant = $1 and external_id = $2", [tenant, externalId]);
  if (received.items.length === 0) return;
  await tx.query(
    `insert into delta_results
     select $1, $2, i.item_index, $3, i.std_code, coalesce($4::text::timestamp, $5::text::timestamp), i.value, i.flag, $4::text, $5::text
     from unnest($6::integer[], $7::text[], $8::double precision[], $9::text[]) as i(item_index, std_code, value, flag)`,
    [
      tenant,
      externalId,
      received.patientRef,
      received.collectedAt,
      received.reportedAt,
      received.items.map((item) => item.index),
      received.items.map((item) => item.code),
      received.items.map((item) => item.value),
      received.items.map((item) => item.flag),
    ],
  );
}

/** A claimed report's facts from its rows (what its last version held); null when it holds no delta-limited result. */
async function ownReport(tx: Tx, { tenant, externalId }: { tenant: string; externalId: string }, patientRef: string) {
  const { rows } = await tx.query<{ collected_at: string | null; reported_at: string }>("select collected_at, reported_at from delta_results where tenant = $1 and external_id = $2 limit 1", [tenant, externalId]);
  return rows[0] ? { patientRef, collectedAt: rows[0].collected_at, reportedAt: rows[0].reported_at, codes: null } : null;
}

/** Of each of the report's results in a patient's series, the next one of another report: the results whose previous it may be. */
async function nextResultsOf(tx: Tx, { tenant, externalId }: { tenant: string; externalId: string }): Promise<Array<{ externalId: string; code: string }>> {
  const { rows } = await tx.query<{ external_id: string; std_code: string }>(
    `select distinct n.external_id, n.std_code
     from delta_results r
     cross join lateral (
       select n.external_id, n.std_code from delta_results n
       where n.tenant = r.tenant and n.patient_ref = r.patient_ref and n.std_code = r.std_code
         and (n.at, n.external_id, n.item_index) > (r.at, r.external_id, r.item_index) and n.external_id <> r.external_id
       order by n.at, n.external_id, n.item_index limit 1
     ) n
     where r.tenant = $1 and r.external_id = $2 and r.patient_ref is not null`,
    [tenant, externalId],
  );
  return rows.map((row) => ({ externalId: row.external_id, code: row.std_code }));
}

function groupCodes(results: Array<{ externalId: string; code: string }>): Array<{ externalId: string; codes: string[] }> {
  const codes = new Map<string, Set<string>>();
  for (const { externalId, code } of results) codes.set(externalId, (codes.get(externalId) ?? new Set()).add(code));
  return [...codes].map(([externalId, of]) => ({ externalId, codes: [...of] }));
}

interface Judged {
  externalId: string;
  codes: string[] | null;
  findings: DeltaFinding[];
  /** The report's facts as its rows hold them; null when it holds no delta-limited result now. */
  report: { patientRef: string | null; collectedAt: string | null; reportedAt: string } | null;
}

interface JudgedRow {
  external_id: string;
  item_index: number;
  std_code: string;
  value: number;
  at: string;
  flag: string | null;
  patient_ref: string | null;
  collected_at: string | null;
  reported_at: string;
  previous: number | null;
  previous_at: string | null;
  previous_external_id: string | null;
}

/** Each report's results of the codes asked (all its codes for `codes` null), each against its previous one in the series as it now stands. */
async function judge(tx: Tx, tenant: string, targets: Array<{ externalId: string; codes: readonly string[] | null }>): Promise<Judged[]> {
  if (targets.length === 0) return [];
  const { rows } = await tx.query<JudgedRow>(
    `select t.external_id, t.item_index, t.std_code, t.value, to_char(t.at, 'YYYY-MM-DD"T"HH24:MI:SS') as at, t.flag, t.patient_ref, t.collected_at, t.reported_at,
            p.value as previous, to_char(p.at, 'YYYY-MM-DD"T"HH24:MI:SS') as previous_at, p.external_id as previous_external_id
     from delta_results t
     left join lateral (
       select q.value, q.at, q.external_id from delta_results q
       where q.tenant = t.tenant and q.patient_ref = t.patient_ref and q.std_code = t.std_code
         and (q.at, q.external_id, q.item_index) < (t.at, t.external_id, t.item_index)
       order by q.at desc, q.external_id desc, q.item_index desc limit 1
     ) p on true
     where t.tenant = $1 and t.external_id = any($2::text[])
     order by t.external_id, t.item_index`,
    [tenant, targets.map((target) => target.externalId)],
  );
  return targets.map(({ externalId, codes }) => {
    const own = rows.filter((row) => row.external_id === externalId && (codes === null || codes.includes(row.std_code)));
    const findings = new Map<string, DeltaFinding>();
    for (const row of own) {
      if (findings.has(row.std_code)) continue;
      const previous = row.previous === null ? null : { value: row.previous, at: row.previous_at!, externalId: row.previous_external_id! };
      const finding = judgeResult(limited.get(row.std_code)!, { externalId, itemIndex: row.item_index, value: row.value, at: row.at, flag: row.flag }, previous);
      if (finding) findings.set(row.std_code, finding);
    }
    const first = rows.find((row) => row.external_id === externalId);
    return {
      externalId,
      codes: codes === null ? null : [...codes],
      findings: [...findings.values()],
      report: first ? { patientRef: first.patient_ref, collectedAt: first.collected_at, reportedAt: first.reported_at } : null,
    };
  });
}

async function react(tx: Tx, cause: StoredEvent, report: JudgedReport, context: ApplyContext): Promise<void> {
  const { events } = await handleCommandInTransaction(
    tx,
    { tenant: cause.tenant, streamId: criticalResultsStreams.id(report.externalId) },
    deltaAlertsDecider(randomUUID),
    { cause: cause.position, report },
    { actor: DELTA_CHECKS_ACTOR, causationId: String(cause.position) },
  );
  for (const event of events) {
    if (event.type === "DeltaAlertRaised") await context.jobs?.send(tx, ALERT_WEBHOOK_QUEUE, { tenant: cause.tenant, alert: event.data satisfies RaisedAlert }, event.data.alertId);
  }
}

/**
 * A rebuild's load by set (Projection.loadThrough): the rows applying every event with `loading`
 * leaves. Each report's last received version's delta-limited items, for the patient it matched,
 * or the one a later claim gave it.
 */
async function loadResults(tx: Tx, through: Checkpoint): Promise<void> {
  await tx.query(
    `insert into delta_results
     select e.tenant, substr(e.stream_id, length($3) + 1), i.item_index, coalesce(c.patient_ref, r.patient_ref), i.std_code,
            coalesce(r.collected_at::timestamp, r.reported_at::timestamp), i.value, i.flag, r.collected_at, r.reported_at
     from ${lastOfEachStream(["LabReportReceived"])} e
     cross join lateral (
       select d, ${patientOf("d")} as patient_ref, d->'report'->>'collectedAt' as collected_at, d->'report'->>'reportedAt' as reported_at
       from (select e.data || '{}'::jsonb as d offset 0) payload offset 0
     ) r
     cross join lateral (${itemsOf("r.d")}) i
     left join lateral (
       select l.data->>'patientRef' as patient_ref from events l
       where l.tenant = e.tenant and l.stream_id = e.stream_id and l.type = 'LabReportClaimed' and l.stream_version > e.stream_version and ${upTo("l")}
       order by l.stream_version desc limit 1
     ) c on true`,
    [...throughParams(through), labReportStream.prefix],
  );
}
