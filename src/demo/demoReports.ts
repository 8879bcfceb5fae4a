/**
 * The two reports published on the demo tenant (contract A.4 specifications over the `clinical`
 * data source, C.5). They read standard codes and values (`std_code`, `std_value`), so results
 * sent in other units (Hb in g/dL) count after conversion, and they leave out reports not yet
 * matched to a patient. Their dashboards read the summaries (`monthly_results`, `latest_results`,
 * docs/report-spec-guide.md), which cost the same with five years of results as with one month;
 * only a drill into one month reads item rows (`lab_results`).
 *
 * Targets (Chinese hemodialysis QC practice, see the dictionary facts):
 *   spKt/V ≥ 1.2, URR ≥ 65 %; Hb 110–130 g/L; P 1.13–1.78 mmol/L; Ca 2.10–2.50 mmol/L;
 *   iPTH 150–600 pg/mL (KDIGO 2–9 × upper normal).
 *
 * Every title, label and text is given in Chinese and in English (issue #54): a reader sees their
 * page's language. What the SQL returns as text (ward codes, out-of-target marks) reads the same
 * in both.
 */

export interface DemoReport {
  id: string;
  title: string;
  datasource: "clinical";
  spec: Record<string, unknown>;
}

export const ADEQUACY_REPORT_ID = "dialysis-adequacy";
export const ANEMIA_REPORT_ID = "anemia-mineral";
export const DEMO_REPORT_IDS = [ADEQUACY_REPORT_ID, ANEMIA_REPORT_ID] as const;

/** A display string in both languages (localizedText.ts). */
const t = (zh: string, en: string) => ({ zh, en });

/** The filters both reports share: the period (default: the demo months) and the wards. */
function commonParams(period: [string, string]) {
  return [
    { name: "period", label: t("时间段", "Period"), type: "dateRange", default: period },
    { name: "wards", label: t("病区", "Wards"), type: "multiSelect", options: { query: "wardList" }, default: null },
  ];
}

// The ward's code is its name in both languages ("A" under the filter 病区 / Wards).
const WARD_LIST = "select distinct ward as value, ward as label from patients where ward is not null order by 1";

/** The filter clauses of a query over monthly_results: the months the period touches. */
const MONTH_FILTERS =
  "[[and month >= date_trunc('month', {{period.from}}::timestamp)::date]] [[and month <= {{period.to}}]] [[and ward = any({{wards}})]]";

/** A month's item rows, for a drill into the month `{{month}}`. */
const IN_MONTH =
  "r.reported_on >= date_trunc('month', {{month}}::timestamp)::date and r.reported_on < (date_trunc('month', {{month}}::timestamp) + interval '1 month')::date";

/**
 * Each patient's latest result of these items taken in the period. latest_results holds each
 * patient's newest; only a patient whose newest came after the period's end needs its item rows
 * read (none, for a period that ends today).
 */
function latestInPeriod(codes: string[]): string {
  const list = codes.map((code) => `'${code}'`).join(", ");
  return `select patient_ref, std_code, std_value from latest_results
          where std_code in (${list}) [[and reported_on >= {{period.from}}]] [[and reported_on <= {{period.to}}]] [[and ward = any({{wards}})]]
          union all
          select l.patient_ref, l.std_code, r.std_value
          from latest_results l
          cross join lateral (
            select r.std_value from lab_results r
            where r.patient_ref = l.patient_ref and r.std_code = l.std_code and r.std_value is not null
              [[and r.reported_on >= {{period.from}}]] [[and r.reported_on <= {{period.to}}]]
            order by r.reported_on desc, r.reported_at desc
            limit 1
          ) r
          where l.std_code in (${list}) and (false [[or l.reported_on > {{period.to}}]]) [[and l.ward = any({{wards}})]]`;
}

