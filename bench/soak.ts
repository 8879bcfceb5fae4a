import { readFileSync } from "node:fs";
import { createTestDatabase } from "../test/support/database.ts";
import { ingestionTenant, labReport } from "../test/support/ingestion.ts";
import { spawnService, type ServiceProcess } from "../test/support/serviceProcess.ts";
import { projectionsCaughtUp } from "../test/support/storedReports.ts";
import { median, percentile, result, type BenchResult } from "./results.ts";

/*
 * Soak: the service as production runs it (its own process, --role all, default safety net) under
 * steady mixed load for SOAK_SECONDS (default 600): laboratory pushes, report data calls, xlsx
 * exports, and a probe timing how long a push takes to show in reconciliation. What it watches is
 * what only time reveals: errors that start after a while, memory that keeps growing (RSS of the
 * service process, after warm-up against the end), and a read-model lag that creeps up.
 * `npm run bench -- soak`; never part of `npm test` nor of a plain `npm run bench`.
 */

const TENANT = "soak";
const REPORT_ID = "soak";
const PUSH_SENDERS = 3;
const REPORTS_PER_PUSH = 10;
/** Each sender pushes at most this often: a steady load the service can sustain, not a stress test. */
const PUSH_EVERY_MS = 300;
const DATA_CLIENTS = 2;
const DATA_EVERY_MS = 200;
const EXPORT_EVERY_MS = 1000;
const PROBE_EVERY_MS = 1000;
const PROBE_REPORTS = 5;
const PROBE_TIMEOUT_MS = 60_000;
const RSS_EVERY_MS = 1000;

/** A month chart over every pushed HGB result and the latest results as a table (what the xlsx export writes). */
const soakSpec = {
  version: 1,
  title: "Soak",
  params: [{ name: "period", label: "Period", type: "dateRange", default: ["2026-01-01", "2026-12-31"] }],
  queries: {
    monthly: {
      sql: `select date_trunc('month', reported_at)::date as month, round(avg(std_value)::numeric, 1) as hgb, count(*) as n
            from lab_results where std_code = 'HGB' [[and reported_on >= {{period.from}}]] [[and reported_on <= {{period.to}}]]
            group by 1 order by 1`,
    },
    latest: {
      sql: `select external_id, patient_ref, std_code, std_value, std_unit, reported_at from lab_results
            where true [[and reported_on >= {{period.from}}]] [[and reported_on <= {{period.to}}]]
            order by reported_at desc, external_id limit 2000`,
    },
  },
  nodes: [
    { id: "trend", type: "chart", chart: "line", title: "Hb by month", query: "monthly", x: "month", y: ["hgb"] },
    { id: "rows", type: "table", title: "Latest results", query: "latest" },
  ],
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class Tally {
  requests = 0;
  readonly errors = new Map<string, number>();
  readonly byKind = new Map<string, number>();

  count(kind: string, problem: string | null): void {
    this.requests++;
    this.byKind.set(kind, (this.byKind.get(kind) ?? 0) + 1);
    if (problem) this.errors.set(`${kind} ${problem}`, (this.errors.get(`${kind} ${problem}`) ?? 0) + 1);
  }

  get errorCount(): number {
    return [...this.errors.values()].reduce((a, b) => a + b, 0);
  }

  /** One call: a non-2xx answer or a transport failure is an error. The body is read whole either way. */
  async call(kind: string, url: string, init: RequestInit): Promise<{ ok: boolean; body: any }> {
    try {
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(120_000) });
      const buffer = Buffer.from(await response.arrayBuffer());
      const ok = response.status >= 200 && response.status < 300;
      this.count(kind, ok ? null : String(response.status));
      const json = (response.headers.get("content-type") ?? "").includes("json")
        ? JSON.parse(buffer.toString("utf8"))
        : null;
      return { ok, body: json };
    } catch (error) {
      this.count(kind, (error as Error).name === "TimeoutError" ? "timeout" : "transport");
      return { ok: false, body: null };
    }
  }
}

function rssMb(pid: number): number | null {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
}

function dayOf(base: string, offset: number): string {
  const [y, m, d] = base.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + offset)).toISOString().slice(0, 10);
}

