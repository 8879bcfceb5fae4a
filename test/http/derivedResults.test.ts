import { expect } from "chai";
import { recordDictionaryRelease } from "../../commands/dictionary/recordDictionaryRelease.ts";
import { localDateTime } from "../../db/localDateTime.ts";
import { loadDefaultDictionary } from "../../db/seed/defaultDictionary.ts";
import { labReport, useIngestionService } from "../support/ingestion.ts";
import { runDraftData, saveTableDraft } from "../support/reports.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";

/*
 * Contract F.2 over HTTP: values the service derives from results of one collection (URR from a
 * pre and a post urea sent in two reports of a day, corrected calcium, TSAT, Ca × P), beside the
 * sent values in the chart, in the clinical source and in FHIR; never where the laboratory sent the
 * item; and a formula's new version, released, recomputes them while the old values stay answerable
 * as of before the release.
 */

interface Point {
  at: string;
  value: number;
  externalId: string;
  derived?: true;
  formula?: { name: string; version: number; expression: string; inputs: string[] };
}

describe("derived results (URR, corrected calcium, TSAT, Ca × P)", function () {
  this.timeout(60_000);
  const hub = useIngestionService();
  const chart = async (query: string) => {
    const answer = await hub.tenant.call("GET", `/api/patients/P001/results${query}`, {
      token: hub.tenant.authorToken,
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return Object.fromEntries(
      (answer.body.series as Array<{ code: string; points: Point[] }>).map((series) => [series.code, series.points]),
    );
  };

  before(async () => {
    const reports = [
      // 1 March: a pre-dialysis panel, and the post-dialysis urea in a report of its own.
      labReport("DRV-PRE", {
        collectedAt: "2026-03-01 07:00:00",
        reportedAt: "2026-03-01 10:00:00",
        items: [
          { itemCode: "Urea", value: 25, unit: "mmol/L" },
          { itemCode: "Ca", value: 2.2, unit: "mmol/L" },
          { itemCode: "Alb", value: 30, unit: "g/L" },
          { itemCode: "P", value: 1.8, unit: "mmol/L" },
          { itemCode: "Fe", value: 15, unit: "µmol/L" },
          { itemCode: "TIBC", value: 60, unit: "µmol/L" },
        ],
      }),
      labReport("DRV-POST", {
        collectedAt: "2026-03-01 11:30:00",
        reportedAt: "2026-03-01 13:00:00",
        items: [{ itemCode: "Urea post", value: 8, unit: "mmol/L" }],
      }),
      // 8 March: the laboratory sends URR and TSAT itself; the service derives neither.
      labReport("DRV-SENT", {
        collectedAt: "2026-03-08 07:00:00",
        reportedAt: "2026-03-08 12:00:00",
        items: [
          { itemCode: "Urea", value: 24, unit: "mmol/L" },
          { itemCode: "Urea post", value: 7, unit: "mmol/L" },
          { itemCode: "URR", value: 71, unit: "%" },
          { itemCode: "Fe", value: 12, unit: "µmol/L" },
          { itemCode: "TIBC", value: 60, unit: "µmol/L" },
          { itemCode: "TSAT", value: 21, unit: "%" },
        ],
      }),
    ];
    expect((await hub.tenant.push("lab", reports)).status).to.equal(200);
    await projectionsCaughtUp(hub.service.url!);
  });

  it("draws URR from two reports of one day and corrected calcium beside sent values, each with its formula and inputs", async () => {
    const series = await chart("?codes=URR,CA_CORR,CAXP,TSAT_CALC,CA&from=2026-03-01&to=2026-03-31");
    expect(series.URR).to.deep.equal([
      {
        at: "2026-03-01T11:30:00",
        value: 68,
        flag: null,
        externalId: "DRV-POST",
        derived: true,
        formula: {
          name: "URR",
          version: 1,
          expression: "100 * (1 - UREA_POST / UREA_PRE)",
          inputs: ["DRV-POST", "DRV-PRE"],
        },
      },
      // The laboratory's own URR of 8 March, and none derived that day.
      { at: "2026-03-08T07:00:00", value: 71, flag: null, externalId: "DRV-SENT" },
    ]);
    expect(series.CA_CORR).to.deep.equal([
      {
        at: "2026-03-01T07:00:00",
        value: 2.4,
        flag: null,
        externalId: "DRV-PRE",
        derived: true,
        formula: { name: "Payne", version: 1, expression: "CA + 0.02 * (40 - ALB)", inputs: ["DRV-PRE"] },
      },
    ]);
    expect(series.CAXP!.map((point) => point.value)).to.deep.equal([3.96]);
    // TSAT sent on 8 March: no TSAT_CALC that day.
    expect(series.TSAT_CALC!.map((point) => [point.at, point.value])).to.deep.equal([["2026-03-01T07:00:00", 25]]);
    expect(series.CA!.every((point) => point.derived === undefined)).to.equal(true);
  });

  it("counts derived values among the items the chart offers", async () => {
    const items = (await hub.tenant.call("GET", "/api/patients/P001/result-items", { token: hub.tenant.authorToken }))
      .body as Array<{ code: string; results: number }>;
    expect(items.find((item) => item.code === "URR")).to.deep.include({ results: 2 });
    expect(items.find((item) => item.code === "CA_CORR")).to.deep.include({ results: 1 });
  });

  it("derives the day again when a report of it is corrected", async () => {
    const corrected = labReport("DRV-POST", {
      collectedAt: "2026-03-01 11:30:00",
      reportedAt: "2026-03-01 14:00:00",
      status: "CORRECTED",
      items: [{ itemCode: "Urea post", value: 10, unit: "mmol/L" }],
    });
    expect((await hub.tenant.push("lab", [corrected])).status).to.equal(200);
    await projectionsCaughtUp(hub.service.url!);
    expect((await chart("?codes=URR&from=2026-03-01&to=2026-03-01")).URR!.map((point) => point.value)).to.deep.equal([
      60,
    ]);
  });

  it("lets a derived value go once the laboratory sends the item itself for that day", async () => {
    const pair = [
      labReport("DRV-PAIR-PRE", {
        collectedAt: "2026-03-15 07:00:00",
        reportedAt: "2026-03-15 09:00:00",
        items: [{ itemCode: "Urea", value: 20, unit: "mmol/L" }],
      }),
      labReport("DRV-PAIR-POST", {
        collectedAt: "2026-03-15 11:00:00",
        reportedAt: "2026-03-15 12:00:00",
        items: [{ itemCode: "Urea post", value: 6, unit: "mmol/L" }],
      }),
    ];
    expect((await hub.tenant.push("lab", pair)).status).to.equal(200);
    await projectionsCaughtUp(hub.service.url!);
    const before = (await chart("?codes=URR&from=2026-03-15&to=2026-03-15")).URR!;
    expect(before.map((point) => [point.value, point.derived])).to.deep.equal([[70, true]]);
    const sent = labReport("DRV-PAIR-URR", {
      collectedAt: "2026-03-15 11:00:00",
      reportedAt: "2026-03-15 13:00:00",
      items: [{ itemCode: "URR", value: 69.5, unit: "%" }],
    });
    expect((await hub.tenant.push("lab", [sent])).status).to.equal(200);
    await projectionsCaughtUp(hub.service.url!);
    const after = (await chart("?codes=URR&from=2026-03-15&to=2026-03-15")).URR!;
    expect(after.map((point) => [point.value, point.derived, point.externalId])).to.deep.equal([
      [69.5, undefined, "DRV-PAIR-URR"],
    ]);
  });

  it("serves derived values in the clinical source's derived_results", async () => {
    await saveTableDraft(hub.tenant, "derived", {
      derived:
        "select patient_ref, ward, std_code, value, unit, collected_at::text, formula, formula_version, inputs " +
        "from derived_results order by std_code, collected_at",
    });
    const answers = await runDraftData(hub.tenant, "derived");
    expect(answers.derived!.error).to.equal(undefined);
    expect(answers.derived!.rows).to.deep.equal([
      ["P001", "A", "CAXP", 3.96, "mmol²/L²", "2026-03-01 07:00:00", "Ca × P", 1, ["DRV-PRE"]],
      ["P001", "A", "CA_CORR", 2.4, "mmol/L", "2026-03-01 07:00:00", "Payne", 1, ["DRV-PRE"]],
      ["P001", "A", "TSAT_CALC", 25, "%", "2026-03-01 07:00:00", "TSAT", 1, ["DRV-PRE"]],
      ["P001", "A", "URR", 60, "%", "2026-03-01 11:30:00", "URR", 1, ["DRV-POST", "DRV-PRE"]],
    ]);
  });

  it("works out the same values in report SQL as in the chart, for every item and day", async () => {
    await saveTableDraft(hub.tenant, "derived-all", {
      all: 'select std_code, collected_on::text, value from derived_results order by std_code collate "C", collected_on',
    });
    const sql = (await runDraftData(hub.tenant, "derived-all")).all!.rows!;
    const series = await chart("?codes=URR,CA_CORR,TSAT_CALC,CAXP&from=2026-01-01&to=2026-12-31");
    const charted = Object.entries(series)
      .flatMap(([code, points]) =>
        points.filter((point) => point.derived).map((point) => [code, point.at.slice(0, 10), point.value]),
      )
      // In code-point order, as the database (collation C) orders the SQL's rows.
      .sort((a, b) => (`${a[0]} ${a[1]}` < `${b[0]} ${b[1]}` ? -1 : 1));
    expect(charted).to.have.length(4);
    expect(sql).to.deep.equal(charted);
  });

  it("serves derived values in FHIR as Observations derivedFrom the results they read", async () => {
    const search = await hub.tenant.call("GET", "/fhir/r4/Observation?patient=P001&code=CA_CORR", {
      token: hub.tenant.authorToken,
    });
    expect(search.status).to.equal(200);
    const [observation] = search.body.entry.map((entry: { resource: Record<string, unknown> }) => entry.resource);
    expect(observation).to.deep.include({
      id: "DRV-PRE-d-CA.5FCORR",
      valueQuantity: { value: 2.4, unit: "mmol/L", system: "http://unitsofmeasure.org", code: "mmol/L" },
      method: { text: "Payne v1: CA + 0.02 * (40 - ALB)" },
      derivedFrom: [
        { reference: "Observation/DRV-PRE-1", display: "CA" },
        { reference: "Observation/DRV-PRE-2", display: "ALB" },
      ],
    });
    const read = await hub.tenant.call("GET", "/fhir/r4/Observation?patient=P001&date=2026-03-01", {
      token: hub.tenant.authorToken,
    });
    const ids = read.body.entry.map((entry: { resource: { id: string } }) => entry.resource.id);
    expect(ids).to.include.members(["DRV-POST-0", "DRV-POST-d-URR", "DRV-PRE-d-CAXP", "DRV-PRE-0"]);
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it("recomputes every value by a formula's new version when a dictionary release brings it, and answers the old values as of before it", async () => {
    const before = localDateTime(new Date());
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const dictionary = loadDefaultDictionary();
    const caCorr = dictionary.items.find((item) => item.code === "CA_CORR")!;
    caCorr.formula = { ...caCorr.formula!, version: 2, expression: "CA + 0.025 * (40 - ALB)" };
    expect(await recordDictionaryRelease(hub.service.eventStore, dictionary, "test-release-ca-corr-2")).to.equal(true);
    await projectionsCaughtUp(hub.service.url!);
    const now = (await chart("?codes=CA_CORR&from=2026-03-01&to=2026-03-01")).CA_CORR!;
    expect(now.map((point) => [point.value, point.formula!.version, point.formula!.expression])).to.deep.equal([
      [2.45, 2, "CA + 0.025 * (40 - ALB)"],
    ]);
    const then = (await chart(`?codes=CA_CORR&from=2026-03-01&to=2026-03-01&asOf=${encodeURIComponent(before)}`))
      .CA_CORR!;
    expect(then.map((point) => [point.value, point.formula!.version])).to.deep.equal([[2.4, 1]]);
  });

  it("refuses an asOf that is not a local moment, saying how to write one", async () => {
    const answer = await hub.tenant.call("GET", "/api/patients/P001/results?asOf=yesterday", {
      token: hub.tenant.authorToken,
    });
    expect(answer.status).to.equal(400);
    expect(answer.body.error).to.match(/asOf must be a real local moment written yyyy-MM-dd HH:mm:ss/);
  });
});