/** Highlight rules (issue #22): spKt/V under its target in red, under the aim in amber; URR under its target in red. */
const KTV_LIMITS = [
  { below: 1.2, tone: "danger" },
  { below: 1.4, tone: "warning" },
];
const KTV_RULES = KTV_LIMITS.map((rule) => ({ column: "ktv", ...rule }));
const URR_RULES = [{ column: "urr", below: 65, tone: "danger" }];
/** A share of patients on target: amber under 80 %, green from 90 %. */
const SHARE_RULES = [
  { below: 80, tone: "warning" },
  { above: 90, tone: "ok" },
];
/** Out of target in amber (Hb under 100 g/L in red): Hb 110–130 g/L, P 1.13–1.78 mmol/L, Ca 2.10–2.50 mmol/L, iPTH 150–600 pg/mL. */
const ANEMIA_MINERAL_RULES = [
  { column: "hb", below: 100, tone: "danger" },
  { column: "hb", below: 110, tone: "warning" },
  { column: "hb", above: 130, tone: "warning" },
  { column: "p", below: 1.13, tone: "warning" },
  { column: "p", above: 1.78, tone: "warning" },
  { column: "ca", below: 2.1, tone: "warning" },
  { column: "ca", above: 2.5, tone: "warning" },
  { column: "ipth", below: 150, tone: "warning" },
  { column: "ipth", above: 600, tone: "warning" },
];

/**
 * What a reader sees for a column, in place of its SQL name (issue #34 item 11): a table's column
 * with its heading and unit, and the names of a chart's series.
 */
type Words = string | { zh: string; en: string };
/** A table column with its heading (and unit); `format` fixes its decimals (issue #54: one column, one number of decimals). */
const column = (name: string, label: Words, unit?: string, format?: string) => ({
  column: name,
  label,
  ...(unit ? { unit } : {}),
  ...(format ? { format } : {}),
});
const MONTH = column("month", t("月份", "Month"), undefined, "month");
const WARD = column("ward", t("病区", "Ward"));
const PATIENTS = column("patients", t("患者数", "Patients"), undefined, "number:0");
const KTV = column("ktv", "spKt/V", undefined, "number:2");
const URR = column("urr", "URR", "%", "number:1");
const KTV_ON_TARGET = column("ktv_on_target_pct", "spKt/V ≥ 1.2", "%", "number:1");
const URR_ON_TARGET = column("urr_on_target_pct", "URR ≥ 65", "%", "number:1");
const PATIENT = [column("patient_ref", t("患者编号", "Patient")), column("name", t("姓名", "Name")), WARD];
const ADEQUACY_SERIES: Record<string, Words> = {
  ktv: "spKt/V",
  urr: "URR",
  ktv_on_target_pct: "spKt/V ≥ 1.2",
  urr_on_target_pct: "URR ≥ 65 %",
};
/** A chart's `labels`: the names of the series it plots. */
const seriesLabels = (names: Record<string, Words>, ...plotted: string[]) =>
  Object.fromEntries(plotted.map((name) => [name, names[name]!]));

const HB = column("hb", "Hb", "g/L", "number:1");
const P = column("p", "P", "mmol/L", "number:2");
const CA = column("ca", "Ca", "mmol/L", "number:2");
const IPTH = column("ipth", "iPTH", "pg/mL", "number:0");
const IN_TARGET = [
  column("hb_in_target_pct", "Hb 110–130", "%", "number:1"),
  column("p_in_target_pct", "P 1.13–1.78", "%", "number:1"),
  column("ca_in_target_pct", "Ca 2.10–2.50", "%", "number:1"),
  column("ipth_in_target_pct", "iPTH 150–600", "%", "number:1"),
];
const MINERAL_SERIES: Record<string, Words> = {
  hb: "Hb",
  p: "P",
  ca: "Ca",
  ipth: "iPTH",
  ...Object.fromEntries(IN_TARGET.map(({ column, label }) => [column, label])),
};

/** Average of an item's results over the summary rows grouped, rounded. */
const average = (code: string, digits: number) =>
  `round(sum(value_sum) filter (where std_code = '${code}') / sum(results) filter (where std_code = '${code}'), ${digits})`;

/** Share of an item's results within its clinical target (std_targets), in %. */
const withinTarget = (code: string) =>
  `round(100.0 * sum(in_target) filter (where std_code = '${code}') / sum(results) filter (where std_code = '${code}'), 1)`;