export async function soakBenchmarks(): Promise<BenchResult[]> {
  const seconds = Number(process.env.SOAK_SECONDS ?? 600);
  if (!Number.isFinite(seconds) || seconds < 30)
    throw new Error(`SOAK_SECONDS must be at least 30, not ${process.env.SOAK_SECONDS}`);
  const databaseUrl = await createTestDatabase(false);
  const service: ServiceProcess = await spawnService({
    databaseUrl,
    env: { PROJECTION_SAFETY_NET_MS: "5000", LOG_LEVEL: "error" },
  });
  const url = service.url!;
  try {
    const tenant = await ingestionTenant(service, TENANT);
    const author = { token: tenant.authorToken };
    const draft = await tenant.call("PUT", `/api/reports/${REPORT_ID}/draft`, { ...author, body: { spec: soakSpec } });
    if (draft.status !== 200) throw new Error(`soak report not saved: ${JSON.stringify(draft.body)}`);
    const published = await tenant.call("POST", `/api/reports/${REPORT_ID}/publish`, {
      ...author,
      body: { mode: "dynamic" },
    });
    if (published.status !== 201) throw new Error(`soak report not published: ${JSON.stringify(published.body)}`);

    const tally = new Tally();
    const lags: number[] = [];
    const rss: Array<{ at: number; mb: number }> = [];
    const started = Date.now();
    const deadline = started + seconds * 1000;
    const running = () => Date.now() < deadline;
    const pushHeaders = { authorization: `Bearer ${tenant.client.key}`, "content-type": "application/json" };
    const viewHeaders = { "content-type": "application/json", "x-service-tenant": TENANT };

    const pushes = (kind: string, reports: unknown[]) =>
      tally.call(kind, `${url}/open/v1/lab/reports`, {
        method: "POST",
        headers: pushHeaders,
        body: JSON.stringify({ reports }),
      });

    /** A sender's steady stream: new reports over the days of 2026, every third one a new version of an earlier one. */
    const sender = async (s: number) => {
      for (let n = 0; running(); n++) {
        const begun = Date.now();
        const reports = Array.from({ length: REPORTS_PER_PUSH }, (_, r) => {
          const serial = n % 3 === 2 && n > 0 ? n - 1 : n; // re-send the previous push, changed: UPDATED
          const id = `SOAK-${s}-${serial}-${r}`;
          return labReport(id, {
            reportNo: `R-${id}-${n}`,
            reportedAt: `${dayOf("2026-01-01", (serial * PUSH_SENDERS + s) % 365)} 10:00:00`,
            items: [
              { itemCode: "HGB", itemName: "血红蛋白", value: 95 + ((n + r) % 40), unit: "g/L" },
              { itemCode: "K", itemName: "钾", value: 4 + ((n + r) % 20) / 10, unit: "mmol/L" },
              { itemCode: "ALB", itemName: "白蛋白", value: 35 + ((n + r) % 10), unit: "g/L" },
            ],
          });
        });
        const { ok, body } = await pushes("push", reports);
        if (ok && body?.data?.rejected)
          tally.errors.set(
            "push REJECTED entries",
            (tally.errors.get("push REJECTED entries") ?? 0) + body.data.rejected,
          );
        await sleep(PUSH_EVERY_MS - (Date.now() - begun));
      }
    };

    const dataClient = async () => {
      while (running()) {
        const begun = Date.now();
        await tally.call("data", `${url}/api/reports/${REPORT_ID}/data`, {
          method: "POST",
          headers: viewHeaders,
          body: "{}",
        });
        await sleep(DATA_EVERY_MS - (Date.now() - begun));
      }
    };

    const exporter = async () => {
      while (running()) {
        const begun = Date.now();
        await tally.call("xlsx", `${url}/api/reports/${REPORT_ID}/export/xlsx`, {
          method: "POST",
          headers: viewHeaders,
          body: "{}",
        });
        await sleep(EXPORT_EVERY_MS - (Date.now() - begun));
      }
    };

    /** Pushes a few reports for a day of their own (from 2030 on) and times them until reconciliation lists them all. */
    const probe = async () => {
      for (let k = 0; running(); k++) {
        const begun = Date.now();
        const day = dayOf("2030-01-01", k);
        const reports = Array.from({ length: PROBE_REPORTS }, (_, r) =>
          labReport(`PROBE-${k}-${r}`, { reportedAt: `${day} 09:00:00` }),
        );
        const { ok } = await pushes("probe push", reports);
        const answeredAt = Date.now();
        while (ok) {
          const { ok: listed, body } = await tally.call("reconcile", `${url}/open/v1/reconcile/lab?date=${day}`, {
            headers: pushHeaders,
          });
          if (listed && body.data.labReportCount === PROBE_REPORTS) {
            lags.push(Date.now() - answeredAt);
            break;
          }
          if (Date.now() - answeredAt > PROBE_TIMEOUT_MS) {
            tally.errors.set("probe never visible", (tally.errors.get("probe never visible") ?? 0) + 1);
            break;
          }
          await sleep(20);
        }
        await sleep(PROBE_EVERY_MS - (Date.now() - begun));
      }
    };

    const sampler = setInterval(() => {
      const mb = rssMb(service.pid);
      if (mb !== null) rss.push({ at: Date.now() - started, mb });
    }, RSS_EVERY_MS);
    const progress = setInterval(() => {
      const done = Math.round((Date.now() - started) / 1000);
      console.error(
        `  soak: ${done}/${seconds} s, ${tally.requests} requests, ${tally.errorCount} errors, RSS ${rss.at(-1)?.mb.toFixed(0) ?? "?"} MB`,
      );
    }, 30_000);
    console.error(
      `  soak: ${seconds} s of pushes (${PUSH_SENDERS} senders), data calls (${DATA_CLIENTS} clients), xlsx exports and a visibility probe`,
    );
    try {
      await Promise.all([
        ...Array.from({ length: PUSH_SENDERS }, (_, s) => sender(s)),
        ...Array.from({ length: DATA_CLIENTS }, () => dataClient()),
        exporter(),
        probe(),
      ]);
    } finally {
      clearInterval(sampler);
      clearInterval(progress);
    }
    const caughtUpFrom = Date.now();
    await projectionsCaughtUp(url, 120_000);
    const caughtUpMs = Date.now() - caughtUpFrom;

    // Warm-up: the first fifth (at least 10 s). Steady state: the tenth after it; the end: the last tenth.
    const totalMs = seconds * 1000;
    const warmupMs = Math.max(10_000, totalMs / 5);
    const windowMs = Math.max(5000, totalMs / 10);
    const steady = median(rss.filter((s) => s.at >= warmupMs && s.at < warmupMs + windowMs).map((s) => s.mb));
    const end = median(rss.filter((s) => s.at >= totalMs - windowMs).map((s) => s.mb));
    const growthPct = ((end - steady) / steady) * 100;
    const kinds = [...tally.byKind].map(([kind, n]) => `${kind} ${n}`).join(", ");
    const errors = [...tally.errors].map(([what, n]) => `${what}: ${n}`).join(", ");
    return [
      result(
        "soak.errors",
        tally.errorCount,
        "count",
        undefined,
        errors || "none (non-2xx answers, transport failures, rejected reports, probes never visible)",
      ),
      result(
        "soak.requests",
        tally.requests,
        "requests",
        undefined,
        `${(tally.requests / seconds).toFixed(1)}/s over ${seconds} s: ${kinds}`,
      ),
      result(
        "soak.rss_growth_pct",
        growthPct,
        "%",
        undefined,
        `service process RSS: ${steady.toFixed(0)} MB steady (median of ` +
          `${(warmupMs / 1000).toFixed(0)}-${((warmupMs + windowMs) / 1000).toFixed(0)} s) -> ${end.toFixed(0)} ` +
          `MB at the end (median of the last ${(windowMs / 1000).toFixed(0)} s); peak ` +
          `${Math.max(...rss.map((s) => s.mb)).toFixed(0)} MB`,
      ),
      result(
        "soak.lag_p99_ms",
        lags.length ? percentile(lags, 99) : NaN,
        "ms",
        undefined,
        `${lags.length} probes: push answered -> listed by reconcile (polled every 20 ms); p50 ` +
          `${lags.length ? percentile(lags, 50) : NaN} ms, max ${Math.max(...lags)} ms; every projection at the ` +
          `head ${caughtUpMs} ms after the load stopped`,
      ),
    ];
  } finally {
    await service.stop();
  }
}
