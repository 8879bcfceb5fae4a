import type { RunningService } from "../../src/app/service.ts";
import { ADMIN } from "./http.ts";
import { ingestionTenant, labReport, LI_SI, ZHANG_SAN } from "./ingestion.ts";
import { adequacySpec, hbMonthlyReports } from "./reports.ts";
import { until } from "./service.ts";

/**
 * A report that binds every param type and every drill arg type, so requests that get past the
 * checks reach the SQL with values of each kind (hostile tests) and a tenant's data can be asked
 * for in every way (isolation tests).
 */
export const everyParamSpec = {
  version: 1,
  title: "Every kind of filter",
  params: [
    { name: "day", label: "Day", type: "date", default: null },
    { name: "period", label: "Period", type: "dateRange", default: ["2026-01-01", "2026-12-31"] },
    { name: "minValue", label: "Min", type: "number", default: null },
    { name: "valueRange", label: "Range", type: "numberRange", default: null },
    { name: "itemName", label: "Item", type: "text", default: null },
    {
      name: "code",
      label: "Code",
      type: "select",
      options: [
        { value: "HGB", label: "Hb" },
        { value: "K", label: "K" },
      ],
      default: null,
    },
    { name: "wards", label: "Wards", type: "multiSelect", options: { query: "wardList" }, default: null },
    { name: "withFlag", label: "Flagged", type: "boolean", default: null },
  ],
  queries: {
    wardList: { sql: "select distinct ward as value from patients where ward is not null order by 1" },
    results: {
      sql: `select external_id, std_code, std_value, reported_on, abnormal_flag from lab_results where 1 = 1
            [[and reported_on = {{day}}]] [[and reported_on >= {{period.from}}]] [[and reported_on <= {{period.to}}]]
            [[and std_value >= {{minValue}}]] [[and std_value >= {{valueRange.from}}]] [[and std_value <= {{valueRange.to}}]]
            [[and item_name = {{itemName}}]] [[and std_code = {{code}}]] [[and ward = any({{wards}})]]
            [[and (abnormal_flag is not null) = {{withFlag}}]]
            order by 1, 2`,
    },
  },
  nodes: [
    { id: "tbl", type: "table", title: "Results", query: "results" },
    {
      id: "chart",
      type: "chart",
      chart: "bar",
      title: "Values",
      query: "results",
      x: "external_id",
      y: ["std_value"],
      drill: {
        target: "detail",
        args: { onDay: "reported_on", value: "std_value", stdCode: "std_code", flagged: "abnormal_flag" },
      },
    },
  ],
  drills: {
    detail: {
      title: "Results of {stdCode} on {onDay}",
      args: [
        { name: "onDay", type: "date" },
        { name: "value", type: "number" },
        { name: "stdCode", type: "text" },
        { name: "flagged", type: "boolean" },
      ],
      queries: {
        rows: {
          sql: `select external_id, patient_ref, std_value from lab_results where 1 = 1 [[and reported_on = {{onDay}}]] [[and std_value = {{value}}]]
                [[and std_code = {{stdCode}}]] [[and (abnormal_flag is not null) = {{flagged}}]] order by 1, 2, 3`,
        },
      },
    },
  },
};

export type SeededTenant = Awaited<ReturnType<typeof seedTenant>>;

/**
 * A tenant with data behind every endpoint: an open-API client and an author, patient P001 (张三),
 * matched lab reports, an unmatched lab report (李四) and exam report waiting in the queue, the
 * report `every-param` published as v1 (dynamic) and v2 (snapshot), `hb-monthly` with a draft only,
 * and an administrator's token (role admin) of its own.
 * `prefix` keeps its external ids apart from another tenant's, so a leak names its source.
 */
