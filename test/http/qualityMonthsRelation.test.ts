import { expect } from "chai";
import { ADMIN } from "../support/http.ts";
import { labReport, LI_SI, useIngestionService } from "../support/ingestion.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";
import {
  CLOSED_MONTH,
  monthAgo,
  monthFromApi,
  OPEN_MONTH,
  twoMonthsOfFigures,
  type Figures,
} from "../support/qualityMonths.ts";
import { tableReportSpec } from "../support/reports.ts";

/*
 * Contract G.2's clinical.quality_months: a month's figures in report SQL, read through the report
 * data API, are the figures GET /api/quality/months answers (a closed month's frozen ones, an open
 * month's counted now), of the whole tenant and of each ward; a caller of one ward sees its rows
 * alone (G.1, decision 0081).
 */
describe("clinical.quality_months: the month's quality figures in report SQL", function () {
  this.timeout(90_000);
  const hub = useIngestionService();
  const SQL =
    "select month, ward, code, version, numerator, denominator, rate, state from quality_months order by month, ward nulls first, code";
  let wardA: string;

  type Row = [string, string | null, string, number, number, number, number | null, string];
  const rowsOf = async (reportId: string, token?: string): Promise<Row[]> => {
    const data = await hub.tenant.call("POST", `/api/reports/${reportId}/data`, { token, body: {} });
    expect(data.status, JSON.stringify(data.body)).to.equal(200);
    expect(data.body.queries.months, JSON.stringify(data.body)).to.have.property("rows");
    return data.body.queries.months.rows as Row[];
  };
  const figuresOf = (rows: Row[]): Figures[] =>
    rows.map(([, , code, version, numerator, denominator, rate]) => ({ code, version, numerator, denominator, rate }));
  const byCode = (figures: Figures[]) => [...figures].sort((a, b) => a.code.localeCompare(b.code));

  before(async () => {
    await twoMonthsOfFigures(hub.tenant, hub.service.url!);
    const { call, authorToken } = hub.tenant;
    for (const [id, datasource] of [
      ["quality-months", "clinical"],
      ["quality-months-research", "research"],
    ] as const) {
      const saved = await call("PUT", `/api/reports/${id}/draft`, {
        token: authorToken,
        body: { datasource, spec: tableReportSpec(id, { months: SQL }) },
      });
      expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
      const published = await call("POST", `/api/reports/${id}/publish`, {
        token: authorToken,
        body: { mode: "dynamic", note: "" },
      });
      expect(published.status, JSON.stringify(published.body)).to.equal(201);
    }
    const made = await call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: "Nurse of A", tenant: "h1", roles: ["clinician"], wards: ["A"] },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    wardA = made.body.token;
  });

  it("answers each month of the tenant and of each ward as GET /api/quality/months does, closed as frozen, open as now", async () => {
    const every = await rowsOf("quality-months");
    for (const month of [monthAgo(4), CLOSED_MONTH, OPEN_MONTH])
      for (const ward of [null, "A", "B"]) {
        const rows = every.filter((row) => row[0] === month && row[1] === ward);
        const api = await monthFromApi(hub.tenant, month, ward);
        const scope = `${month} ${ward ?? "whole tenant"}`;
        if ((month === OPEN_MONTH && ward === "B") || (month === monthAgo(4) && ward === "A")) {
          // No patient of the ward was under care in the month: no rows, where the API counts 0 of 0.
          expect(rows, scope).to.deep.equal([]);
          expect(api.figures.every((figure) => figure.denominator === 0)).to.equal(true);
          continue;
        }
        expect(
          rows.map((row) => row[7]).every((state) => state === api.state),
          scope,
        ).to.equal(true);
        expect(byCode(figuresOf(rows)), scope).to.deep.equal(byCode(api.figures));
      }
    expect(
      new Set(every.map((row) => `${row[0]} ${row[1]}`)),
      "the months of the tenant and its wards with a patient under care, nothing of the patient without a ward",
    ).to.deep.equal(
      new Set([
        `${monthAgo(4)} null`,
        `${monthAgo(4)} B`,
        `${CLOSED_MONTH} null`,
        `${CLOSED_MONTH} A`,
        `${CLOSED_MONTH} B`,
        `${OPEN_MONTH} null`,
        `${OPEN_MONTH} A`,
      ]),
    );
    const figure = (month: string, ward: string | null, code: string) =>
      every.find((row) => row[0] === month && row[1] === ward && row[2] === code)!.slice(3);
    // Ward A's month was closed before 王五's late haemoglobin: frozen at 张三 alone, while the whole
    // tenant's month, still open, counts him.
    expect(figure(CLOSED_MONTH, "A", "HGB_TESTED")).to.deep.equal([1, 1, 1, 1, "closed"]);
    expect(figure(CLOSED_MONTH, null, "HGB_TESTED")).to.deep.equal([1, 4, 4, 1, "open"]);
    // Corrected calcium wins its tie with calcium; 张三's later calcium of 2.0 counts as sent.
    expect(figure(CLOSED_MONTH, null, "CA_TARGET")).to.deep.equal([1, 2, 3, 0.6667, "open"]);
    expect(figure(CLOSED_MONTH, null, "CRITICAL_ACK_30MIN")).to.deep.equal([1, 0, 0, null, "open"]);
  });

  it("shows a caller of ward A only ward A's rows: none of ward B, none of the whole tenant", async () => {
    const every = await rowsOf("quality-months");
    const scoped = await rowsOf("quality-months", wardA);
    expect(scoped.length, "14 indicators of two months").to.equal(28);
    expect(scoped).to.deep.equal(every.filter((row) => row[1] === "A"));
  });

  it("offers the same rows on the research source, which has no patient to hide in them", async () => {
    expect(await rowsOf("quality-months-research")).to.deep.equal(await rowsOf("quality-months"));
  });

  it("freezes the whole tenant's month when it is closed: a later result changes the API's restatement, not the rows", async () => {
    const closed = await hub.tenant.call("POST", `/api/quality/months/${CLOSED_MONTH}/close`, {
      token: ADMIN,
      body: {},
    });
    expect(closed.status, JSON.stringify(closed.body)).to.equal(201);
    // 李四's haemoglobin of 120 on the 28th: at target now, not in the closed figures.
    const late = labReport("QF-LATER", {
      patient: LI_SI,
      collectedAt: `${CLOSED_MONTH}-28 07:00:00`,
      reportedAt: `${CLOSED_MONTH}-28 09:00:00`,
      items: [{ itemCode: "HGB", value: 120, unit: "g/L" }],
    });
    expect((await hub.tenant.push("lab", [late])).status).to.equal(200);
    await projectionsCaughtUp(hub.service.url!);
    const restated = await hub.tenant.call("GET", `/api/quality/months/${CLOSED_MONTH}/restatement`, {
      token: hub.tenant.authorToken,
    });
    const hgb = (restated.body.indicators as Array<{ code: string; closed: object; now: object }>).find(
      (indicator) => indicator.code === "HGB_TARGET",
    )!;
    expect([hgb.closed, hgb.now]).to.deep.include.members([
      { version: 1, numerator: 2, denominator: 4, rate: 0.5 },
      { version: 1, numerator: 3, denominator: 4, rate: 0.75 },
    ]);
    const every = await rowsOf("quality-months");
    const tenant = every.filter((row) => row[0] === CLOSED_MONTH && row[1] === null);
    expect(tenant.every((row) => row[7] === "closed")).to.equal(true);
    expect(byCode(figuresOf(tenant))).to.deep.equal(
      byCode((await monthFromApi(hub.tenant, CLOSED_MONTH, null)).figures),
    );
    expect(tenant.find((row) => row[2] === "HGB_TARGET")!.slice(4, 7)).to.deep.equal([2, 4, 0.5]);
    expect(await rowsOf("quality-months", wardA), "no whole-tenant row, closed or open").to.deep.equal(
      every.filter((row) => row[1] === "A"),
    );
  });
});