export function adequacyReport(period: [string, string]): DemoReport {
  // A month's (or a ward's month's) figures, over its rows of monthly_results.
  const figures = `sum(patients) filter (where std_code = 'KTV') as patients,
                   ${average("KTV", 2)} as ktv, ${average("URR", 1)} as urr,
                   ${withinTarget("KTV")} as ktv_on_target_pct, ${withinTarget("URR")} as urr_on_target_pct`;
  return {
    id: ADEQUACY_REPORT_ID,
    title: "Dialysis adequacy",
    datasource: "clinical",
    spec: {
      version: 1,
      title: t("透析充分性", "Dialysis adequacy"),
      description: t(
        "每月透析评估的单室 Kt/V（spKt/V）与尿素下降率（URR），按月份与病区统计。",
        "Single-pool Kt/V and urea reduction ratio (URR) of the monthly dialysis panel, by month and ward.",
      ),
      params: commonParams(period),
      queries: {
        wardList: { sql: WARD_LIST },
        latest: {
          sql: `with latest as (${latestInPeriod(["KTV", "URR"])})
                select count(distinct patient_ref) as patients,
                       round(avg(std_value) filter (where std_code = 'KTV')::numeric, 2) as ktv,
                       round(100.0 * avg(case when std_value >= 1.2 then 1 else 0 end) filter (where std_code = 'KTV'), 1) as ktv_on_target_pct,
                       round(100.0 * avg(case when std_value >= 65 then 1 else 0 end) filter (where std_code = 'URR'), 1) as urr_on_target_pct
                from latest`,
        },
        monthly: {
          sql: `select month, ${figures}
                from monthly_results
                where std_code in ('KTV', 'URR') ${MONTH_FILTERS}
                group by month
                order by month`,
        },
        byWard: {
          sql: `select ward,
                       round(sum(patients) filter (where std_code = 'KTV')::numeric / nullif(count(distinct month) filter (where std_code = 'KTV'), 0), 0) as patients_per_month,
                       ${average("KTV", 2)} as ktv,
                       ${average("URR", 1)} as urr,
                       ${withinTarget("KTV")} as ktv_on_target_pct
                from monthly_results
                where std_code in ('KTV', 'URR') and ward is not null ${MONTH_FILTERS}
                group by ward
                order by ward`,
        },
        byMonthAndWard: {
          sql: `select month, ward, ${figures}
                from monthly_results
                where std_code in ('KTV', 'URR') and ward is not null ${MONTH_FILTERS}
                group by month, ward
                order by month, ward`,
        },
      },
      nodes: [
        {
          id: "intro",
          type: "text",
          markdown: t(
            [
              "## 透析充分性",
              "",
              "每月的**单室 Kt/V**（spKt/V，按透析前后尿素以第二代公式计算）与 **URR**（尿素下降率）。",
              "",
              "目标：spKt/V **≥ 1.2**（理想 1.4），URR **≥ 65 %**（理想 70 %）。",
              "统计卡片按每位患者在所选时间段内的最新结果计算。",
              "表格中 spKt/V 低于 1.2、URR 低于 65 % 标为红色，spKt/V 低于理想值 1.4 标为黄色。",
            ].join("\n"),
            [
              "## Dialysis adequacy",
              "",
              "Monthly **single-pool Kt/V** (Daugirdas second generation, from pre- and post-dialysis urea) and **URR**.",
              "",
              "Targets: spKt/V **≥ 1.2** (aim 1.4) and URR **≥ 65 %** (aim 70 %).",
              "The tiles count each patient's latest result in the period.",
              "In the tables, spKt/V under 1.2 and URR under 65 % are marked red, spKt/V under the aim of 1.4 amber.",
            ].join("\n"),
          ),
        },
        // On screen only: a Word file or a printout has nothing to click.
        {
          id: "howTo",
          type: "text",
          markdown: t(
            "点击图表或表格中的月份，列出该月的患者（spKt/V 由低到高）。",
            "Click a month in a chart or a table to list its patients, lowest spKt/V first.",
          ),
          print: false,
        },
        { id: "patients", type: "stat", title: t("患者数", "Patients"), query: "latest", column: "patients", width: 3 },
        {
          id: "ktv",
          type: "stat",
          title: t("平均 spKt/V（最新）", "Average spKt/V (latest)"),
          query: "latest",
          column: "ktv",
          highlight: KTV_LIMITS,
          width: 3,
        },
        {
          id: "ktvTarget",
          type: "stat",
          title: "spKt/V ≥ 1.2",
          query: "latest",
          column: "ktv_on_target_pct",
          unit: "%",
          highlight: SHARE_RULES,
          width: 3,
        },
        {
          id: "urrTarget",
          type: "stat",
          title: "URR ≥ 65 %",
          query: "latest",
          column: "urr_on_target_pct",
          unit: "%",
          highlight: SHARE_RULES,
          width: 3,
        },
        {
          id: "trend",
          type: "chart",
          chart: "line",
          title: t("每月平均 spKt/V 与 URR", "Average spKt/V and URR by month"),
          query: "monthly",
          x: "month",
          y: ["ktv"],
          y2: ["urr"],
          yLabel: "spKt/V",
          y2Label: "URR (%)",
          labels: seriesLabels(ADEQUACY_SERIES, "ktv", "urr"),
          refLines: [{ value: 1.2, label: t("spKt/V 目标 1.2", "spKt/V target 1.2") }],
          width: 6,
          drill: { target: "byMonth", args: { month: "month" } },
        },
        {
          id: "onTarget",
          type: "chart",
          chart: "line",
          title: t("每月达标患者比例（%）", "Patients on target by month (%)"),
          query: "monthly",
          x: "month",
          y: ["ktv_on_target_pct", "urr_on_target_pct"],
          labels: seriesLabels(ADEQUACY_SERIES, "ktv_on_target_pct", "urr_on_target_pct"),
          width: 6,
          drill: { target: "byMonth", args: { month: "month" } },
        },
        {
          id: "wards",
          type: "chart",
          chart: "bar",
          title: t("各病区 spKt/V 与 URR", "spKt/V and URR by ward"),
          query: "byWard",
          x: "ward",
          y: ["ktv"],
          y2: ["urr"],
          yLabel: "spKt/V",
          y2Label: "URR (%)",
          labels: seriesLabels(ADEQUACY_SERIES, "ktv", "urr"),
          refLines: [{ value: 1.2, label: t("目标 1.2", "target 1.2") }],
          width: 6,
        },
        {
          id: "wardTable",
          type: "table",
          title: t("按病区", "By ward"),
          query: "byWard",
          columns: [
            WARD,
            column("patients_per_month", t("每月患者数", "Patients a month"), undefined, "number:0"),
            KTV,
            URR,
            KTV_ON_TARGET,
          ],
          highlight: [
            ...KTV_RULES,
            ...URR_RULES,
            ...SHARE_RULES.map((rule) => ({ column: "ktv_on_target_pct", ...rule })),
          ],
          width: 6,
        },
        {
          id: "monthlyTable",
          type: "table",
          title: t("按月份", "By month"),
          query: "monthly",
          columns: [MONTH, PATIENTS, KTV, URR, KTV_ON_TARGET, URR_ON_TARGET],
          highlight: [...KTV_RULES, ...URR_RULES],
          drill: { target: "byMonth", args: { month: "month" } },
        },
        {
          id: "detail",
          type: "table",
          title: t("按月份与病区", "By month and ward"),
          query: "byMonthAndWard",
          columns: [MONTH, WARD, PATIENTS, KTV, URR, KTV_ON_TARGET, URR_ON_TARGET],
          highlight: [...KTV_RULES, ...URR_RULES],
          drill: { target: "byMonth", args: { month: "month" } },
        },
      ],
      drills: {
        byMonth: {
          title: t("{month:month} 的患者", "Patients in {month:month}"),
          args: [{ name: "month", type: "date" }],
          queries: {
            patients: {
              sql: `select r.patient_ref, p.name, r.ward,
                           round(avg(r.std_value) filter (where r.std_code = 'KTV')::numeric, 2) as ktv,
                           round(avg(r.std_value) filter (where r.std_code = 'URR')::numeric, 1) as urr,
                           min(r.collected_at)::date as collected_on
                    from lab_results r
                    join patients p on p.patient_ref = r.patient_ref
                    where r.std_code in ('KTV', 'URR') and r.std_value is not null
                      and ${IN_MONTH}
                      [[and r.ward = any({{wards}})]]
                    group by r.patient_ref, p.name, r.ward
                    order by ktv nulls first, r.patient_ref`,
            },
          },
          nodes: [
            {
              id: "patients",
              type: "table",
              title: t("患者（spKt/V 由低到高）", "Patients, lowest spKt/V first"),
              query: "patients",
              columns: [...PATIENT, KTV, URR, column("collected_on", t("采样日期", "Collected on"), undefined, "date")],
              highlight: [...KTV_RULES, ...URR_RULES],
            },
          ],
        },
      },
      export: { xlsx: true, docx: true },
    },
  };
}

