import type { Bundle, MeasureReport } from "fhir/r4.js";
import { CommandError } from "../../../commands/kit/commandError.ts";
import { localIsoDateTime } from "../../../db/localDateTime.ts";
import type { MonthAnswer } from "../../../queries/quality/months.ts";
import { currentMonth, FIRST_MONTH, isAnswerableMonth } from "../../quality/qualityParams.ts";
import { withServiceZone } from "./fhirResources.ts";

/*
 * GET /fhir/r4/MeasureReport?period=yyyy-MM (contract G.2): a month's quality figures as FHIR
 * summary MeasureReports, one an indicator, from the same answer as GET /api/quality/months (a
 * closed month's frozen figures, else the figures counted now). Counts only: no patient is named.
 */

export const MEASURE_POPULATION_SYSTEM = "http://terminology.hl7.org/CodeSystem/measure-population";
/** A ward as a MeasureReport's subject names it: a Location known by this identifier (decision 0081). */
export const WARD_SYSTEM = "urn:dialysis-hub:ward";

type Query = Record<string, string | string[] | undefined>;

/** The month a search asks for, or 400 saying how to ask. */
export function measureReportPeriod(query: Query): string {
  const unknown = Object.keys(query).filter((name) => name !== "period");
  if (unknown.length > 0)
    throw new CommandError(
      "invalid",
      `Unknown search parameter ${unknown.join(", ")}: MeasureReport is searched by period=yyyy-MM alone.`,
    );
  const period = query.period;
  if (typeof period !== "string" || !isAnswerableMonth(period))
    throw new CommandError(
      "invalid",
      `Send period=yyyy-MM once: a month in the service's time zone from ${FIRST_MONTH} to the current one ` +
        `(e.g. period=${currentMonth()})` +
        (period === undefined ? "." : `; ${JSON.stringify([period].flat().join("&").slice(0, 20))} is not one.`),
    );
  return period;
}

/** The month's first and last second in the service's time zone, with its offset at each. */
export function monthPeriod(month: string): { start: string; end: string } {
  const [year, number] = month.split("-").map(Number) as [number, number];
  const lastDay = new Date(year, number, 0).getDate();
  return { start: withServiceZone(`${month}-01T00:00:00`), end: withServiceZone(`${month}-${lastDay}T23:59:59`) };
}

const population = (code: "numerator" | "denominator", count: number) => ({
  code: {
    coding: [{ system: MEASURE_POPULATION_SYSTEM, code, display: code === "numerator" ? "Numerator" : "Denominator" }],
  },
  count,
});

/**
 * One summary MeasureReport per indicator of a month's answer; `measureBase` is
 * `<PUBLIC_URL>/fhir/r4/Measure`. A ward's reports name it as their subject; the whole tenant's
 * have none. `date` is when the figures were frozen, or `now` for an open month's.
 */
export function measureReports(answer: MonthAnswer, measureBase: string, now: Date): MeasureReport[] {
  const date = withServiceZone(answer.closedAt ?? localIsoDateTime(now));
  return answer.indicators.map(({ code, version, numerator, denominator, rate }) => ({
    resourceType: "MeasureReport",
    status: "complete",
    type: "summary",
    measure: `${measureBase}/${code}|${version}`,
    ...(answer.ward === null
      ? {}
      : {
          subject: {
            type: "Location",
            identifier: { system: WARD_SYSTEM, value: answer.ward },
            display: answer.ward,
          },
        }),
    date,
    period: monthPeriod(answer.month),
    group: [
      {
        population: [population("numerator", numerator), population("denominator", denominator)],
        ...(rate === null ? {} : { measureScore: { value: rate } }),
      },
    ],
  }));
}

/** The searchset of a month's reports. */
export function measureReportBundle(reports: MeasureReport[], selfUrl: string): Bundle {
  return {
    resourceType: "Bundle",
    type: "searchset",
    total: reports.length,
    link: [{ relation: "self", url: selfUrl }],
    entry: reports.map((resource) => ({ resource, search: { mode: "match" as const } })),
  };
}
