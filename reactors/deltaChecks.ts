import { randomUUID } from "node:crypto";
import { alertsDictionary, isCriticalResult, isRecentEnough } from "../commands/alerts/criticalResults.ts";
import {
  DELTA_CHECKS_ACTOR,
  deltaAlertsDecider,
  deltaLimitedItems,
  judgeResult,
  type DeltaFinding,
  type JudgedReport,
} from "../commands/alerts/deltaChecks.ts";
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
import { LARGEST_READ_NUMBER } from "../db/numberBounds.ts";

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

/**
 * Whether the sent item `s` (its mapped twin `m`) lies inside its laboratory's reference range (decision
 * 0073): the value as sent against the range as sent, both in the sent unit, where the laboratory
 * gave a bound; else by its flag, N inside and L, H, LL or HH outside; else null, not known.
 */
const inReferenceRange = (s: string, m: string) => `case
    when jsonb_typeof(${s}->'refLow') = 'number' or jsonb_typeof(${s}->'refHigh') = 'number' then
      case when jsonb_typeof(${m}->'valueNum') = 'number' then
        (jsonb_typeof(${s}->'refLow') is distinct from 'number' or (${m}->>'valueNum')::double precision >= (${s}->>'refLow')::double precision)
        and (jsonb_typeof(${s}->'refHigh') is distinct from 'number' or (${m}->>'valueNum')::double precision <= (${s}->>'refHigh')::double precision)
      end
    when upper(btrim(${s}->>'abnormalFlag')) = 'N' then true
    when upper(btrim(${s}->>'abnormalFlag')) in ('L', 'H', 'LL', 'HH') then false
  end`;

/** The delta-limited numeric items of a received report's payload `d`, with their index among its items. */
const itemsOf = (d: string) => `
  select (x.ord - 1)::integer as item_index, x.m->>'stdCode' as std_code, (x.m->>'stdValue')::double precision as value,
         ${d}->'report'->'items'->((x.ord - 1)::integer)->>'abnormalFlag' as flag,
         ${inReferenceRange(`(${d}->'report'->'items'->((x.ord - 1)::integer))`, "x.m")} as in_range
  from jsonb_array_elements(${d}->'items') with ordinality as x(m, ord)
  where x.m->>'stdCode' in (${LIMITED_CODES}) and jsonb_typeof(x.m->'stdValue') = 'number'
    and abs((x.m->>'stdValue')::double precision) <= ${LARGEST_READ_NUMBER}`;

const patientOf = (d: string) => `case when (${d}->'match'->>'matched')::boolean then ${d}->'match'->>'patientRef' end`;

/** A received version as the reactor reads it: whose, when, and only its delta-limited numeric items. */
interface DeltaReceived {
  patientRef: string | null;
  collectedAt: string | null;
  reportedAt: string;
  items: Array<{ index: number; code: string; value: number; flag: string | null; inRange: boolean | null }>;
}

// What crosses the wire of a received report is a few fields and its delta-limited items: a push
// of a long panel without any costs the reactor one pass over the items inside the database.
const RECEIVED_PAYLOAD = `(
  select jsonb_build_object('patientRef', ${patientOf("d")}, 'collectedAt', d->'report'->>'collectedAt', 'reportedAt', d->'report'->>'reportedAt',
    'items', coalesce((select jsonb_agg(jsonb_build_object('index', i.item_index, 'code', i.std_code, 'value', i.value,
      'flag', i.flag, 'inRange', i.in_range) order by i.item_index) from (${itemsOf("d")}) i), '[]'::jsonb))
  from (select data || '{}'::jsonb as d offset 0) payload)`;

type ReactsTo = WithPayload<
  Extract<LabReportEvent, { type: "LabReportReceived" | "LabReportClaimed" }>,
  "LabReportReceived",
  DeltaReceived
>;

export const deltaChecksReactor: Projection<ReactsTo> = {
  name: "delta_checks",
  // 2: delta_results.in_range, for the return to normal (decision 0073).
  version: 2,
  handles: ["LabReportReceived", "LabReportClaimed"],
  payload: `case when type = 'LabReportReceived' then ${RECEIVED_PAYLOAD} else data end`,
  emits: ["DeltaAlertRaised", "DeltaAlertClosed"],
  tables: [],
  ddl: "reactors/deltaChecks.sql",
  loadThrough: loadResults,
  async apply(tx, event) {
    await this.applyBatch!(tx, [event]);
  },
  /*
   * Nearly every event is a report's first version: a run of them is written with one statement
   * and judged with another, each report as of its own event (the rows of the run's later reports
   * left out), so that a batch does not take a round trip per report while it holds back every
   * reader's horizon. Updates and claims, which may move results other reports compare with, are
   * applied one by one in their turn.
   */
  async applyBatch(tx, events, context = { loading: false }) {
    let run: Received[] = [];
    for (const event of events) {
      if (isFirstVersion(event)) {
        run.push(event);
        continue;
      }
      await applyFirstVersions(tx, run, context);
      run = [];
      await applyEvent(tx, event, context);
    }
    await applyFirstVersions(tx, run, context);
  },
};

