import { expect } from "chai";
import type { RunningService } from "../../src/app/service.ts";
import { labReport, type IngestionTenant } from "./ingestion.ts";

/** A report without params that shows each query (name → SQL) as a table of the same name. */
export function tableReportSpec(title: string, queries: Record<string, string>) {
  return {
    version: 1,
    title,
    params: [],
    queries: Object.fromEntries(Object.entries(queries).map(([name, sql]) => [name, { sql }])),
    nodes: Object.keys(queries).map((name) => ({ id: name, type: "table", query: name })),
  };
}

/**
 * A report query that keeps a report connection busy, burning CPU, until its statement timeout.
 * generate_series in the select list streams its rows; in FROM it would store them in a temporary
 * file, and fail at the report role's temp_file_limit first.
 */
export const BURNING_QUERY = "select count(*) as n from (select generate_series(1, 2000000000) as g) s";

/** The queries of a data answer, by name: their rows, or the sentence of their failure. */
export type QueryAnswers = Record<string, { rows?: unknown[][]; error?: string }>;

type ReportAuthor = Pick<IngestionTenant, "call" | "authorToken">;

/** Saves `queries` as the draft of `reportId` (tableReportSpec), as `tenant`'s author. */
export async function saveTableDraft(
  tenant: ReportAuthor,
  reportId: string,
  queries: Record<string, string>,
): Promise<void> {
  const saved = await tenant.call("PUT", `/api/reports/${reportId}/draft`, {
    token: tenant.authorToken,
    body: { spec: tableReportSpec(reportId, queries) },
  });
  expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
}

/**
 * The staff pages' census report "ward-census", published twice: v1 dynamic with `select *`
 * (audit: low + info), v2 snapshot with listed, ordered columns.
 */
export async function publishWardCensus(tenant: ReportAuthor): Promise<void> {
  const census = (sql: string) => ({
    version: 1,
    title: "Ward census",
    params: [],
    queries: { census: { sql } },
    nodes: [{ id: "list", type: "table", title: "Patients", query: "census" }],
  });
  const token = tenant.authorToken;
  const versions = [
    { sql: "select * from patients", mode: "dynamic", note: "first count" },
    {
      sql: "select patient_ref, name, ward from patients order by patient_ref",
      mode: "snapshot",
      note: "frozen for the audit",
    },
  ];
  for (const { sql, mode, note } of versions) {
    expect(
      (await tenant.call("PUT", "/api/reports/ward-census/draft", { token, body: { spec: census(sql) } })).status,
    ).to.equal(200);
    expect(
      (await tenant.call("POST", "/api/reports/ward-census/publish", { token, body: { mode, note } })).status,
    ).to.equal(201);
  }
}

/** Runs the draft of `reportId`, which must answer 200: its queries. */
export async function runDraftData(tenant: ReportAuthor, reportId: string): Promise<QueryAnswers> {
  const data = await tenant.call("POST", `/api/reports/${reportId}/data`, { body: { version: "draft" } });
  expect(data.status, JSON.stringify(data.body)).to.equal(200);
  return data.body.queries as QueryAnswers;
}

/** A small report over hemoglobin results: a range and a multi-select param, a chart with a drill, a table. */
export const adequacySpec = {
  version: 1,
  title: "Hemoglobin by month",
  params: [
    { name: "period", label: "Period", type: "dateRange", default: ["2026-01-01", "2026-12-31"] },
    { name: "wards", label: "Wards", type: "multiSelect", options: { query: "wardList" }, default: null },
  ],
  queries: {
    wardList: { sql: "select distinct ward as value from patients where ward is not null order by 1" },
    monthly: {
      sql: `select date_trunc('month', reported_at)::date as month, round(avg(std_value)::numeric, 1) as hgb, count(*) as n
            from lab_results where std_code = 'HGB'
            [[and reported_on >= {{period.from}}]] [[and reported_on <= {{period.to}}]]
            [[and ward = any({{wards}})]] group by 1 order by 1`,
    },
  },
  nodes: [
    { id: "intro", type: "text", markdown: "Monthly **Hb**" },
    {
      id: "trend",
      type: "chart",
      chart: "line",
      title: "Hb by month",
      query: "monthly",
      x: "month",
      y: ["hgb"],
      drill: { target: "byMonth", args: { month: "month" } },
    },
    { id: "tbl", type: "table", title: "Detail", query: "monthly" },
  ],
  drills: {
    byMonth: {
      title: "Patients in {month}",
      args: [{ name: "month", type: "date" }],
      queries: {
        patients: {
          sql: "select patient_ref, std_value from lab_results where std_code = 'HGB' and date_trunc('month', reported_at)::date = {{month}} order by 1, 2",
        },
      },
    },
  },
};

/** Three hemoglobin results in January and February 2026, one sent in g/dL. */
export function hbMonthlyReports() {
  return [
    labReport("M1", { reportedAt: "2026-01-10 09:00:00", items: [{ itemCode: "HGB", value: 100, unit: "g/L" }] }),
    labReport("M2", { reportedAt: "2026-01-20 09:00:00", items: [{ itemCode: "HGB", value: 11, unit: "g/dL" }] }),
    labReport("M3", { reportedAt: "2026-02-10 09:00:00", items: [{ itemCode: "HGB", value: 120, unit: "g/L" }] }),
  ];
}

/**
 * A dashboard of `charts` charts (line, bar, area and scatter in turn, two series each) over one
 * query of `points` rows from generate_series: a big docx export for the chart renderer.
 */
export function manyChartsSpec(charts: number, points: number) {
  const kinds = ["line", "bar", "area", "scatter"] as const;
  return {
    version: 1,
    title: `${charts} charts of ${points} points`,
    params: [],
    queries: {
      series: {
        sql:
          "select g as n, round((100 + 20 * sin(g / 10.0))::numeric, 1) as hgb, round((4.5 + cos(g / " +
          `7.0))::numeric, 2) as k from generate_series(1, ${points}) g`,
      },
    },
    nodes: Array.from({ length: charts }, (_, i) => ({
      id: `c${i + 1}`,
      type: "chart",
      chart: kinds[i % kinds.length],
      title: `趋势 ${i + 1}`,
      query: "series",
      x: "n",
      y: ["hgb", "k"],
    })),
  };
}

export interface Download {
  status: number;
  headers: Headers;
  buffer: Buffer;
  /** The JSON body of an error answer (any shape, as tests read it), null for a file. */
  json: any;
}

/** POSTs an export of a report of tenant h1 and reads the whole answer. */
export async function downloadExport(
  service: Pick<RunningService, "url">,
  reportId: string,
  format: "xlsx" | "docx",
  body: unknown,
  token?: string,
): Promise<Download> {
  const response = await fetch(`${service.url}/api/reports/${reportId}/export/${format}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-service-tenant": "h1",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  const buffer = Buffer.from(await response.arrayBuffer());
  const json = (response.headers.get("content-type") ?? "").includes("json")
    ? JSON.parse(buffer.toString("utf8"))
    : null;
  return { status: response.status, headers: response.headers, buffer, json };
}
