import { monitorEventLoopDelay } from "node:perf_hooks";
import { benchHeaders, publishBenchReport, startBenchService } from "./benchService.ts";
import type pg from "pg";
import { seedLiveReadModels } from "./liveReadModels.ts";
import { median, result, type BenchResult } from "./results.ts";
import { manyChartsSpec } from "../test/support/reports.ts";

const RESULT_ROWS = 50_000;
/** The big export of issue #32 finding 5, at the scale of its test (test/http/docxResponsive.test.ts): 20 charts of 2000 points, two series each. */
const BIG_CHARTS = 20;
const BIG_POINTS = 2000;

/** A dashboard of four charts (line, bar, area, pie) with Chinese titles, axes and legends, plus text and a table. */
const spec = {
  version: 1,
  title: "透析质量月报",
  params: [{ name: "period", label: "统计期间", type: "dateRange", default: ["2026-01-01", "2026-12-31"] }],
  queries: {
    monthly: {
      sql: `select date_trunc('month', reported_at)::date as 月份, round(avg(std_value)::numeric, 1) as 血红蛋白, count(*) as 检验次数 from lab_results
            where std_code = 'HGB' [[and reported_on >= {{period.from}}]] [[and reported_on <= {{period.to}}]] group by 1 order by 1`,
    },
    byWard: {
      sql: "select ward as 病区, count(*) as 检验次数, round(avg(std_value)::numeric, 1) as 平均值 from lab_results where std_code = 'HGB' group by 1 order by 1",
    },
    ktv: {
      sql: `select date_trunc('month', reported_at)::date as 月份, round(avg(std_value)::numeric, 2) as ktv from lab_results
            where std_code = 'KTV' [[and reported_on >= {{period.from}}]] [[and reported_on <= {{period.to}}]] group by 1 order by 1`,
    },
    codes: { sql: "select std_code as 项目, count(*) as 次数 from lab_results group by 1 order by 1" },
  },
  nodes: [
    {
      id: "intro",
      type: "text",
      markdown: "# 透析质量\n\n本月 **血红蛋白** 与 *Kt/V* 概览。\n\n- 数据来自检验系统\n- 每月更新",
    },
    {
      id: "line",
      type: "chart",
      chart: "line",
      title: "血红蛋白月度趋势",
      query: "monthly",
      x: "月份",
      y: ["血红蛋白"],
    },
    {
      id: "bar",
      type: "chart",
      chart: "bar",
      title: "各病区检验次数",
      query: "byWard",
      x: "病区",
      y: ["检验次数", "平均值"],
    },
    { id: "area", type: "chart", chart: "area", title: "Kt/V 月度趋势", query: "ktv", x: "月份", y: ["ktv"] },
    { id: "pie", type: "chart", chart: "pie", title: "检验项目构成", query: "codes", x: "项目", y: ["次数"] },
    { id: "table", type: "table", title: "月度明细", query: "monthly" },
  ],
};

/** Patients in three wards and a year of results, written straight into the live read model. */
async function seed(db: pg.Pool): Promise<void> {
  await seedLiveReadModels(
    db,
    { count: 300, namePrefix: "患者", wards: ["东区一病房", "西区二病房", "南区三病房"] },
    (labSchema) =>
      `insert into ${labSchema}.lab_results (tenant, external_id, item_index, patient_ref, std_code, std_value, unit_status, reported_at, reported_on)
     select 'bench', 'R' || (g / 5), g % 5, 'P' || (1 + g % 300), (array['HGB','KTV','P','CA','ALB'])[1 + g % 5],
            case when g % 5 = 1 then 1.1 + (g % 7) * 0.05 else 100 + (g % 40) end, 'standard', timestamp '2026-01-01' + (g % 365) * interval '1 day',
            date '2026-01-01' + (g % 365)
     from generate_series(1, ${RESULT_ROWS}) g`,
  );
}

/** `export.docx_4charts_s`: the docx export of a report with four charts, end to end over HTTP (median of 5 after a warm-up). */
export async function docxExportBenchmarks(): Promise<BenchResult[]> {
  const service = await startBenchService();
  try {
    await seed(service.db);
    const headers = benchHeaders;
    await publishBenchReport(service, "bench-docx", spec);

    let bytes = 0;
    const exportOnce = async (reportId = "bench-docx") => {
      const started = performance.now();
      const response = await fetch(`${service.url}/api/reports/${reportId}/export/docx`, {
        method: "POST",
        headers,
        body: JSON.stringify({ version: "v1" }),
      });
      const file = Buffer.from(await response.arrayBuffer());
      if (response.status !== 200) throw new Error(`export failed: ${response.status} ${file.toString("utf8")}`);
      bytes = file.length;
      return (performance.now() - started) / 1000;
    };
    await exportOnce(); // warm-up: loads ECharts, resvg and the font, compiles the queries' plans
    const runs: number[] = [];
    for (let i = 0; i < 5; i++) runs.push(await exportOnce());
    const smallBytes = bytes;

    // The big one, once: how long it takes, and the longest the event loop (every other request's) waited meanwhile.
    await publishBenchReport(service, "bench-docx-big", manyChartsSpec(BIG_CHARTS, BIG_POINTS));
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const bigSeconds = await exportOnce("bench-docx-big");
    loopDelay.disable();
    return [
      result(
        "export.docx_4charts_s",
        median(runs),
        "s",
        undefined,
        "docx export over HTTP of a report with 4 charts (line, bar, area, pie), text and a table over " +
          `${RESULT_ROWS} results; median of 5 after a warm-up (runs ${runs.map((r) => r.toFixed(2)).join(", ")} ` +
          `s; ${Math.round(smallBytes / 1024)} KiB)`,
      ),
      result(
        "export.docx_20charts_2000points_s",
        bigSeconds,
        "s",
        undefined,
        `docx export over HTTP of ${BIG_CHARTS} charts (line, bar, area, scatter; 2 series) of ${BIG_POINTS} ` +
          `points each, once (${Math.round(bytes / 1024)} KiB)`,
      ),
      result(
        "export.docx_20charts_event_loop_max_ms",
        loopDelay.max / 1e6,
        "ms",
        undefined,
        "the longest event-loop delay during that export (perf_hooks.monitorEventLoopDelay, 10 ms resolution): " +
          "how long a request such as GET /healthz could wait",
      ),
    ];
  } finally {
    await service.stop();
  }
}