type Received = Extract<StoredEvent<ReactsTo>, { type: "LabReportReceived" }>;
const isFirstVersion = (event: StoredEvent<ReactsTo>): event is Received =>
  event.type === "LabReportReceived" && event.streamVersion === 1;

async function applyFirstVersions(tx: Tx, events: Received[], context: ApplyContext): Promise<void> {
  // A first version without delta-limited items changes no series: nothing to write or judge.
  const run = events.filter((event) => event.data.items.length > 0);
  if (run.length === 0) return;
  // The run's rows tell its reports apart by position, which follows the feed's order except for
  // transactions that committed side by side: those are applied one by one.
  if (run.some((event, i) => i > 0 && event.position <= run[i - 1]!.position)) {
    for (const event of run) await applyEvent(tx, event, context);
    return;
  }
  await insertResults(tx, run);
  if (context.loading) return;
  const rows = await judgeFirstVersions(tx, run);
  for (const [i, event] of run.entries()) {
    const externalId = externalIdOf(event);
    const own = rows.filter((row) => row.tenant === event.tenant && row.external_id === externalId);
    const findings = findingsOf(own);
    // A first version has no delta alert to close: only a finding it may raise needs its stream read.
    if (findings.length > 0 && isRecentEnough(event.data.collectedAt, event.data.reportedAt, event.recordedAt)) {
      await react(
        tx,
        event,
        {
          externalId,
          patientRef: event.data.patientRef,
          collectedAt: event.data.collectedAt,
          reportedAt: event.data.reportedAt,
          codes: null,
          findings,
          mayRaise: true,
        },
        context,
      );
    }
    const next = own.flatMap((row) =>
      row.next_external_id ? [{ externalId: row.next_external_id, code: row.std_code }] : [],
    );
    if (next.length > 0)
      await rejudge(
        tx,
        event,
        groupCodes(next),
        run.slice(i + 1).map((later) => later.position),
        context,
      );
  }
}

async function applyEvent(tx: Tx, event: StoredEvent<ReactsTo>, context: ApplyContext): Promise<void> {
  const externalId = externalIdOf(event);
  const report = { tenant: event.tenant, externalId };
  if (event.type === "LabReportReceived" && event.streamVersion === 1 && event.data.items.length === 0) return;
  // A first version has no results yet whose next ones it could change.
  const before = context.loading || isFirstVersion(event) ? [] : await nextResultsOf(tx, report);
  if (event.type === "LabReportReceived") {
    await tx.query("delete from delta_results where tenant = $1 and external_id = $2", [event.tenant, externalId]);
    await insertResults(tx, [event]);
  } else {
    await tx.query("update delta_results set patient_ref = $3 where tenant = $1 and external_id = $2", [
      event.tenant,
      externalId,
      event.data.patientRef,
    ]);
  }
  if (context.loading) return;
  const after = await nextResultsOf(tx, report);
  const own = event.type === "LabReportReceived" ? event.data : await ownReport(tx, report, event.data.patientRef);
  if (own) {
    const [judged] = await judge(tx, event.tenant, [{ externalId, codes: null }]);
    const mayRaise = isRecentEnough(own.collectedAt, own.reportedAt, event.recordedAt);
    await react(
      tx,
      event,
      {
        externalId,
        patientRef: own.patientRef,
        collectedAt: own.collectedAt,
        reportedAt: own.reportedAt,
        codes: null,
        findings: judged!.findings,
        mayRaise,
      },
      context,
    );
  }
  await rejudge(
    tx,
    event,
    groupCodes([...before, ...after].filter((next) => next.externalId !== externalId)),
    [],
    context,
  );
}

