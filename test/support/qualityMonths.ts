import { expect } from "chai";
import { localDateTime } from "../../db/localDateTime.ts";
import { makeIdCard } from "../../src/demo/demoData.ts";
import { ADMIN } from "./http.ts";
import { labReport, LI_SI, monthsAgo, ZHANG_SAN, type IngestionTenant } from "./ingestion.ts";
import { projectionsCaughtUp } from "./storedReports.ts";

/*
 * Two months of quality figures over three wards' worth of patients, for the readers of a month
 * beside GET /api/quality/months (clinical.quality_months, FHIR MeasureReport): what they show
 * must be what the API answers.
 */

/** yyyy-MM of the month `months` before this one. */
export const monthAgo = (months: number) => localDateTime(monthsAgo(months)).slice(0, 7);
/** Two months ago: ended, so it may be closed. */
export const CLOSED_MONTH = monthAgo(2);
/** Last month, left open. */
export const OPEN_MONTH = monthAgo(1);

const WANG_WU = { name: "王五", idCard: "110105200002290013" };
const ZHAO_LIU = { name: "赵六", idCard: makeIdCard("110105", "19580302", 61) };

/** `day` at `hour` of the month `months` before this one, as a report writes it. */
const at = (months: number, day: number, hour = 7) =>
  localDateTime(new Date(monthsAgo(months, day).setHours(hour, 0, 0, 0)));
const qualitative = (itemCode: string) => ({ itemCode, value: "阴性", resultType: "QUALITATIVE" });
const numeric = (itemCode: string, value: number, unit: string) => ({ itemCode, value, unit });

function collected(externalId: string, patient: object, months: number, day: number, items: object[]) {
  return labReport(externalId, { patient, collectedAt: at(months, day), reportedAt: at(months, day, 9), items });
}

/**
 * 张三 (P001, ward A): two months ago a whole panel on the 5th, Hb 120 and a calcium without albumin
 * on the 20th; last month Hb 140. 李四 (P002, ward B): two months ago Hb, albumin, calcium and
 * phosphate (iPTH four months ago). 赵六 (P004, no ward): two months ago Hb 125, Kt/V 1.1, a calcium
 * of 2.05 corrected to 2.25 by his albumin of 30. 王五 (P003, ward A): last month Hb 111, albumin 36.
 */
function reports() {
  return [
    collected("QF-1", ZHANG_SAN, 2, 5, [
      numeric("HGB", 105, "g/L"),
      numeric("ALB", 38, "g/L"),
      numeric("CA", 2.3, "mmol/L"),
      numeric("P", 1.5, "mmol/L"),
      numeric("KTV", 1.3, ""),
      numeric("UREA_PRE", 25, "mmol/L"),
      numeric("UREA_POST", 8, "mmol/L"),
      numeric("IPTH", 300, "pg/mL"),
      qualitative("HBSAG"),
      qualitative("HCVAB"),
      qualitative("TPAB"),
      qualitative("HIV"),
    ]),
    collected("QF-2", ZHANG_SAN, 2, 20, [numeric("HGB", 120, "g/L"), numeric("CA", 2.0, "mmol/L")]),
    collected("QF-3", LI_SI, 2, 10, [
      numeric("HGB", 100, "g/L"),
      numeric("ALB", 30, "g/L"),
      numeric("CA", 2.2, "mmol/L"),
      numeric("P", 2.0, "mmol/L"),
    ]),
    collected("QF-4", LI_SI, 4, 12, [numeric("IPTH", 700, "pg/mL")]),
    collected("QF-5", ZHAO_LIU, 2, 8, [
      numeric("HGB", 125, "g/L"),
      numeric("KTV", 1.1, ""),
      numeric("CA", 2.05, "mmol/L"),
      numeric("ALB", 30, "g/L"),
    ]),
    collected("QF-6", WANG_WU, 1, 3, [numeric("HGB", 111, "g/L"), numeric("ALB", 36, "g/L")]),
    collected("QF-7", ZHANG_SAN, 1, 4, [numeric("HGB", 140, "g/L")]),
  ];
}

/** 王五's haemoglobin of two months ago, sent after ward A's month was closed: ward A's figures now differ from the frozen ones. */
export const LATE_REPORT = () => collected("QF-LATE", WANG_WU, 2, 25, [numeric("HGB", 90, "g/L")]);

/**
 * Registers the patients, pushes the two months' reports, closes CLOSED_MONTH for ward A, then
 * pushes LATE_REPORT; waits for the projections.
 */
export async function twoMonthsOfFigures(tenant: IngestionTenant, serviceUrl: string): Promise<void> {
  for (const [ref, patient, ward] of [
    ["P002", LI_SI, "B"],
    ["P003", WANG_WU, "A"],
    ["P004", ZHAO_LIU, null],
  ] as const) {
    const saved = await tenant.call("PUT", `/api/patients/${ref}`, {
      token: tenant.authorToken,
      body: { ...patient, ward },
    });
    expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
  }
  expect((await tenant.push("lab", reports())).status).to.equal(200);
  await projectionsCaughtUp(serviceUrl);
  const closed = await tenant.call("POST", `/api/quality/months/${CLOSED_MONTH}/close`, {
    token: ADMIN,
    body: { ward: "A" },
  });
  expect(closed.status, JSON.stringify(closed.body)).to.equal(201);
  expect((await tenant.push("lab", [LATE_REPORT()])).status).to.equal(200);
  await projectionsCaughtUp(serviceUrl);
}

/** An indicator's figures as the month's answer gives them, without its patients. */
export interface Figures {
  code: string;
  version: number;
  numerator: number;
  denominator: number;
  rate: number | null;
}

/** GET /api/quality/months/{month}?ward= (200 expected): its state and figures. */
export async function monthFromApi(
  tenant: IngestionTenant,
  month: string,
  ward: string | null,
  token = tenant.authorToken,
): Promise<{ state: string; figures: Figures[] }> {
  const answer = await tenant.call("GET", `/api/quality/months/${month}${ward === null ? "" : `?ward=${ward}`}`, {
    token,
  });
  expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
  return {
    state: answer.body.state,
    figures: (answer.body.indicators as Figures[]).map(({ code, version, numerator, denominator, rate }) => ({
      code,
      version,
      numerator,
      denominator,
      rate,
    })),
  };
}
