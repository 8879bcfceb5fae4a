import { createPool } from "../db/pool.ts";
import { buildServer } from "../src/buildServer.ts";
import { createTestDatabase } from "../test/support/database.ts";
import { spawnService } from "../test/support/serviceProcess.ts";
import { BENCH_ADMIN_TOKEN, benchHeaders } from "./benchService.ts";
import { dayOf, lagsOfRound, type Listed, type Push } from "./pushVisibility.ts";
import { peakResidentBytes, residentBytes, resetPeakResident } from "./processStats.ts";
import { percentile, result, type BenchResult } from "./results.ts";

/** As many reports awaiting claim as the attack of issue #52 (finding 3) found: 90,036. */
const QUEUED = 90_000;
const CALLERS = 8;
/** The largest page a caller may ask for (contract E.6): the most an answer holds. */
const PAGE = 1000;
/** The day all of them were reported on: one reconciliation day of 90,000 ids. */
const QUEUE_DAY = "2025-11-03";
/** Rounds of pushes without and with the walkers, alternated (idle first), as the other defence figures. */
const ROUNDS = 3;

/**
 * Issue #52 finding 3, in the `defence` group (and alone: `npm run bench -- defence-lists`): the
 * service as its own process (`npm start`'s build), a tenant with 90,000 reports awaiting claim
 * (written straight into the live read model, as the reconcile benchmark does), and
 * - its resident memory while 8 callers walk the whole queue a page of 1,000 at a time, again and
 *   again (target ≤ 400 MB), and push-to-visible meanwhile against none walking (ratio ≤ 1.5);
 * - 8 senders reconciling the day that holds the 90,000 at once: the seconds until all have the
 *   whole answer, and the memory meanwhile (the attack: 14 s and 1.4 GB).
 */
export async function unmatchedUnderCallers(): Promise<BenchResult[]> {
  await buildServer();
  const databaseUrl = await createTestDatabase(false);
  const service = await spawnService({ databaseUrl, env: { ADMIN_TOKEN: BENCH_ADMIN_TOKEN } });
  try {
    const url = service.url!;
    const { push, listed } = await sender(url);
    await seedQueue(databaseUrl);
    const rssIdle = mb(residentBytes(service.pid));

    const walkers = queueWalkers(url, service.pid);
    const pair = await alternated(push, listed, walkers);
    const reconciled = await reconcilers(url, service.pid);
    const ratio = (p: Pair) => percentile(p.loaded, 99) / percentile(p.idle, 99);
    return [
      result(
        "defence.unmatched_8_callers_rss_mb",
        walkers.peakMb(),
        "MB",
        undefined,
        `peak resident memory of the service process (its own, npm start's build) while ${CALLERS} callers ` +
          `walked a queue of ${QUEUED.toLocaleString("en")} unmatched reports a page of ${PAGE} at a time, one ` +
          `page after another, again and again (${walkers.walks()} whole walks, ${walkers.pages()} pages ` +
          `answered, ${walkers.pagesPerSecond().toFixed(0)} pages/s); ${rssIdle.toFixed(0)} MB idle ` +
          "before; target <= 400 MB",
      ),
      result(
        "defence.unmatched_8_callers_push_p99_ratio",
        ratio(pair),
        "ratio",
        undefined,
        `push answered -> its reports counted by reconciliation, ${pair.loaded.length} pushes of 5 while the ` +
          `${CALLERS} callers walked the queue: p99 ${percentile(pair.loaded, 99).toFixed(1)} ms, p50 ` +
          `${percentile(pair.loaded, 50).toFixed(1)} ms; with none walking: p99 ` +
          `${percentile(pair.idle, 99).toFixed(1)} ms, p50 ${percentile(pair.idle, 50).toFixed(1)} ms; ${ROUNDS} ` +
          "rounds of each, alternated; target <= 1.5",
      ),
      result("defence.reconcile_90k_8_callers_s", reconciled.seconds, "s", undefined, reconciled.note),
      result(
        "defence.reconcile_90k_8_callers_rss_mb",
        reconciled.peakMb,
        "MB",
        undefined,
        `peak resident memory of the service process meanwhile: ${reconciled.note}`,
      ),
    ];
  } finally {
    await service.stop();
  }
}