/** Judges again the results of other reports whose previous one `cause` may have changed, as of `cause` (the rows of events `hidden` are not there yet). */
async function rejudge(
  tx: Tx,
  cause: StoredEvent,
  targets: Array<{ externalId: string; codes: string[] }>,
  hidden: number[],
  context: ApplyContext,
): Promise<void> {
  for (const target of await judge(tx, cause.tenant, targets, hidden)) {
    if (!target.report) continue;
    const { patientRef, collectedAt, reportedAt } = target.report;
    // Judged on the result alerted: a later result too old at receipt raises nothing.
    const mayRaise = isRecentEnough(collectedAt, reportedAt, cause.recordedAt);
    await react(
      tx,
      cause,
      {
        externalId: target.externalId,
        patientRef,
        collectedAt,
        reportedAt,
        codes: target.codes,
        findings: target.findings,
        mayRaise,
      },
      context,
    );
  }
}

/** The delta-limited results of received versions, each row marked with its event's position. */
async function insertResults(tx: Tx, events: Received[]): Promise<void> {
  const rows = events.flatMap((event) =>
    event.data.items.map((item) => ({ event, externalId: externalIdOf(event), item })),
  );
  if (rows.length === 0) return;
  await tx.query(
    `insert into delta_results
     select i.tenant, i.external_id, i.item_index, i.patient_ref, i.std_code,
       coalesce(i.collected_at::timestamp, i.reported_at::timestamp), i.value, i.flag, i.collected_at, i.reported_at,
       i.seen, i.in_range
     from unnest($1::text[], $2::text[], $3::integer[], $4::text[], $5::text[], $6::double precision[], $7::text[],
       $8::text[], $9::text[], $10::bigint[], $11::boolean[])
          as i(tenant, external_id, item_index, patient_ref, std_code, value, flag, collected_at, reported_at, seen, in_range)`,
    [
      rows.map((row) => row.event.tenant),
      rows.map((row) => row.externalId),
      rows.map((row) => row.item.index),
      rows.map((row) => row.event.data.patientRef),
      rows.map((row) => row.item.code),
      rows.map((row) => row.item.value),
      rows.map((row) => row.item.flag),
      rows.map((row) => row.event.data.collectedAt),
      rows.map((row) => row.event.data.reportedAt),
      rows.map((row) => row.event.position),
      rows.map((row) => row.item.inRange),
    ],
  );
}

/** A claimed report's facts from its rows (what its last version held); null when it holds no delta-limited result. */
async function ownReport(tx: Tx, { tenant, externalId }: { tenant: string; externalId: string }, patientRef: string) {
  const { rows } = await tx.query<{ collected_at: string | null; reported_at: string }>(
    "select collected_at, reported_at from delta_results where tenant = $1 and external_id = $2 limit 1",
    [tenant, externalId],
  );
  return rows[0] ? { patientRef, collectedAt: rows[0].collected_at, reportedAt: rows[0].reported_at } : null;
}

/** Of each of the report's results in a patient's series, the next one of another report: the results whose previous it may be. */
async function nextResultsOf(
  tx: Tx,
  { tenant, externalId }: { tenant: string; externalId: string },
): Promise<Array<{ externalId: string; code: string }>> {
  const { rows } = await tx.query<{ external_id: string; std_code: string }>(
    `select distinct n.external_id, n.std_code
     from delta_results r
     cross join lateral (
       select n.external_id, n.std_code from delta_results n
       where ${sameSeries("n", "r")}
         and (n.at, n.external_id, n.item_index) > (r.at, r.external_id, r.item_index) and n.external_id <> r.external_id
       order by n.at, n.external_id, n.item_index limit 1
     ) n
     where r.tenant = $1 and r.external_id = $2 and r.patient_ref is not null`,
    [tenant, externalId],
  );
  return rows.map((row) => ({ externalId: row.external_id, code: row.std_code }));
}

function groupCodes(
  results: Array<{ externalId: string; code: string }>,
): Array<{ externalId: string; codes: string[] }> {
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
  tenant: string;
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
  in_range: boolean | null;
  previous_in_range: boolean | null;
}

const LOCAL_ISO = `'YYYY-MM-DD"T"HH24:MI:SS'`;
/** Row `n` in the same patient's series of the item as row `t`. */
const sameSeries = (n: string, t: string) =>
  `${n}.tenant = ${t}.tenant and ${n}.patient_ref = ${t}.patient_ref and ${n}.std_code = ${t}.std_code`;
/** The result before row `t` in its series, as a lateral subquery (`hide`: a condition on `q` that leaves rows out). */
const previousOf = (t: string, hide: string) => `
  select q.value, q.at, q.external_id, q.in_range from delta_results q
  where ${sameSeries("q", t)} and (q.at, q.external_id, q.item_index) < (${t}.at, ${t}.external_id, ${t}.item_index) and not (${hide})
  order by q.at desc, q.external_id desc, q.item_index desc limit 1`;
