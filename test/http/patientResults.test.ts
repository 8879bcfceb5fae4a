import { expect } from "chai";
import { ingestionTenant, labReport, useIngestionService } from "../support/ingestion.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";

/*
 * GET /api/patients/{patientRef}/results (contract D.7): what the patient chart draws. A year of
 * monthly panels for P001, one sent in g/dL, one without a collection time; a corrected report;
 * and another tenant's P001 whose results must not show.
 */

interface Series {
  code: string;
  name: string;
  nameEn: string;
  label: string;
  unit: string;
  refLow: number | null;
  refHigh: number | null;
  target?: { low: number | null; high: number | null; source: string };
  critical?: { low: number | null; high: number | null; source: string };
  points: Array<{ at: string; value: number; flag: string | null; externalId: string }>;
}

const month = (m: number) => String(m).padStart(2, "0");

function monthlyPanel(m: number) {
  return labReport(`CHART-2025-${month(m)}`, {
    collectedAt: `2025-${month(m)}-10 07:30:00`,
    reportedAt: `2025-${month(m)}-10 11:00:00`,
    items: [
      m === 6
        ? { itemCode: "HGB", value: 10.4, unit: "g/dL", refLow: 11.5, refHigh: 15, abnormalFlag: "L" }
        : { itemCode: "HGB", value: 100 + m, unit: "g/L", refLow: 115, refHigh: 150, abnormalFlag: "L" },
      { itemCode: "K", value: 4 + m / 10, unit: "mmol/L", refLow: 3.5, refHigh: 5.3 },
      { itemName: "Kt/V", value: "1.3" },
      { itemCode: "X-LOCAL", value: "阴性", resultType: "QUALITATIVE" },
    ],
  });
}

