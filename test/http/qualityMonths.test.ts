import { expect } from "chai";
import { recordDictionaryRelease } from "../../commands/dictionary/recordDictionaryRelease.ts";
import { loadDefaultDictionary } from "../../db/seed/defaultDictionary.ts";
import { localDateTime } from "../../db/localDateTime.ts";
import { ADMIN } from "../support/http.ts";
import { labReport, LI_SI, monthsAgo, useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";

/*
 * Contract G.2 over HTTP: a month's quality figures counted live from the results collected in it
 * (derived values included), of the tenant or of one ward, and what a bad call is told.
 */

/** yyyy-MM of a date. */
const monthOf = (date: Date) => localDateTime(date).slice(0, 7);
/** `day` at `hour` of the month `months` before this one, as a report writes it. */
const at = (months: number, day: number, hour = 7) =>
  localDateTime(new Date(monthsAgo(months, day).setHours(hour, 0, 0, 0)));
const qualitative = (itemCode: string) => ({ itemCode, value: "阴性", resultType: "QUALITATIVE" });

/** A report of `patient` collected on `day` of the month `months` ago, reported two hours later. */
function collected(externalId: string, patient: object, months: number, day: number, items: object[]) {
  return labReport(externalId, {
    patient,
    collectedAt: at(months, day),
    reportedAt: at(months, day, 9),
    items,
  });
}

const ZHANG_SAN = { name: "张三", idCard: "11010519491231002X" };
const WANG_WU = { name: "王五", idCard: "110105200002290013" };

/** The month two months ago: ended, so it may be closed. */
const MONTH = monthOf(monthsAgo(2));

/**
 * 张三 (P001, ward A): on the 5th a whole panel (Hb 105, Alb 38, Ca 2.3, P 1.5, Kt/V 1.3, urea 25
 * then 8: URR 68 derived, iPTH 300, the four infection markers), on the 20th Hb 120 and a calcium
 * of 2.0 without albumin (counted as sent: no corrected calcium that day).
 * 李四 (P002, ward B): on the 10th Hb 100, Alb 30, Ca 2.2 (corrected 2.4), P 2.0; iPTH two months
 * before. 王五 (P003, ward A) has nothing that month.
 */
function monthReports() {
  return [
    collected("QM-1", ZHANG_SAN, 2, 5, [
      { itemCode: "HGB", value: 105, unit: "g/L" },
      { itemCode: "ALB", value: 38, unit: "g/L" },
      { itemCode: "CA", value: 2.3, unit: "mmol/L" },
      { itemCode: "P", value: 1.5, unit: "mmol/L" },
      { itemCode: "KTV", value: 1.3, unit: "" },
      { itemCode: "UREA_PRE", value: 25, unit: "mmol/L" },
      { itemCode: "UREA_POST", value: 8, unit: "mmol/L" },
      { itemCode: "IPTH", value: 300, unit: "pg/mL" },
      qualitative("HBSAG"),
      qualitative("HCVAB"),
      qualitative("TPAB"),
      qualitative("HIV"),
    ]),
    collected("QM-2", ZHANG_SAN, 2, 20, [
      { itemCode: "HGB", value: 120, unit: "g/L" },
      { itemCode: "CA", value: 2.0, unit: "mmol/L" },
    ]),
    collected("QM-3", LI_SI, 2, 10, [
      { itemCode: "HGB", value: 100, unit: "g/L" },
      { itemCode: "ALB", value: 30, unit: "g/L" },
      { itemCode: "CA", value: 2.2, unit: "mmol/L" },
      { itemCode: "P", value: 2.0, unit: "mmol/L" },
    ]),
    collected("QM-4", LI_SI, 4, 12, [{ itemCode: "IPTH", value: 700, unit: "pg/mL" }]),
  ];
}

describe("a month's quality figures (GET /api/quality/months/{yyyy-MM})", function () {
  this.timeout(60_000);
  const hub = useIngestionService();
  const month = (path: string, token = hub.tenant.authorToken) =>
    hub.tenant.call("GET", `/api/quality/months/${path}`, { token });
  const author = async (roles: string[], wards?: string[]) => {
    const made = await hub.tenant.call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: `Dr ${roles.join("+")} ${wards?.join("+") ?? "all"}`, tenant: "h1", roles, wards },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    return made.body.token as string;
  };

  before(async () => {
    for (const [ref, patient, ward] of [
      ["P002", LI_SI, "B"],
      ["P003", WANG_WU, "A"],
    ] as const) {
      const saved = await hub.tenant.call("PUT", `/api/patients/${ref}`, {
        token: hub.tenant.authorToken,
        body: { ...patient, ward },
      });
      expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
    }
    expect((await hub.tenant.push("lab", monthReports())).status).to.equal(200);
    await projectionsCaughtUp(hub.service.url!);
  });

  it("counts the tenant's month: last values, derived URR, corrected calcium or calcium, tested windows, rates to 4 decimals", async () => {
    const answer = await month(MONTH);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    expect(answer.body).to.deep.include({ month: MONTH, ward: null, state: "open" });
    const figures = Object.fromEntries(
      (answer.body.indicators as Array<{ code: string }>).map(({ code, ...rest }) => [code, rest]),
    );
    const counted = (met: string[], notMet: string[], untested: string[], numerator: number, denominator: number) => ({
      version: 1,
      numerator,
      denominator,
      rate: denominator === 0 ? null : Math.round((numerator / denominator) * 10_000) / 10_000,
      patients: { met, notMet, untested },
    });
    expect(figures).to.deep.equal({
      KTV_TARGET: counted(["P001"], [], ["P002"], 1, 1),
      URR_TARGET: counted(["P001"], [], ["P002"], 1, 1),
      // 张三's last Hb (120 on the 20th), not his first (105).
      HGB_TARGET: counted(["P001"], ["P002"], [], 1, 2),
      ALB_TARGET: counted(["P001"], ["P002"], [], 1, 2),
      P_TARGET: counted(["P001"], ["P002"], [], 1, 2),
      // 张三's last calcium (2.0, no albumin that day) against 李四's corrected 2.4 (calcium 2.2).
      CA_TARGET: counted(["P002"], ["P001"], [], 1, 2),
      IPTH_TARGET: counted(["P001"], [], ["P002"], 1, 1),
      KTV_TESTED: counted(["P001"], [], ["P002"], 1, 2),
      HGB_TESTED: counted(["P001", "P002"], [], [], 2, 2),
      ALB_TESTED: counted(["P001", "P002"], [], [], 2, 2),
      P_TESTED: counted(["P001", "P002"], [], [], 2, 2),
      // 李四's iPTH two months before counts within three months.
      IPTH_TESTED: counted(["P001", "P002"], [], [], 2, 2),
      INFECTION_TESTED: counted(["P001"], [], ["P002"], 1, 2),
      CRITICAL_ACK_30MIN: counted([], [], [], 0, 0),
    });
  });

  it("counts one ward's patients as they are now", async () => {
    const wardA = await month(`${MONTH}?ward=A`);
    expect(wardA.status, JSON.stringify(wardA.body)).to.equal(200);
    expect(wardA.body.ward).to.equal("A");
    const hgb = wardA.body.indicators.find((entry: { code: string }) => entry.code === "HGB_TARGET");
    expect(hgb).to.deep.include({ numerator: 1, denominator: 1, rate: 1 });
    expect(hgb.patients).to.deep.equal({ met: ["P001"], notMet: [], untested: [] });
    const wardB = await month(`${MONTH}?ward=B`);
    expect(wardB.body.indicators.find((entry: { code: string }) => entry.code === "HGB_TESTED")).to.deep.include({
      numerator: 1,
      denominator: 1,
    });
  });

  it("records the answer as an access to the patients it names", async () => {
    await until(async () => {
      const log = await hub.tenant.call("GET", "/api/admin/access-log?limit=1000", { token: ADMIN });
      return (log.body.records as Array<{ action: string; patientRefs: string[] }>).some(
        (record) =>
          record.action === "GET /api/quality/months/{month}" &&
          JSON.stringify(record.patientRefs.slice().sort()) === JSON.stringify(["P001", "P002"]),
      );
    }, 5000);
  });

  it("refuses a month that is not yyyy-MM up to the current one, and an unknown parameter, with 400", async () => {
    for (const bad of ["2026-13", "2026-1", "26-10", "1899-12", "9999-01", "2026-10-01", "%E2%80%A8"]) {
      const answer = await month(bad);
      expect(answer.status, bad).to.equal(400);
      expect(answer.body, bad).to.deep.include({ code: "month-invalid" });
      expect(answer.body.error, bad).to.match(/^The month must be written yyyy-MM \(e\.g\. \d{4}-\d{2}\)/);
    }
    const unknown = await month(`${MONTH}?wards=A`);
    expect(unknown.status).to.equal(400);
    expect(unknown.body.error).to.match(/The only query parameter is ward/);
    const twice = await month(`${MONTH}?ward=A&ward=B`);
    expect(twice.status).to.equal(400);
    expect(twice.body.error).to.match(/ward is one ward's name, sent once/);
  });

  it("answers a ward no patient is in 404, as a ward outside the caller's; a caller with wards names one", async () => {
    const unknown = await month(`${MONTH}?ward=Z`);
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.deep.include({ code: "ward-not-found" });
    const wardA = await author(["clinician"], ["A"]);
    const own = await month(`${MONTH}?ward=A`, wardA);
    expect(own.status, JSON.stringify(own.body)).to.equal(200);
    expect(
      own.body.indicators.find((entry: { code: string }) => entry.code === "HGB_TESTED").patients.met,
    ).to.deep.equal(["P001"]);
    const other = await month(`${MONTH}?ward=B`, wardA);
    expect(other.status).to.equal(404);
    expect(other.body).to.deep.equal({
      error: unknown.body.error.replace('"Z"', '"B"'),
      code: "ward-not-found",
    });
    const none = await month(MONTH, wardA);
    expect(none.status).to.equal(400);
    expect(none.body).to.deep.include({ code: "ward-required" });
    expect(none.body.error).to.match(/ward="A"/);
  });

  it("lists one indicator's patients not at target with their names and last values", async () => {
    const hgb = await month(`${MONTH}/patients?code=HGB_TARGET`);
    expect(hgb.status, JSON.stringify(hgb.body)).to.equal(200);
    expect(hgb.body).to.deep.equal({
      month: MONTH,
      ward: null,
      code: "HGB_TARGET",
      state: "open",
      patients: [
        {
          patientRef: "P002",
          name: "李四",
          place: "notMet",
          now: "notMet",
          item: "HGB",
          value: 100,
          unit: "g/L",
          at: at(2, 10).replace(" ", "T"),
          externalIds: ["QM-3"],
        },
      ],
    });
    const infection = await month(`${MONTH}/patients?code=INFECTION_TESTED&ward=B`);
    expect(infection.body.patients).to.deep.equal([
      {
        patientRef: "P002",
        name: "李四",
        place: "untested",
        now: "untested",
        item: null,
        value: null,
        unit: null,
        at: null,
        externalIds: [],
      },
    ]);
    for (const bad of ["CRITICAL_ACK_30MIN", "NO_SUCH", "hgb"]) {
      const refused = await month(`${MONTH}/patients?code=${bad}`);
      expect(refused.status, bad).to.equal(400);
      expect(refused.body.error, bad).to.match(
        /code (must be a target or tested indicator in force|is an indicator's code)/,
      );
    }
    expect((await month(`${MONTH}/patients`)).status).to.equal(400);
  });

  it("lists the wards a month can be asked for: those of the patients the caller sees", async () => {
    const all = await hub.tenant.call("GET", "/api/quality/wards", { token: hub.tenant.authorToken });
    expect(all.status, JSON.stringify(all.body)).to.equal(200);
    expect(all.body).to.deep.equal(["A", "B"]);
    const wardB = await author(["clinician"], ["B"]);
    expect((await hub.tenant.call("GET", "/api/quality/wards", { token: wardB })).body).to.deep.equal(["B"]);
    const asked = await hub.tenant.call("GET", "/api/quality/wards?ward=A", { token: hub.tenant.authorToken });
    expect(asked.status).to.equal(400);
    expect(asked.body.error).to.match(/takes no query parameter/);
  });

  it("answers a viewer 403 naming the role it needs", async () => {
    const answer = await month(MONTH, await author(["viewer"]));
    expect(answer.status).to.equal(403);
    expect(answer.body).to.deep.include({ code: "role-needed" });
  });

  describe("a patient's month (GET /api/patients/{patientRef}/months/{yyyy-MM})", () => {
    const patientMonth = (path: string, token = hub.tenant.authorToken) =>
      hub.tenant.call("GET", `/api/patients/${path}`, { token });

    it("shows the last value of each item, derived ones marked, and the patient's place in each indicator", async () => {
      const answer = await patientMonth(`P001/months/${MONTH}`);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      expect(answer.body).to.deep.include({ patientRef: "P001", month: MONTH, underCare: true });
      const values = Object.fromEntries(
        (answer.body.values as Array<{ code: string }>).map(({ code, ...rest }) => [code, rest]),
      );
      expect(Object.keys(values)).to.deep.equal([
        "ALB",
        "CA",
        "CA_CORR",
        "HBSAG",
        "HCVAB",
        "HGB",
        "HIV",
        "IPTH",
        "KTV",
        "P",
        "TPAB",
        "URR",
      ]);
      expect(values.HGB).to.deep.equal({
        value: 120,
        valueText: null,
        unit: "g/L",
        at: `${at(2, 20).replace(" ", "T")}`,
        externalIds: ["QM-2"],
        derived: false,
        formulaVersion: null,
      });
      expect(values.URR).to.deep.include({
        value: 68,
        unit: "%",
        derived: true,
        formulaVersion: 1,
        externalIds: ["QM-1"],
      });
      expect(values.CA_CORR).to.deep.include({ value: 2.34, derived: true });
      expect(values.HBSAG).to.deep.include({ value: null, valueText: "阴性", unit: "" });
      const indicators = Object.fromEntries(
        (answer.body.indicators as Array<{ code: string }>).map(({ code, ...rest }) => [code, rest]),
      );
      expect(indicators.HGB_TARGET).to.deep.equal({
        version: 1,
        kind: "target",
        place: "met",
        met: true,
        item: "HGB",
        value: 120,
      });
      // The last calcium (the 20th) had no albumin that day: calcium itself is counted.
      expect(indicators.CA_TARGET).to.deep.include({ place: "notMet", met: false, item: "CA", value: 2 });
      expect(indicators.URR_TARGET).to.deep.include({ place: "met", item: "URR", value: 68 });
      expect(indicators.INFECTION_TESTED).to.deep.include({ place: "met", met: true, item: null, value: null });
      expect(indicators.CRITICAL_ACK_30MIN).to.deep.include({ place: null, met: null });
    });

    it("shows a patient without a result in the month as not under care, placed nowhere", async () => {
      const answer = await patientMonth(`P003/months/${MONTH}`);
      expect(answer.status).to.equal(200);
      expect(answer.body).to.deep.include({ underCare: false, values: [] });
      expect(answer.body.indicators.every((indicator: { place: unknown }) => indicator.place === null)).to.equal(true);
    });

    it("answers an unknown patient, or one outside the caller's wards, 404; a bad month or a parameter 400", async () => {
      const unknown = await patientMonth(`P404/months/${MONTH}`);
      expect(unknown.status).to.equal(404);
      expect(unknown.body).to.deep.include({ code: "patient-not-found" });
      const wardA = await author(["clinician"], ["A"]);
      expect((await patientMonth(`P002/months/${MONTH}`, wardA)).status).to.equal(404);
      expect((await patientMonth(`P001/months/${MONTH}`, wardA)).status).to.equal(200);
      expect((await patientMonth("P001/months/2026-13")).body).to.deep.include({ code: "month-invalid" });
      const parameter = await patientMonth(`P001/months/${MONTH}?ward=A`);
      expect(parameter.status).to.equal(400);
      expect(parameter.body.error).to.match(/takes no query parameter/);
    });
  });

  describe("closing a month (POST /api/quality/months/{yyyy-MM}/close)", () => {
    const close = (path: string, body?: unknown, token = ADMIN) =>
      hub.tenant.call("POST", `/api/quality/months/${path}/close`, { token, body });
    let open: { indicators: unknown[] };

    before(async () => {
      open = (await month(MONTH)).body;
    });

    it("is for an administrator; a month that has not ended answers 409", async () => {
      const clinician = await close(MONTH, {}, await author(["clinician"]));
      expect(clinician.status).to.equal(403);
      expect(clinician.body).to.deep.include({ code: "role-needed" });
      const thisMonth = await close(monthOf(new Date()), {});
      expect(thisMonth.status).to.equal(409);
      expect(thisMonth.body).to.deep.include({ code: "month-not-ended" });
      expect(thisMonth.body.error).to.match(/has not ended yet in the service's time zone/);
    });

    it("refuses a body with more than a ward, and a ward no patient is in", async () => {
      const extra = await close(MONTH, { ward: "A", force: true });
      expect(extra.status).to.equal(400);
      expect(extra.body.error).to.match(/The body holds ward only/);
      const unknown = await close(MONTH, { ward: "Z" });
      expect(unknown.status).to.equal(404);
      expect(unknown.body).to.deep.include({ code: "ward-not-found" });
    });

    it("freezes the figures as they were counted (201), and answers them from then on", async () => {
      const closed = await close(MONTH);
      expect(closed.status, JSON.stringify(closed.body)).to.equal(201);
      expect(closed.body).to.deep.include({ month: MONTH, ward: null, state: "closed", closedBy: "admin" });
      expect(closed.body.closedAt).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      expect(closed.body.indicators).to.deep.equal(open.indicators);
      expect((await month(MONTH)).body).to.deep.equal(closed.body);
    });

    it("closes each ward once and the whole tenant once: a second close answers 409", async () => {
      const again = await close(MONTH, {});
      expect(again.status).to.equal(409);
      expect(again.body).to.deep.include({ code: "month-closed" });
      expect(again.body.error).to.match(/of the whole tenant was closed already \(by admin\)/);
      const wardA = await close(MONTH, { ward: "A" });
      expect(wardA.status, JSON.stringify(wardA.body)).to.equal(201);
      expect(wardA.body.ward).to.equal("A");
      const wardAAgain = await close(MONTH, { ward: "A" });
      expect(wardAAgain.status).to.equal(409);
      expect(wardAAgain.body.error).to.match(/of ward "A" was closed already/);
      expect((await month(`${MONTH}?ward=B`)).body.state).to.equal("open");
    });
  });

  describe("restating a closed month (GET /api/quality/months/{yyyy-MM}/restatement)", () => {
    const restatement = (path: string, query = "", token = hub.tenant.authorToken) =>
      hub.tenant.call("GET", `/api/quality/months/${path}/restatement${query}`, { token });
    let closed: unknown;
    type Indicator = { code: string; closed: object; now: object; changes: Array<Record<string, any>> };
    const byCode = (body: { indicators: Indicator[] }) =>
      Object.fromEntries(body.indicators.map((indicator) => [indicator.code, indicator]));

    before(async () => {
      closed = (await month(MONTH)).body;
      // After the close: a potassium collected in the month reaches the service late, for 王五,
      // who had no result that month; 张三's report of the 20th is corrected (Hb 120 was 105).
      expect(
        (
          await hub.tenant.push("lab", [
            collected("QM-5", WANG_WU, 2, 28, [{ itemCode: "K", value: 4.2, unit: "mmol/L" }]),
          ])
        ).status,
      ).to.equal(200);
      expect(
        (
          await hub.tenant.push("lab", [
            {
              ...collected("QM-2", ZHANG_SAN, 2, 20, [
                { itemCode: "HGB", value: 105, unit: "g/L" },
                { itemCode: "CA", value: 2.0, unit: "mmol/L" },
              ]),
              status: "CORRECTED",
            },
          ])
        ).status,
      ).to.equal(200);
      await projectionsCaughtUp(hub.service.url!);
    });

    it("leaves the closed month as it was closed", async () => {
      expect((await month(MONTH)).body).to.deep.equal(closed);
    });

    it("names both patients and both events: the late result and the corrected report", async () => {
      const answer = await restatement(MONTH);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      expect(answer.body).to.deep.include({ month: MONTH, ward: null, closedBy: "admin" });
      const indicators = byCode(answer.body);
      const hgb = indicators.HGB_TARGET!;
      expect(hgb.closed).to.deep.equal({ version: 1, numerator: 1, denominator: 2, rate: 0.5 });
      expect(hgb.now).to.deep.equal({ version: 1, numerator: 0, denominator: 2, rate: 0 });
      expect(hgb.changes.map(({ because: _because, ...change }) => change)).to.deep.equal([
        { patientRef: "P001", closed: "met", now: "notMet" },
        { patientRef: "P003", closed: null, now: "untested" },
      ]);
      const [zhang, wang] = hgb.changes;
      expect(zhang!.because.map(({ at: _at, ...rest }: { at: string }) => rest)).to.deep.equal([
        { event: "LabReportReceived", externalId: "QM-2" },
      ]);
      expect(wang!.because.map(({ at: _at, ...rest }: { at: string }) => rest)).to.deep.equal([
        { event: "LabReportReceived", externalId: "QM-5" },
      ]);
      for (const reason of [...zhang!.because, ...wang!.because])
        expect(reason.at).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      // 王五 is under care now: every tested indicator counts him, untested.
      expect(indicators.HGB_TESTED!.now).to.deep.include({ numerator: 2, denominator: 3 });
      expect(indicators.HGB_TESTED!.changes.map((change) => change.patientRef)).to.deep.equal(["P003"]);
      // The correction changed no calcium: nobody moved there but 王五, now counted untested.
      expect(
        indicators.CA_TARGET!.changes.map((change) => [change.patientRef, change.closed, change.now]),
      ).to.deep.equal([["P003", null, "untested"]]);
      expect(indicators.CA_TARGET!.now).to.deep.equal(indicators.CA_TARGET!.closed);
    });

    it("restates a ward's close by its patients, and answers a month not closed 409", async () => {
      const wardA = await restatement(MONTH, "?ward=A");
      expect(wardA.status, JSON.stringify(wardA.body)).to.equal(200);
      expect(byCode(wardA.body).HGB_TARGET!.changes.map((change) => change.patientRef)).to.deep.equal(["P001", "P003"]);
      const wardB = await restatement(MONTH, "?ward=B");
      expect(wardB.status).to.equal(409);
      expect(wardB.body).to.deep.include({ code: "month-not-closed" });
      const earlier = await restatement(monthOf(monthsAgo(3)));
      expect(earlier.status).to.equal(409);
      expect(earlier.body.error).to.match(/of the whole tenant is not closed/);
    });

    it("names an item mapping made after the close that moved a patient", async () => {
      await hub.tenant.push("lab", [
        collected("QM-6", LI_SI, 2, 25, [{ itemCode: "L-ALB", itemName: "本院白蛋白", value: 3.6, unit: "g/dL" }]),
      ]);
      // A mapping converts the units of the results stored when it is made.
      await projectionsCaughtUp(hub.service.url!);
      const made = await hub.tenant.call("POST", "/api/dictionary/mappings", {
        token: hub.tenant.authorToken,
        body: { client: "Central lab LIS", itemCode: "L-ALB", stdCode: "ALB", reason: "the lab's own code" },
      });
      expect(made.status, JSON.stringify(made.body)).to.equal(201);
      await projectionsCaughtUp(hub.service.url!);
      const alb = byCode((await restatement(MONTH)).body).ALB_TARGET!;
      expect(alb.now).to.deep.include({ numerator: 2, denominator: 2 });
      expect(alb.changes).to.have.length(2);
      const li = alb.changes.find((change) => change.patientRef === "P002")!;
      expect(li).to.deep.include({ closed: "notMet", now: "met" });
      expect(li.because.map((reason: { event: string }) => reason.event)).to.deep.equal(["ItemMappingAdded"]);
    });
    it("names the dictionary release that put an indicator's new version in force", async () => {
      const dictionary = loadDefaultDictionary();
      Object.assign(
        dictionary.indicators.find((indicator) => indicator.code === "HGB_TARGET")!,
        {
          version: 2,
          band: { low: 100, high: 130 },
        },
      );
      expect(await recordDictionaryRelease(hub.service.eventStore, dictionary, "test-release-hgb-target-2")).to.equal(
        true,
      );
      await projectionsCaughtUp(hub.service.url!);
      const hgb = byCode((await restatement(MONTH)).body).HGB_TARGET!;
      expect(hgb.closed).to.deep.include({ version: 1 });
      expect(hgb.now).to.deep.equal({ version: 2, numerator: 2, denominator: 2, rate: 1 });
      // 张三's corrected 105 meets the new band as his 120 met the old one: his place is the same.
      expect(hgb.changes.map((change) => [change.patientRef, change.closed, change.now])).to.deep.equal([
        ["P002", "notMet", "met"],
        ["P003", null, "untested"],
      ]);
      expect(hgb.changes[0]!.because.map((reason: { event: string }) => reason.event)).to.deep.equal([
        "DictionaryReleased",
      ]);
    });

    it("names a patient's move out of the ward after its close", async () => {
      const moved = await hub.tenant.call("PUT", "/api/patients/P001", {
        token: hub.tenant.authorToken,
        body: { ...ZHANG_SAN, ward: "B" },
      });
      expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
      await projectionsCaughtUp(hub.service.url!);
      const tested = byCode((await restatement(MONTH, "?ward=A")).body).HGB_TESTED!;
      expect(tested.changes.map((change) => [change.patientRef, change.closed, change.now])).to.deep.equal([
        ["P001", "met", null],
        ["P003", null, "untested"],
      ]);
      expect(tested.changes[0]!.because.map((reason: { event: string }) => reason.event)).to.deep.equal([
        "PatientUpdated",
      ]);
    });
  });
});