export async function seedTenant(service: RunningService, tenant: string, prefix = tenant.toUpperCase()) {
  const base = await ingestionTenant(service, tenant);
  const asAuthor = (method: string, path: string, body?: unknown) =>
    base.call(method, path, { token: base.authorToken, body });
  const lab = hbMonthlyReports().map((report) => ({ ...report, externalId: `${prefix}-${report.externalId}` }));
  const unmatchedLab = labReport(`${prefix}-UNMATCHED`, {
    patient: { idCard: LI_SI.idCard, name: LI_SI.name, hisPatientId: "H-2" },
    reportedAt: "2026-03-02 10:00:00",
  });
  const pushedLab = await base.push("lab", [
    ...lab,
    labReport(`${prefix}-DAY`, { reportedAt: "2026-03-02 09:00:00" }),
    unmatchedLab,
  ]);
  const pushedExam = await base.push("exam", [
    {
      externalId: `${prefix}-ECHO`,
      patient: { idCard: ZHANG_SAN.idCard, name: ZHANG_SAN.name },
      examType: "ECHO",
      reportedAt: "2026-03-02 10:00:00",
      items: [{ itemCode: "LVEF", value: 62, unit: "%" }],
    },
    {
      externalId: `${prefix}-ECG-UNMATCHED`,
      patient: { hisPatientId: "H-9" },
      examType: "ECG",
      reportedAt: "2026-03-02 11:00:00",
    },
  ]);
  for (const pushed of [pushedLab, pushedExam]) {
    if (pushed.status !== 200 || pushed.body.data.rejected !== 0)
      throw new Error(`seed push failed: ${JSON.stringify(pushed.body)}`);
  }
  await until(
    async () =>
      (await service.db.query("select count(*)::int as n from read.lab_reports where tenant = $1", [tenant])).rows[0]
        .n === 5,
    20_000,
  );
  // The item rows are a read model of their own: each report's rows arrive together.
  await until(
    async () =>
      (
        await service.db.query("select count(distinct external_id)::int as n from read.lab_results where tenant = $1", [
          tenant,
        ])
      ).rows[0].n === 5,
    20_000,
  );
  await until(
    async () =>
      (await service.db.query("select count(*)::int as n from read.exam_reports where tenant = $1", [tenant])).rows[0]
        .n === 2,
    20_000,
  );

  for (const [step, answer] of [
    [
      "draft every-param",
      await asAuthor("PUT", "/api/reports/every-param/draft", {
        title: `Every filter of ${tenant}`,
        spec: everyParamSpec,
      }),
    ],
    ["publish v1", await asAuthor("POST", "/api/reports/every-param/publish", { mode: "dynamic", note: "live" })],
    [
      "draft again",
      await asAuthor("PUT", "/api/reports/every-param/draft", {
        title: `Every filter of ${tenant}`,
        spec: everyParamSpec,
      }),
    ],
    ["publish v2", await asAuthor("POST", "/api/reports/every-param/publish", { mode: "snapshot", note: "frozen" })],
    [
      "draft hb-monthly",
      await asAuthor("PUT", "/api/reports/hb-monthly/draft", { title: `Hemoglobin of ${tenant}`, spec: adequacySpec }),
    ],
  ] as const) {
    if (answer.status >= 300) throw new Error(`seed ${step} failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  // The tenant's own administrator (contract E.2): what it may do to another tenant is what the isolation tests try.
  const admin = await base.call("POST", "/api/admin/authors", {
    token: ADMIN,
    body: { name: `Head of ${tenant}`, tenant, roles: ["admin"] },
  });
  if (admin.status !== 201) throw new Error(`seed admin failed: ${admin.status} ${JSON.stringify(admin.body)}`);
  return {
    ...base,
    tenant,
    prefix,
    asAuthor,
    adminToken: admin.body.token as string,
    labIds: [...lab.map((r) => r.externalId), `${prefix}-DAY`, unmatchedLab.externalId],
    examIds: [`${prefix}-ECHO`, `${prefix}-ECG-UNMATCHED`],
  };
}