describe("a patient's results over time (GET /api/patients/{patientRef}/results)", function () {
  this.timeout(60_000);
  const hub = useIngestionService();
  const chart = async (query: string) =>
    hub.tenant.call("GET", `/api/patients/P001/results${query}`, { token: hub.tenant.authorToken });

  before(async () => {
    const reports = [
      ...Array.from({ length: 12 }, (_, m) => monthlyPanel(m + 1)),
      labReport("CHART-NO-COLLECTION", {
        collectedAt: undefined,
        reportedAt: "2026-01-05 09:00:00",
        items: [{ itemCode: "HGB", value: 121, unit: "g/L" }],
      }),
    ];
    expect((await hub.tenant.push("lab", reports)).status).to.equal(200);
    // March corrected: its haemoglobin was 130, not 103.
    const march = monthlyPanel(3);
    const corrected = {
      ...march,
      status: "CORRECTED",
      items: [
        { itemCode: "HGB", value: 130, unit: "g/L", refLow: 115, refHigh: 150, abnormalFlag: "N" },
        ...march.items.slice(1),
      ],
    };
    expect((await hub.tenant.push("lab", [corrected])).status).to.equal(200);
    const other = await ingestionTenant(hub.service, "h2");
    await other.push("lab", [
      labReport("OTHER-TENANT", {
        collectedAt: "2025-05-20 07:00:00",
        reportedAt: "2025-05-20 10:00:00",
        items: [{ itemCode: "HGB", value: 999, unit: "g/L" }],
      }),
    ]);
    await projectionsCaughtUp(hub.service.url!);
  });

  it("answers each asked item's points in the standard unit, oldest first, in the order asked", async () => {
    const answer = await chart("?codes=hgb,KTV&from=2025-01-01&to=2025-12-31");
    expect(answer.status).to.equal(200);
    expect(answer.body.patient).to.deep.include({ patientRef: "P001", name: "张三", idCard: "110105********002X" });
    const [hgb, ktv] = answer.body.series as Series[];
    expect(hgb!.code).to.equal("HGB");
    expect(hgb!.unit).to.equal("g/L");
    expect(hgb!.points.map((point) => point.value)).to.deep.equal([
      101, 102, 130, 104, 105, 104, 107, 108, 109, 110, 111, 112,
    ]);
    expect(hgb!.points[0]).to.deep.equal({
      at: "2025-01-10T07:30:00",
      value: 101,
      flag: "L",
      externalId: "CHART-2025-01",
    });
    expect(hgb!.points[2]!.flag, "the corrected report's flag").to.equal("N");
    expect(ktv!.code).to.equal("KTV");
    expect(ktv!.points).to.have.length(12);
    expect(ktv!.points.every((point) => point.value === 1.3)).to.equal(true);
  });

  it("names each series' item in Chinese, in English and by its short clinical label (#34 item 5)", async () => {
    const series = (await chart("?codes=KTV,HGB,UREA_PRE&from=2025-01-01&to=2025-12-31")).body.series as Series[];
    expect(series.map(({ code, name, nameEn, label }) => ({ code, name, nameEn, label }))).to.deep.equal([
      { code: "KTV", name: "尿素清除指数", nameEn: "Single-pool Kt/V", label: "spKt/V" },
      { code: "HGB", name: "血红蛋白", nameEn: "Hemoglobin", label: "Hb" },
      { code: "UREA_PRE", name: "透析前尿素", nameEn: "Urea, pre-dialysis", label: "Urea (pre)" },
    ]);
  });

  it("gives the reference range of the newest result, the KDIGO target and the critical limits", async () => {
    const [hgb, k] = (await chart("?codes=HGB,K&from=2025-01-01&to=2025-12-31")).body.series as Series[];
    expect(hgb).to.deep.include({ refLow: 115, refHigh: 150 });
    expect(hgb!.target).to.deep.include({ low: 110, high: 130 });
    expect(hgb!.target!.source).to.match(/KDIGO/);
    expect(hgb!.critical).to.deep.include({ low: 50, high: 200 });
    expect(k).to.deep.include({ refLow: 3.5, refHigh: 5.3 });
    expect(k!.target).to.deep.include({ low: 3.5, high: 5.5 });
  });

  it("keeps to the days asked, both included, by when the sample was collected (else reported)", async () => {
    const spring = ((await chart("?codes=HGB&from=2025-03-10&to=2025-05-10")).body.series as Series[])[0]!;
    expect(spring.points.map((point) => point.externalId)).to.deep.equal([
      "CHART-2025-03",
      "CHART-2025-04",
      "CHART-2025-05",
    ]);
    const january = ((await chart("?codes=HGB&from=2026-01-01&to=2026-01-31")).body.series as Series[])[0]!;
    expect(january.points).to.deep.equal([
      { at: "2026-01-05T09:00:00", value: 121, flag: null, externalId: "CHART-NO-COLLECTION" },
    ]);
  });

  it("charts the core items of the last year when nothing is asked, empty series included", async () => {
    const answer = await chart("?to=2026-01-31");
    const codes = (answer.body.series as Series[]).map((series) => series.code);
    expect(codes).to.include.members(["HGB", "KTV", "URR", "P", "CA", "IPTH", "ALB"]);
    expect(codes).to.not.include("K");
    const urr = (answer.body.series as Series[]).find((series) => series.code === "URR")!;
    expect(urr.points).to.deep.equal([]);
    // A year back from 2026-01-31: February 2025 to January 2026.
    const hgb = (answer.body.series as Series[]).find((series) => series.code === "HGB")!;
    expect(hgb.points.map((point) => point.at.slice(0, 7))).to.deep.equal([
      ...Array.from({ length: 11 }, (_, m) => `2025-${month(m + 2)}`),
      "2026-01",
    ]);
  });

  it("shows no other tenant's results, and no patient the tenant does not have", async () => {
    const hgb = ((await chart("?codes=HGB&from=2025-05-01&to=2025-05-31")).body.series as Series[])[0]!;
    expect(hgb.points.map((point) => point.externalId)).to.deep.equal(["CHART-2025-05"]);
    const missing = await hub.tenant.call("GET", "/api/patients/P404/results", { token: hub.tenant.authorToken });
    expect(missing.status).to.equal(404);
    expect(missing.body.error).to.match(/GET \/api\/patients/);
  });

  it("lists the items the chart can draw: the core ones, results or not, then every other item the patient has, with how many and the newest", async () => {
    const answer = await hub.tenant.call("GET", "/api/patients/P001/result-items", { token: hub.tenant.authorToken });
    expect(answer.status).to.equal(200);
    const items = answer.body as Array<{
      code: string;
      name: string;
      unit: string;
      category: string;
      core: boolean;
      results: number;
      lastAt: string | null;
    }>;
    const core = items.filter((item) => item.core).map((item) => item.code);
    expect(core).to.include.members(["HGB", "KTV", "URR", "P", "CA", "IPTH", "ALB"]);
    expect(
      items.findIndex((item) => !item.core),
      "the core items first",
    ).to.equal(core.length);
    expect(items.find((item) => item.code === "URR")).to.deep.include({ results: 0, lastAt: null });
    expect(items.find((item) => item.code === "HGB")).to.deep.include({
      name: "血红蛋白",
      nameEn: "Hemoglobin",
      label: "Hb",
      unit: "g/L",
      core: true,
      results: 13,
      lastAt: "2026-01-05T09:00:00",
    });
    expect(items.find((item) => item.code === "KTV")).to.deep.include({
      name: "尿素清除指数",
      nameEn: "Single-pool Kt/V",
      label: "spKt/V",
    });
    // Potassium is no core item: listed because P001 has twelve results of it, so the chart can offer it.
    expect(items.filter((item) => !item.core)).to.deep.equal([
      {
        code: "K",
        name: "钾",
        nameEn: "Potassium",
        label: "K",
        unit: "mmol/L",
        category: items.find((item) => item.code === "K")!.category,
        core: false,
        results: 12,
        lastAt: "2025-12-10T07:30:00",
      },
    ]);
    // The qualitative local item has no standard value to draw; the other tenant's P001 is not counted.
    expect(items.map((item) => item.code)).to.not.include("X-LOCAL");
    const missing = await hub.tenant.call("GET", "/api/patients/P404/result-items", { token: hub.tenant.authorToken });
    expect(missing.status).to.equal(404);
    expect(
      (await hub.tenant.call("GET", "/api/patients/bad%20ref/result-items", { token: hub.tenant.authorToken })).status,
    ).to.equal(400);
  });

  it("says how to fix a query it cannot chart", async () => {
    for (const [query, says] of [
      ["?codes=HGB,NOPE", /NOPE is not a numeric item/],
      ["?codes=HBSAG", /HBSAG is not a numeric item/],
      ["?from=2025-02-30", /from must be a day written yyyy-MM-dd/],
      ["?from=2025-06-01&to=2025-01-01", /after to/],
      ["?from=2001-01-01&to=2025-01-01", /at most 10 years/],
      ["?code=HGB", /query parameters are from, to/],
    ] as const) {
      const answer = await chart(query);
      expect(answer.status, query).to.equal(400);
      expect(answer.body.error, query).to.match(says);
    }
  });
});