export function anemiaMineralReport(period: [string, string]): DemoReport {
  // 1 when the value is within its item's target, 0 outside; null for other items.
  const inTarget = (code: string, low: number, high: number) =>
    `round(100.0 * avg(case when std_value between ${low} and ${high} then 1 else 0 end) filter (where std_code = '${code}'), 1)`;
  const items = "std_code in ('HGB', 'P', 'CA', 'IPTH')";
  return {
    id: ANEMIA_REPORT_ID,
    title: "Anemia and mineral metabolism",
    datasource: "clinical",
    spec: {
      version: 1,
      title: t("贫血与矿物质代谢", "Anemia and mineral metabolism"),
      description: t(
        "血红蛋白、磷、钙与全段甲状旁腺激素（iPTH）的达标情况，按月份统计。",
        "Hemoglobin, phosphorus, calcium and iPTH against their targets, by month.",
      ),
      params: commonParams(period),
      queries: {
        wardList: { sql: WARD_LIST },
        latest: {
          sql: `with latest as (${latestInPeriod(["HGB", "P", "CA", "IPTH"])})
                select count(distinct patient_ref) as patients,
                       ${inTarget("HGB", 110, 130)} as hb_in_target_pct,
                       ${inTarget("P", 1.13, 1.78)} as p_in_target_pct,
                       ${inTarget("CA", 2.1, 2.5)} as ca_in_target_pct,
                       ${inTarget("IPTH", 150, 600)} as ipth_in_target_pct
                from latest`,
        },
        monthly: {
          sql: `select month,
                       greatest(sum(patients) filter (where std_code = 'HGB'), sum(patients) filter (where std_code = 'P'),
                                sum(patients) filter (where std_code = 'CA'), sum(patients) filter (where std_code = 'IPTH')) as patients,
                       ${average("HGB", 1)} as hb,
                       ${average("P", 2)} as p,
                       ${average("CA", 2)} as ca,
                       ${average("IPTH", 0)} as ipth,
                       ${withinTarget("HGB")} as hb_in_target_pct,
                       ${withinTarget("P")} as p_in_target_pct,
                       ${withinTarget("CA")} as ca_in_target_pct,
                       ${withinTarget("IPTH")} as ipth_in_target_pct
                from monthly_results
                where ${items} ${MONTH_FILTERS}
                group by month
                order by month`,
        },
        byWard: {
          sql: `select ward,
                       round(sum(patients) filter (where std_code = 'HGB')::numeric / nullif(count(distinct month) filter (where std_code = 'HGB'), 0), 0) as patients_per_month,
                       ${withinTarget("HGB")} as hb_in_target_pct,
                       ${withinTarget("P")} as p_in_target_pct,
                       ${withinTarget("CA")} as ca_in_target_pct,
                       ${withinTarget("IPTH")} as ipth_in_target_pct
                from monthly_results
                where ${items} and ward is not null ${MONTH_FILTERS}
                group by ward
                order by ward`,
        },
      },
      nodes: [
        {
          id: "intro",
          type: "text",
          markdown: t(
            [
              "## 贫血与矿物质代谢",
              "",
              "| 项目 | 目标 |",
              "|---|---|",
              "| 血红蛋白（Hb） | 110–130 g/L |",
              "| 磷（P） | 1.13–1.78 mmol/L |",
              "| 钙（Ca） | 2.10–2.50 mmol/L |",
              "| 全段甲状旁腺激素（iPTH） | 150–600 pg/mL（KDIGO：正常上限的 2–9 倍） |",
              "",
              "以 g/dL 发送的 Hb 已换算为 g/L。统计卡片按每位患者在所选时间段内的最新结果计算。",
              "表格中未达标的数值标为黄色，Hb 低于 100 g/L 标为红色。",
            ].join("\n"),
            [
              "## Anemia and mineral metabolism",
              "",
              "| Item | Target |",
              "|---|---|",
              "| Hemoglobin (Hb) | 110–130 g/L |",
              "| Phosphorus (P) | 1.13–1.78 mmol/L |",
              "| Calcium (Ca) | 2.10–2.50 mmol/L |",
              "| Intact PTH (iPTH) | 150–600 pg/mL (KDIGO: 2–9 × upper normal) |",
              "",
              "Hb sent in g/dL is converted to g/L. The tiles count each patient's latest result in the period.",
              "Values out of target are marked amber in the tables, Hb under 100 g/L red.",
            ].join("\n"),
          ),
        },
        {
          id: "howTo",
          type: "text",
          markdown: t(
            "点击图表或表格中的月份，列出该月有未达标结果的患者。",
            "Click a month in a chart or a table to list the patients with a result out of target.",
          ),
          print: false,
        },
        {
          id: "hbTarget",
          type: "stat",
          title: "Hb 110–130 g/L",
          query: "latest",
          column: "hb_in_target_pct",
          unit: "%",
          width: 3,
        },
        {
          id: "pTarget",
          type: "stat",
          title: "P 1.13–1.78 mmol/L",
          query: "latest",
          column: "p_in_target_pct",
          unit: "%",
          width: 3,
        },
        {
          id: "caTarget",
          type: "stat",
          title: "Ca 2.10–2.50 mmol/L",
          query: "latest",
          column: "ca_in_target_pct",
          unit: "%",
          width: 3,
        },
        {
          id: "ipthTarget",
          type: "stat",
          title: "iPTH 150–600 pg/mL",
          query: "latest",
          column: "ipth_in_target_pct",
          unit: "%",
          width: 3,
        },
        {
          id: "inTarget",
          type: "chart",
          chart: "line",
          title: t("每月达标结果比例（%）", "Results within target by month (%)"),
          query: "monthly",
          x: "month",
          y: ["hb_in_target_pct", "p_in_target_pct", "ca_in_target_pct", "ipth_in_target_pct"],
          labels: seriesLabels(
            MINERAL_SERIES,
            "hb_in_target_pct",
            "p_in_target_pct",
            "ca_in_target_pct",
            "ipth_in_target_pct",
          ),
          drill: { target: "outOfTarget", args: { month: "month" } },
        },
        {
          id: "hb",
          type: "chart",
          chart: "line",
          title: t("每月平均 Hb（g/L）", "Average Hb by month (g/L)"),
          query: "monthly",
          x: "month",
          y: ["hb"],
          yLabel: "g/L",
          labels: seriesLabels(MINERAL_SERIES, "hb"),
          refLines: [
            { value: 110, label: "110" },
            { value: 130, label: "130" },
          ],
          width: 4,
          drill: { target: "outOfTarget", args: { month: "month" } },
        },
        {
          id: "pca",
          type: "chart",
          chart: "line",
          title: t("每月平均 P 与 Ca（mmol/L）", "Average P and Ca by month (mmol/L)"),
          query: "monthly",
          x: "month",
          y: ["p", "ca"],
          yLabel: "mmol/L",
          labels: seriesLabels(MINERAL_SERIES, "p", "ca"),
          width: 4,
          drill: { target: "outOfTarget", args: { month: "month" } },
        },
        {
          id: "ipth",
          type: "chart",
          chart: "bar",
          title: t("每月平均 iPTH（pg/mL）", "Average iPTH by month (pg/mL)"),
          query: "monthly",
          x: "month",
          y: ["ipth"],
          yLabel: "pg/mL",
          labels: seriesLabels(MINERAL_SERIES, "ipth"),
          refLines: [
            { value: 150, label: "150" },
            { value: 600, label: "600" },
          ],
          width: 4,
          drill: { target: "outOfTarget", args: { month: "month" } },
        },
        {
          id: "wards",
          type: "chart",
          chart: "bar",
          title: t("各病区达标比例（%）", "Within target by ward (%)"),
          query: "byWard",
          x: "ward",
          y: ["hb_in_target_pct", "p_in_target_pct", "ca_in_target_pct", "ipth_in_target_pct"],
          labels: seriesLabels(
            MINERAL_SERIES,
            "hb_in_target_pct",
            "p_in_target_pct",
            "ca_in_target_pct",
            "ipth_in_target_pct",
          ),
        },
        {
          id: "monthlyTable",
          type: "table",
          title: t("按月份", "By month"),
          query: "monthly",
          columns: [MONTH, PATIENTS, HB, P, CA, IPTH, ...IN_TARGET],
          highlight: ANEMIA_MINERAL_RULES,
          drill: { target: "outOfTarget", args: { month: "month" } },
        },
      ],
      drills: {
        outOfTarget: {
          title: t("{month:month} 未达标的患者", "Patients out of target in {month:month}"),
          args: [{ name: "month", type: "date" }],
          queries: {
            patients: {
              sql: `with m as (
                      select r.patient_ref, r.ward,
                             avg(r.std_value) filter (where r.std_code = 'HGB') as hb,
                             avg(r.std_value) filter (where r.std_code = 'P') as p,
                             avg(r.std_value) filter (where r.std_code = 'CA') as ca,
                             avg(r.std_value) filter (where r.std_code = 'IPTH') as ipth
                      from lab_results r
                      where r.std_code in ('HGB', 'P', 'CA', 'IPTH') and r.patient_ref is not null and r.std_value is not null
                        and ${IN_MONTH}
                        [[and r.ward = any({{wards}})]]
                      group by r.patient_ref, r.ward
                    )
                    select m.patient_ref, p.name, m.ward,
                           round(m.hb::numeric, 0) as hb, round(m.p::numeric, 2) as p, round(m.ca::numeric, 2) as ca, round(m.ipth::numeric, 0) as ipth,
                           -- ↓ under, ↑ over the target: the same in every language.
                           concat_ws(', ',
                             case when m.hb < 110 then 'Hb ↓' when m.hb > 130 then 'Hb ↑' end,
                             case when m.p < 1.13 then 'P ↓' when m.p > 1.78 then 'P ↑' end,
                             case when m.ca < 2.1 then 'Ca ↓' when m.ca > 2.5 then 'Ca ↑' end,
                             case when m.ipth < 150 then 'iPTH ↓' when m.ipth > 600 then 'iPTH ↑' end) as out_of_target
                    from m
                    join patients p on p.patient_ref = m.patient_ref
                    where m.hb not between 110 and 130 or m.p not between 1.13 and 1.78
                       or m.ca not between 2.1 and 2.5 or m.ipth not between 150 and 600
                    order by m.ward, m.patient_ref`,
            },
          },
          nodes: [
            {
              id: "patients",
              type: "table",
              title: t("未达标的患者", "Patients out of target"),
              query: "patients",
              columns: [
                ...PATIENT,
                column("hb", "Hb", "g/L", "number:0"),
                P,
                CA,
                IPTH,
                column("out_of_target", t("未达标项目", "Out of target")),
              ],
              highlight: ANEMIA_MINERAL_RULES,
            },
          ],
        },
      },
      export: { xlsx: true, docx: true },
    },
  };
}

/** Both demo reports, their period filter defaulting to `period`. */
export function demoReports(period: [string, string]): DemoReport[] {
  return [adequacyReport(period), anemiaMineralReport(period)];
}