const mb = (bytes: number) => bytes / 1024 / 1024;

/** A load that starts and stops between rounds. */
interface Condition {
  start(): Promise<void>;
  stop(): Promise<void>;
}

interface Pair {
  idle: number[];
  loaded: number[];
}

/** Push-to-visible in rounds without and with `condition`, alternated, idle first; each round counts a day of its own. */
async function alternated(push: Push, listed: Listed, condition: Condition): Promise<Pair> {
  const pair: Pair = { idle: [], loaded: [] };
  for (let round = 0; round < ROUNDS; round++) {
    pair.idle.push(...(await lagsOfRound(push, listed, `UI${round}`, dayOf(60 + 2 * round))));
    await condition.start();
    try {
      pair.loaded.push(...(await lagsOfRound(push, listed, `UL${round}`, dayOf(61 + 2 * round))));
    } finally {
      await condition.stop();
    }
  }
  return pair;
}

/** The open-API headers of a new client of tenant bench named `name`, once its key is accepted. */
async function newClient(url: string, name: string): Promise<Record<string, string>> {
  const created = await fetch(`${url}/api/admin/clients`, {
    method: "POST",
    headers: benchHeaders,
    body: JSON.stringify({ name, tenant: "bench" }),
  });
  const { key } = (await created.json()) as { key: string };
  const open = { authorization: `Bearer ${key}`, "content-type": "application/json", "x-service-tenant": "bench" };
  // The service, in another process, learns of a new key within moments, not at once.
  for (let tries = 0; (await fetch(`${url}/open/v1/ping`, { headers: open })).status !== 200; tries++) {
    if (tries > 300) throw new Error("the new client key was not accepted within 30 s");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return open;
}

/** A laboratory of tenant bench: a push, and the count reconciliation lists for a day. */
async function sender(url: string): Promise<{ push: Push; listed: Listed }> {
  const open = await newClient(url, "bench lab");
  return {
    push: async (reports) => {
      const answer = await fetch(`${url}/open/v1/lab/reports`, {
        method: "POST",
        headers: open,
        body: JSON.stringify({ reports }),
      });
      if (answer.status !== 200) throw new Error(`push answered ${answer.status}: ${await answer.text()}`);
    },
    listed: async (day) => {
      const answer = await fetch(`${url}/open/v1/reconcile/lab?date=${day}`, { headers: open });
      return ((await answer.json()) as { data: { labReportCount: number } }).data.labReportCount;
    },
  };
}

/**
 * 90,000 lab reports of tenant bench awaiting claim, received over the last 90 days, each naming a
 * patient as a laboratory would (name, id card, HIS id, the reason it waits): some 330 bytes an
 * entry in the queue's answer, as the attack's 29 MB for 90,036.
 */
async function seedQueue(databaseUrl: string): Promise<void> {
  const db = createPool(databaseUrl, { max: 1, applicationName: "bench-seed" });
  try {
    const { rows } = await db.query(
      "select schema_name from projection_generations where name = 'lab_reports' and state = 'live'",
    );
    const schema = rows[0].schema_name as string;
    await db.query(
      `insert into ${schema}.lab_reports (tenant, external_id, report_no, matched, pending_reason, id_card,
         patient_name, his_patient_id, panel_name, specimen, status, lab_name,
                                          collected_at, reported_at, report_day, received_at, client_name, item_count, ledger_tx, ledger_position)
       select 'bench', 'LIS-Q-' || lpad(g::text, 6, '0'), 'RPT-' || lpad(g::text, 8, '0'), false, 'no dialysis patient with this idCard',
              '1101051949' || lpad((g % 100000000)::text, 8, '0'), '患者' || g, 'HIS-' || lpad(g::text, 7, '0'),
                '肾功能 Renal panel', 'SERUM', 'FINAL', 'Central laboratory',
              $2::date + time '07:30', $2::date + time '11:00', $2::date, now() - (g * interval '86 seconds'), 'bench lab', 20, '1'::xid8, g
       from generate_series(1, $1::int) g`,
      [QUEUED, QUEUE_DAY],
    );
    await db.query(`analyze ${schema}.lab_reports`);
  } finally {
    await db.end();
  }
}

/** Measures the service's peak resident memory from `start` on: exactly where Linux allows resetting VmHWM, else sampled. */
function peakMeter(pid: number): { start(): void; peakMb(): number; stop(): void } {
  let peak = 0;
  let exact = false;
  let timer: NodeJS.Timeout | null = null;
  return {
    start() {
      exact = resetPeakResident(pid);
      timer = setInterval(() => (peak = Math.max(peak, residentBytes(pid))), 50);
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
      peak = Math.max(peak, exact ? peakResidentBytes(pid) : residentBytes(pid));
    },
    peakMb: () => mb(peak),
  };
}

/** 8 callers walking the whole queue page after page (the staff page's Show more, or a script), while the condition holds. */
function queueWalkers(
  url: string,
  pid: number,
): Condition & { peakMb(): number; walks(): number; pages(): number; pagesPerSecond(): number } {
  let running = false;
  let loops: Promise<void>[] = [];
  let walks = 0;
  let pages = 0;
  let walkingMs = 0;
  let peakMb = 0;
  let meter = peakMeter(pid);
  const walk = async () => {
    for (let next: string | null = `/api/unmatched?limit=${PAGE}`; next && running;) {
      const answer: Response = await fetch(`${url}${next}`, { headers: benchHeaders });
      if (answer.status !== 200) throw new Error(`the queue answered ${answer.status}: ${await answer.text()}`);
      await answer.json();
      pages++;
      next = /<([^>]+)>;\s*rel="next"/.exec(answer.headers.get("link") ?? "")?.[1] ?? null;
      if (!next) walks++;
    }
  };
  let started = 0;
  return {
    start: async () => {
      running = true;
      meter = peakMeter(pid);
      meter.start();
      started = performance.now();
      loops = Array.from({ length: CALLERS }, async () => {
        while (running) await walk();
      });
    },
    stop: async () => {
      running = false;
      await Promise.all(loops);
      walkingMs += performance.now() - started;
      meter.stop();
      peakMb = Math.max(peakMb, meter.peakMb());
    },
    peakMb: () => peakMb,
    walks: () => walks,
    pages: () => pages,
    pagesPerSecond: () => (pages * 1000) / walkingMs,
  };
}

/** 8 senders asking for the reconciliation of the 90,000 reports' day at once, each reading the whole answer. */
async function reconcilers(url: string, pid: number): Promise<{ seconds: number; peakMb: number; note: string }> {
  const open = await newClient(url, "bench reconciler");
  const meter = peakMeter(pid);
  meter.start();
  const started = performance.now();
  const counts = await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      const answer = await fetch(`${url}/open/v1/reconcile/lab?date=${QUEUE_DAY}`, { headers: open });
      const { data } = (await answer.json()) as { data: { labReportCount: number; externalIds: string[] } };
      if (data.externalIds.length !== QUEUED || data.labReportCount !== QUEUED)
        throw new Error(`reconciliation answered ${data.externalIds.length} ids, counted ${data.labReportCount}`);
      return data.labReportCount;
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  meter.stop();
  return {
    seconds,
    peakMb: meter.peakMb(),
    note:
      `${CALLERS} senders reconciling at once a day of ${counts[0]!.toLocaleString("en")} lab reports (each ` +
      `answer every id, about 1.3 MB), until the last had read its whole answer: ${seconds.toFixed(2)} s (the ` +
      "attack: 14 s and 1.4 GB)",
  };
}
