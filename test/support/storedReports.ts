import type { Db } from "../../db/pool.ts";
import type { PushLoad } from "./pushLoad.ts";
import { ADMIN } from "./http.ts";
import { until } from "./service.ts";

/*
 * What "nothing accepted is lost, nothing half-stored" means, checked straight in the database
 * and through the HTTP interface after a fault.
 */

export interface ProjectionsReport {
  head: number;
  projections: Array<{
    name: string;
    position: number;
    appliedEvents: number;
    error: unknown;
    lagEvents: number;
    heldTenants: Array<{
      tenant: string;
      position: number;
      since: string;
      tries: number;
      retryAt: string;
      error: { code: string; message: string };
    }>;
  }>;
}

export async function projectionsOf(url: string): Promise<ProjectionsReport> {
  const response = await fetch(`${url}/api/admin/projections`, { headers: { authorization: `Bearer ${ADMIN}` } });
  if (response.status !== 200)
    throw new Error(`GET /api/admin/projections answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as ProjectionsReport;
}

/**
 * Waits until every projection (or those named) stands at the store's head without an error, as
 * shown to an administrator. A projection is woken only by events it handles (and by the periodic
 * safety net), so one that handles none of the recent events may stand behind until that net.
 */
export async function projectionsCaughtUp(
  url: string,
  timeoutMs = 60_000,
  only?: string[],
): Promise<ProjectionsReport> {
  let last: ProjectionsReport | null = null;
  try {
    return await until(
      async () => {
        last = await projectionsOf(url).catch(() => null);
        const watched = last?.projections.filter((p) => !only || only.includes(p.name)) ?? [];
        return last &&
          watched.length > 0 &&
          watched.every(
            (p) => p.error === null && p.heldTenants.length === 0 && p.lagEvents === 0 && p.position === last!.head,
          )
          ? last
          : null;
      },
      timeoutMs,
      200,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}: projections did not catch up; last report ${JSON.stringify(last)}`, {
      cause: error,
    });
  }
}

/**
 * Each projection has read every event up to its checkpoint exactly once: a batch and its
 * checkpoint commit together, so its applied count equals the events at or before the checkpoint
 * (in the feed's order). An event applied twice (by two workers, or again after a crash) would
 * make it larger; one skipped, smaller.
 */
export async function appliedExactlyOnce(db: Db): Promise<string[]> {
  const { rows } = await db.query(
    `select g.name, g.applied_count::int as applied,
            (select count(*)::int from events e where (e.transaction_id, e.position) <= (g.last_tx, g.last_position)) as read
     from projection_generations g where g.state = 'live'`,
  );
  return rows
    .filter((row) => row.applied !== row.read)
    .map((row) => `${row.name} applied ${row.applied} events, its checkpoint is past ${row.read}`);
}

/**
 * Event store and read tables agree for every lab report of the tenant: a row for every report
 * stream and none without one, holding the stream's last version, with all its result rows.
 * Returns the disagreements (empty when consistent).
 */
export async function eventsMatchReadRows(db: Db, tenant: string): Promise<string[]> {
  const { rows } = await db.query(
    `with last_received as (
       select distinct on (stream_id) substr(stream_id, length('lab-report:') + 1) as external_id,
              data->'report'->>'reportNo' as report_no, jsonb_array_length(data->'items') as items
       from events where tenant = $1 and type = 'LabReportReceived'
       order by stream_id, stream_version desc),
     results as (select external_id, count(*)::int as n from read.lab_results where tenant = $1 group by external_id)
     select coalesce(e.external_id, r.external_id) as external_id, e.report_no as event_report_no, r.report_no as row_report_no,
            e.items as event_items, r.item_count as row_items, coalesce(s.n, 0) as result_rows
     from last_received e
     full join (select * from read.lab_reports where tenant = $1) r using (external_id)
     left join results s on s.external_id = coalesce(e.external_id, r.external_id)
     where e.external_id is null or r.external_id is null or e.report_no is distinct from r.report_no
        or e.items <> r.item_count or r.item_count <> coalesce(s.n, 0)
     limit 20`,
    [tenant],
  );
  return rows.map((row) => JSON.stringify(row));
}

/**
 * Every report a push answered CREATED or UPDATED is stored, in that version or a later one that
 * was sent (a push the sender got no answer for may have been stored too).
 */
export async function acknowledgedStored(db: Db, tenant: string, load: PushLoad): Promise<string[]> {
  const { rows } = await db.query("select external_id, report_no from read.lab_reports where tenant = $1", [tenant]);
  const stored = new Map(
    rows.map((row) => [row.external_id as string, Number(String(row.report_no).split("-v").at(-1))]),
  );
  const problems: string[] = [];
  for (const [id, versions] of load.reports) {
    const version = stored.get(id);
    if (versions.acknowledged > 0 && version === undefined)
      problems.push(`${id} was answered as stored (v${versions.acknowledged}) but is missing`);
    else if (version !== undefined && (version < versions.acknowledged || version > versions.sent)) {
      problems.push(`${id} is stored as v${version}, answered v${versions.acknowledged}, sent up to v${versions.sent}`);
    }
  }
  return problems.slice(0, 20);
}

/** The sender's daily reconciliation lists exactly the reports of the day the read table holds. */
export async function reconciliationExact(
  url: string,
  key: string,
  db: Db,
  tenant: string,
  day: string,
): Promise<string[]> {
  const response = await fetch(`${url}/open/v1/reconcile/lab?date=${day}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const body = (await response.json()) as { data: { labReportCount: number; externalIds: string[] } };
  if (response.status !== 200) return [`${url} reconcile answered ${response.status} ${JSON.stringify(body)}`];
  const { rows } = await db.query(
    `select count(distinct stream_id)::int as n from events
     where tenant = $1 and type = 'LabReportReceived' and data->'report'->>'reportedAt' like $2 || '%'`,
    [tenant, day],
  );
  const streams = rows[0].n as number;
  const problems: string[] = [];
  if (body.data.labReportCount !== streams)
    problems.push(
      `${url} reconcile counts ${body.data.labReportCount} reports of ${day}, the event store holds ${streams}`,
    );
  if (body.data.externalIds.length !== body.data.labReportCount)
    problems.push(`${url} reconcile lists ${body.data.externalIds.length} ids but counts ${body.data.labReportCount}`);
  return problems;
}
