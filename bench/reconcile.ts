import { BENCH_ADMIN_TOKEN, startBenchService } from "./benchService.ts";
import { percentile, result, type BenchResult } from "./results.ts";

const EVENTS = 1_000_000;
const REPORTS = 1_000_000;
/** One report every 150 s over about five years: 576 reports a day. */
const SPACING_S = 150;
const DAY = "2024-06-12";
const CALLS = 400;
/** Events per ledger block: a million blocks, as five years of sealing once a minute would leave at most. */
const BLOCK_REPORTS = 2;

/**
 * Reconciliation as of a moment (contract D.3) on a store of a million events and a million
 * reports' days, against the plain reconciliation of the same day in the same run. The store and
 * the read models are filled by SQL (generate_series), not through HTTP: the call is measured.
 */
export async function reconcileBenchmarks(): Promise<BenchResult[]> {
  // One client calls as fast as it can: the open API's rate limit is lifted.
  const service = await startBenchService({ OPEN_API_RATE_PER_SECOND: "100000", OPEN_API_BURST: "100000" });
  try {
    const db = service.db;
    await db.query(
      `insert into events (tenant, stream_id, stream_version, type, data, metadata)
       select 'filler', 'filler-' || (g / 100), (g % 100) + 1, 'BenchFiller', jsonb_build_object('n', g), '{"actor":"bench"}'
       from generate_series(0, ${EVENTS - 1}) g`,
    );
    const { rows } = await db.query(
      "select schema_name from projection_generations where name = 'lab_reports' and state = 'live'",
    );
    const schema = rows[0].schema_name as string;
    // Each report received once (the event at position g, its own transaction), a tenth of them
    // waiting for a patient; a tenth of those later claimed (at position REPORTS + g).
    await db.query(
      `insert into ${schema}.lab_report_days (tenant, external_id, version, valid_from, valid_to, report_day, unmatched, ledger_tx, ledger_position)
       select 'bench', 'R' || lpad(g::text, 7, '0'), 1, t, case when g % 100 = 0 then t + interval '1 hour' end,
         (t at time zone 'UTC')::date, g % 10 = 0, g::text::xid8, g
       from generate_series(1, ${REPORTS}) g, lateral (select timestamptz '2021-01-01 00:00:00+00' + g * interval '${SPACING_S} seconds' as t) s`,
    );
    await db.query(
      `insert into ${schema}.lab_report_days (tenant, external_id, version, valid_from, report_day, unmatched, ledger_tx, ledger_position)
       select 'bench', external_id, 2, valid_to, report_day, false, (${REPORTS} + ledger_position)::text::xid8, ${REPORTS} + ledger_position
       from ${schema}.lab_report_days where valid_to is not null`,
    );
    // The plain call's read model, for the day measured.
    await db.query(
      `insert into ${schema}.lab_reports (tenant, external_id, matched, reported_at, report_day, received_at,
         client_name, item_count, ledger_tx, ledger_position)
       select tenant, external_id, not unmatched, valid_from at time zone 'UTC', report_day, valid_from, 'bench', 20, ledger_tx, ledger_position
       from ${schema}.lab_report_days where report_day = $1 and valid_to is null`,
      [DAY],
    );
    // The ledger's blocks over those events (the receipt looks one up), only their ends and roots.
    await db.query(
      `insert into ledger_blocks (no, events, first_position, last_position, last_tx, last_tx_position, root, prev)
       select b, ${BLOCK_REPORTS}, (b - 1) * ${BLOCK_REPORTS} + 1, b * ${BLOCK_REPORTS}, (b * ${BLOCK_REPORTS})::text::xid8, b * ${BLOCK_REPORTS},
              encode(sha256(b::text::bytea), 'hex'), case when b > 1 then encode(sha256((b - 1)::text::bytea), 'hex') end
       from generate_series(1, ${(2 * REPORTS) / BLOCK_REPORTS}) b`,
    );
    await db.query(`analyze ${schema}.lab_report_days`);
    await db.query(`analyze ${schema}.lab_reports`);

    const client = await fetch(`${service.url}/api/admin/clients`, {
      method: "POST",
      headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "bench lab", tenant: "bench" }),
    });
    const { key } = (await client.json()) as { key: string };
    for (
      let tries = 0;
      (await fetch(`${service.url}/open/v1/ping`, { headers: { authorization: `Bearer ${key}` } })).status !== 200;
      tries++
    ) {
      if (tries > 200) throw new Error("the bench client's key never became usable");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }

    const call = async (query: string) => {
      const started = performance.now();
      const answer = await fetch(`${service.url}/open/v1/reconcile/lab?${query}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const body = (await answer.json()) as {
        data: { labReportCount: number; sealed: boolean; ledgerRoot: string | null };
      };
      if (answer.status !== 200) throw new Error(`reconcile failed: ${answer.status} ${JSON.stringify(body)}`);
      if (!body.data.sealed || !body.data.ledgerRoot)
        throw new Error(`the day's reports are sealed, yet reconcile said ${JSON.stringify(body.data)}`);
      return { ms: performance.now() - started, count: body.data.labReportCount };
    };
    const moments = Array.from(
      { length: CALLS },
      (_, i) => `${DAY} ${String(8 + (i % 14)).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}:00`,
    );
    const asOf: number[] = [];
    const plain: number[] = [];
    let counted = 0;
    for (const [i, moment] of moments.entries()) {
      // Taking turns, so that both see the same machine.
      const measured = await call(`date=${DAY}&asOf=${encodeURIComponent(moment)}`);
      if (i >= 20) asOf.push(measured.ms);
      counted = measured.count;
      const baseline = await call(`date=${DAY}`);
      if (i >= 20) plain.push(baseline.ms);
    }
    const events = (await db.query("select count(*)::int as n from events")).rows[0].n as number;
    const p99 = percentile(asOf, 99);
    const plainP99 = percentile(plain, 99);
    const note =
      `GET /open/v1/reconcile/lab?date=${DAY}&asOf=… over HTTP, ${asOf.length} calls at moments of that day (the ` +
      `last counted ${counted} reports), on a store of ${events.toLocaleString("en")} events and ` +
      `${REPORTS.toLocaleString("en")} reports' days; baseline: the same day without asOf, taking turns (ratio = ` +
      `baseline / ours); p50 ${percentile(asOf, 50).toFixed(1)} ms against ${percentile(plain, 50).toFixed(1)} ` +
      "ms; target <= 50 ms";
    return [result("reconcile.asof_p99_ms", p99, "ms", { value: plainP99, ratio: plainP99 / p99 }, note)];
  } finally {
    await service.stop();
  }
}
