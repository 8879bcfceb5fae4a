import { SHARED_TENANT } from "../../commands/dictionary/events.ts";
import type { QualityMonthClosed } from "../../commands/quality/events.ts";
import type { StoredEvent } from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";
import type { MonthKey, ReportMonth } from "./monthItems.ts";
import type { ChangedValue } from "./monthValues.ts";

/*
 * What moved a patient's place after a month was closed (contract G.2, the restatement's
 * "because"): each event that came, changed or took away one of the patient's last values in a
 * month a close looks at, or put them under care in it or took them out. A close looks at its own
 * month and at the months before it that a tested indicator's window reaches (LOOKBACK_MONTHS);
 * moves of other months are not kept: years of history loaded in bulk keep none.
 */

/** An event as a move names it. */
export interface Cause {
  position: number;
  type: string;
  externalId: string | null;
  at: Date;
}

/** Months before a closed month that its indicators look at, the month itself included. */
export interface MovesSettings {
  lookbackMonths: number;
}

const keyOf = (key: MonthKey) => `${key.tenant}\u0000${key.patientRef}\u0000${key.month}`;

/** The tenants with a closed month: only their changes may be moves. */
export async function tenantsWithCloses(tx: Tx): Promise<Set<string>> {
  const { rows } = await tx.query<{ tenant: string }>("select distinct tenant from quality_closes");
  return new Set(rows.map((row) => row.tenant));
}

/**
 * The months of patients who, by a run of reports (their months before and after it), came under
 * care or left it: where no other report of the patient's month stays.
 */
export async function careChanges(tx: Tx, before: ReportMonth[], after: ReportMonth[]): Promise<ChangedValue[]> {
  const had = new Set(before.map(keyOf));
  const has = new Set(after.map(keyOf));
  const flipped = [...new Map([...before, ...after].map((key) => [keyOf(key), key])).values()].filter(
    (key) => had.has(keyOf(key)) !== has.has(keyOf(key)),
  );
  if (flipped.length === 0) return [];
  const reports = [...before, ...after];
  const { rows } = await tx.query<{ n: number }>(
    `select k.n from unnest($1::text[], $2::text[], $3::date[]) with ordinality as k(tenant, patient_ref, month, n)
     where not exists (
       select 1 from quality_reports r
       where r.tenant = k.tenant and r.patient_ref = k.patient_ref and r.month = k.month
         and (r.tenant, r.external_id) not in (select * from unnest($4::text[], $5::text[]))
     )`,
    [
      flipped.map((key) => key.tenant),
      flipped.map((key) => key.patientRef),
      flipped.map((key) => key.month),
      reports.map((report) => report.tenant),
      reports.map((report) => report.externalId),
    ],
  );
  return rows.map((row) => {
    const key = flipped[Number(row.n) - 1]!;
    return { ...key, stdCode: "", change: has.has(keyOf(key)) ? "came" : "went" };
  });
}

/**
 * Keeps as moves the changes (a last value, `stdCode`; under care, ""), whether it came, changed or went, each caused by every event
 * that touched its patient's month (`causes`), of the months a tenant's close looks at.
 */
export async function keepMoves(
  tx: Tx,
  changes: readonly ChangedValue[],
  causes: (key: MonthKey) => readonly Cause[],
  settings: MovesSettings,
): Promise<void> {
  const moves = changes.flatMap((change) => causes(change).map((cause) => ({ change, cause })));
  if (moves.length === 0) return;
  await tx.query(
    `insert into quality_moves
     select m.tenant, m.patient_ref, m.month, m.std_code, m.change, m.position, m.event_type, m.external_id, m.at
     from unnest($1::text[], $2::text[], $3::date[], $4::text[], $10::text[], $5::bigint[], $6::text[], $7::text[], $8::timestamptz[])
       as m(tenant, patient_ref, month, std_code, change, position, event_type, external_id, at)
     where exists (
       select 1 from quality_closes c
       where c.tenant = m.tenant and c.month >= m.month and c.month < (m.month + make_interval(months => $9))::date
     )`,
    [
      moves.map(({ change }) => change.tenant),
      moves.map(({ change }) => change.patientRef),
      moves.map(({ change }) => change.month),
      moves.map(({ change }) => change.stdCode),
      moves.map(({ cause }) => cause.position),
      moves.map(({ cause }) => cause.type),
      moves.map(({ cause }) => cause.externalId),
      moves.map(({ cause }) => cause.at),
      settings.lookbackMonths,
      moves.map(({ change }) => change.change),
    ],
  );
}

/**
 * A month closed: kept, so that changes to the months it looks at are moves from now on. The
 * events recorded while its figures were being counted (after the position they were counted at,
 * before the close) were applied before it: each is kept as a move of its report's patient's
 * month, or of every patient ('*') for an item mapping or a release, whatever it changed.
 */
export async function keepClose(
  tx: Tx,
  event: StoredEvent<QualityMonthClosed>,
  handled: readonly string[],
  labReportPrefix: string,
): Promise<void> {
  const { month, ward, position } = event.data;
  await tx.query("insert into quality_closes values ($1, $2, $3, $4, $5) on conflict do nothing", [
    event.tenant,
    `${month}-01`,
    ward,
    position,
    event.position,
  ]);
  if (position === null) return;
  await tx.query(
    `insert into quality_moves
     select $1, r.patient_ref, coalesce(r.month, $4::date), '*', 'changed', e.position, e.type,
            case when e.stream_id like $6 || '%' then substr(e.stream_id, length($6) + 1) end, e.recorded_at
     from events e
     left join quality_reports r on r.tenant = e.tenant and e.stream_id = $6 || r.external_id
     where e.position > $2 and e.position < $3 and e.tenant in ($1, $7) and e.type = any($5::text[])
       and e.type <> 'QualityMonthClosed'`,
    [event.tenant, position, event.position, `${month}-01`, handled, labReportPrefix, SHARED_TENANT],
  );
}