const JUDGED_COLUMNS = `t.tenant, t.external_id, t.item_index, t.std_code, t.value, to_char(t.at, ${LOCAL_ISO}) as at,
                          t.flag, t.patient_ref, t.collected_at, t.reported_at,
  p.value as previous, to_char(p.at, ${LOCAL_ISO}) as previous_at, p.external_id as previous_external_id,
  t.in_range, p.in_range as previous_in_range`;

/**
 * Of a report's rows (in item order), one finding per code: the first that moved beyond the limit
 * from its previous result. A code some row of which is critical (the critical alerts' rule) is
 * carried by the report's critical alert of it.
 */
function findingsOf(rows: readonly JudgedRow[]): DeltaFinding[] {
  const findings = new Map<string, DeltaFinding>();
  const critical = new Set(
    rows.filter((row) => isCriticalResult(dictionary, row.std_code, row.value, row.flag)).map((row) => row.std_code),
  );
  for (const row of rows) {
    if (findings.has(row.std_code)) continue;
    const previous =
      row.previous === null
        ? null
        : {
            value: row.previous,
            at: row.previous_at!,
            externalId: row.previous_external_id!,
            inRange: row.previous_in_range,
          };
    const finding = judgeResult(
      limited.get(row.std_code)!,
      {
        externalId: row.external_id,
        itemIndex: row.item_index,
        value: row.value,
        at: row.at,
        flag: row.flag,
        inRange: row.in_range,
        critical: critical.has(row.std_code),
      },
      previous,
    );
    if (finding) findings.set(row.std_code, finding);
  }
  return [...findings.values()];
}

/**
 * Each report's results of the codes asked (all its codes for `codes` null), each against its
 * previous one in the series as it stands, without the rows of the events at `hidden` positions.
 */
async function judge(
  tx: Tx,
  tenant: string,
  targets: Array<{ externalId: string; codes: readonly string[] | null }>,
  hidden: readonly number[] = [],
): Promise<Judged[]> {
  if (targets.length === 0) return [];
  const { rows } = await tx.query<JudgedRow>(
    `select ${JUDGED_COLUMNS}
     from delta_results t left join lateral (${previousOf("t", "q.seen = any($3::bigint[])")}) p on true
     where t.tenant = $1 and t.external_id = any($2::text[])
     order by t.external_id, t.item_index`,
    [tenant, targets.map((target) => target.externalId), hidden],
  );
  return targets.map(({ externalId, codes }) => {
    const own = rows.filter((row) => row.external_id === externalId);
    const first = own[0];
    return {
      externalId,
      codes: codes === null ? null : [...codes],
      findings: findingsOf(own.filter((row) => codes === null || codes.includes(row.std_code))),
      report: first
        ? { patientRef: first.patient_ref, collectedAt: first.collected_at, reportedAt: first.reported_at }
        : null,
    };
  });
}

/**
 * A run of first versions (positions rising), written: each report's rows against their previous
 * results, and the next result of another report after each, as of the report's own event (the
 * rows of the run's later events left out).
 */
async function judgeFirstVersions(
  tx: Tx,
  run: Received[],
): Promise<Array<JudgedRow & { next_external_id: string | null }>> {
  const later = "q.seen > t.seen and q.seen = any($3::bigint[])";
  const { rows } = await tx.query(
    `select ${JUDGED_COLUMNS}, n.external_id as next_external_id
     from unnest($1::text[], $2::text[]) as r(tenant, external_id)
     join delta_results t on t.tenant = r.tenant and t.external_id = r.external_id
     left join lateral (${previousOf("t", later)}) p on true
     left join lateral (
       select q.external_id from delta_results q
       where ${sameSeries("q", "t")} and (q.at, q.external_id, q.item_index) > (t.at, t.external_id, t.item_index)
         and q.external_id <> t.external_id and not (${later})
       order by q.at, q.external_id, q.item_index limit 1
     ) n on true
     order by t.seen, t.item_index`,
    [run.map((event) => event.tenant), run.map(externalIdOf), run.map((event) => event.position)],
  );
  return rows;
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
    // A change carried by a critical alert, or information, is no alert to send (contract F.3 as amended).
    if (event.type === "DeltaAlertRaised" && !event.data.handledAs)
      await context.jobs?.send(
        tx,
        ALERT_WEBHOOK_QUEUE,
        { tenant: cause.tenant, alert: event.data satisfies RaisedAlert },
        event.data.alertId,
      );
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
            coalesce(r.collected_at::timestamp, r.reported_at::timestamp), i.value, i.flag, r.collected_at, r.reported_at, e.position, i.in_range
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
