import type { Answer } from "../support/http.ts";
import { expect } from "chai";
import { rebuildProjection } from "../../projections/runtime/rebuild.ts";
import { autoClaimReactor } from "../../reactors/autoClaim.ts";
import { silentLogger } from "../../src/logger.ts";
import { labReport, LI_SI, useIngestionService, ZHANG_SAN } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

describe("unmatched queue (/api/unmatched)", () => {
  const hub = useIngestionService();

  const queue = () => hub.tenant.unmatched();
  const inQueue = async (externalId: string) => (await queue()).some((entry) => entry.externalId === externalId);

  it("lists a report awaiting claim with the patient as sent, the id card masked", async () => {
    await hub.tenant.push("lab", [
      labReport("Q-1", { patient: { idCard: LI_SI.idCard, name: LI_SI.name, hisPatientId: "H-2" } }),
    ]);
    const entry = await until(async () => (await queue()).find((e) => e.externalId === "Q-1"));
    expect(entry).to.include({
      kind: "lab",
      externalId: "Q-1",
      reportNo: "R-Q-1",
      pendingReason: "no dialysis patient with this idCard",
      pendingCode: "no-patient",
    });
    expect(entry.patient).to.deep.equal({ name: "李四", idCard: "440524********0014", hisPatientId: "H-2" });
    expect(entry.receivedAt).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
  });

  it("gives each reason a stable code beside its unchanged sentence (issue #34 item 6)", async () => {
    await hub.tenant.push("lab", [
      labReport("QC-1", { patient: { hisPatientId: "H-5" } }),
      labReport("QC-2", { patient: { idCard: "110105194912310021", name: ZHANG_SAN.name } }),
      labReport("QC-3", { patient: { idCard: ZHANG_SAN.idCard, name: "王五" } }),
    ]);
    const entries = await until(async () => {
      const found = (await queue()).filter((e) => e.externalId.startsWith("QC-"));
      return found.length === 3 ? found : undefined;
    });
    expect(entries.map((e) => [e.externalId, e.pendingCode, e.pendingReason])).to.deep.equal([
      ["QC-1", "no-id-card", "idCard is missing"],
      ["QC-2", "invalid-id-card", "idCard is not a valid national identity number"],
      ["QC-3", "name-differs", "name differs from the patient registered with this idCard"],
    ]);
  });

  it("claims a report for a patient: it leaves the queue and its results carry the patient", async () => {
    await hub.tenant.push("lab", [labReport("Q-2", { patient: { hisPatientId: "H-1" } })]);
    await until(() => inQueue("Q-2"));
    const claimed = await hub.tenant.call("POST", "/api/unmatched/lab/Q-2/claim", {
      token: hub.tenant.authorToken,
      body: { patientRef: "P001" },
    });
    expect(claimed.status).to.equal(200);
    expect(await inQueue("Q-2")).to.equal(false);
    // The item rows are a read model of their own: they follow the claim a moment later.
    const patientsOfResults = async () =>
      (await hub.service.db.query("select distinct patient_ref from read.lab_results where external_id = 'Q-2'")).rows;
    await until(async () => {
      const rows = await patientsOfResults();
      return rows.length > 0 && rows.every((row) => row.patient_ref === "P001");
    });
    expect(await patientsOfResults()).to.deep.equal([{ patient_ref: "P001" }]);
  });

  it("keeps a claimed report with its patient when the sender updates it", async () => {
    await hub.tenant.push("lab", [labReport("Q-3", { patient: { hisPatientId: "H-1" } })]);
    await until(() => inQueue("Q-3"));
    await hub.tenant.call("POST", "/api/unmatched/lab/Q-3/claim", {
      token: hub.tenant.authorToken,
      body: { patientRef: "P001" },
    });
    for (const labName of ["corrected lab", "corrected again"]) {
      const updated = await hub.tenant.push("lab", [labReport("Q-3", { patient: { hisPatientId: "H-1" }, labName })]);
      expect(updated.body.data.results[0]).to.include({ status: "UPDATED", matched: true, patientRef: "P001" });
    }
  });

  it("sends a claimed report without an id card back to the queue when an update names another person", async () => {
    const claimedAs = { hisPatientId: "H-1", name: "张三" };
    await hub.tenant.push("lab", [labReport("Q-7", { patient: claimedAs })]);
    await until(() => inQueue("Q-7"));
    await hub.tenant.call("POST", "/api/unmatched/lab/Q-7/claim", {
      token: hub.tenant.authorToken,
      body: { patientRef: "P001" },
    });
    const same = await hub.tenant.push("lab", [
      labReport("Q-7", { patient: { ...claimedAs, name: " 张 三 " }, labName: "corrected lab" }),
    ]);
    expect(same.body.data.results[0], "the same person, the name spaced differently").to.include({
      matched: true,
      patientRef: "P001",
    });
    for (const [externalId, other] of [
      ["Q-7", { hisPatientId: "H-1", name: "王五" }],
      ["Q-7", { hisPatientId: "H-9", name: "张三" }],
    ] as const) {
      const updated = await hub.tenant.push("lab", [
        labReport(externalId, { patient: other, labName: `for ${other.name} ${other.hisPatientId}` }),
      ]);
      expect(updated.body.data.results[0], JSON.stringify(other)).to.include({
        status: "UPDATED",
        matched: false,
        pendingReason: "idCard is missing",
      });
      await until(() => inQueue("Q-7"));
      await hub.tenant.call("POST", "/api/unmatched/lab/Q-7/claim", {
        token: hub.tenant.authorToken,
        body: { patientRef: "P001" },
      });
    }
  });

  it("dismisses a report with a reason: out of the queue, kept for audit", async () => {
    await hub.tenant.push("exam", [
      { externalId: "QE-1", patient: { hisPatientId: "H-5" }, examType: "ECG", reportedAt: "2026-03-01 10:00:00" },
    ]);
    await until(() => inQueue("QE-1"));
    const dismissed = await hub.tenant.call("POST", "/api/unmatched/exam/QE-1/dismiss", {
      token: hub.tenant.authorToken,
      body: { reason: "not a dialysis patient" },
    });
    expect(dismissed.status).to.equal(200);
    expect(await inQueue("QE-1")).to.equal(false);
    const kept = await hub.service.db.query("select dismiss_reason from read.exam_reports where external_id = 'QE-1'");
    expect(kept.rows).to.deep.equal([{ dismiss_reason: "not a dialysis patient" }]);
  });

  it("answers 404 for an unknown report or patient, 409 for a report already matched, 400 without a reason", async () => {
    const token = hub.tenant.authorToken;
    expect(
      (await hub.tenant.call("POST", "/api/unmatched/lab/NOPE/claim", { token, body: { patientRef: "P001" } })).status,
    ).to.equal(404);
    await hub.tenant.push("lab", [labReport("Q-4", { patient: { hisPatientId: "H-1" } })]);
    await until(() => inQueue("Q-4"));
    expect(
      (await hub.tenant.call("POST", "/api/unmatched/lab/Q-4/claim", { token, body: { patientRef: "P999" } })).status,
    ).to.equal(404);
    await hub.tenant.push("lab", [labReport("Q-5")]);
    expect(
      (await hub.tenant.call("POST", "/api/unmatched/lab/Q-5/dismiss", { token, body: { reason: "x" } })).status,
    ).to.equal(409);
    const noReason = await hub.tenant.call("POST", "/api/unmatched/lab/Q-4/dismiss", { token, body: {} });
    expect(noReason.status).to.equal(400);
    expect(noReason.body.error).to.match(/reason/);
    expect(
      (await hub.tenant.call("POST", "/api/unmatched/scan/Q-4/dismiss", { token, body: { reason: "x" } })).status,
    ).to.equal(404);
  });

  it("claims waiting reports automatically when their patient is registered, and only once across a rebuild", async () => {
    const wang = { name: "王五", idCard: "110105200002290013" };
    await hub.tenant.push("lab", [
      labReport("Q-6", { patient: wang }),
      labReport("Q-7", { patient: { idCard: wang.idCard, name: "别人" } }),
    ]);
    await until(() => inQueue("Q-6"));
    const registered = await hub.tenant.call("PUT", "/api/patients/P006", {
      token: hub.tenant.authorToken,
      body: wang,
    });
    expect(registered.status).to.equal(200);
    await until(async () => !(await inQueue("Q-6")), 8000);
    const row = await hub.service.db.query(
      "select matched, patient_ref from read.lab_reports where external_id = 'Q-6'",
    );
    expect(row.rows).to.deep.equal([{ matched: true, patient_ref: "P006" }]);
    expect(await inQueue("Q-7"), "a report naming someone else stays for a person to decide").to.equal(true);

    const claims =
      "select count(*)::int as n from events where type = 'LabReportClaimed' and stream_id = 'lab-report:Q-6'";
    expect((await hub.service.db.query(claims)).rows[0].n).to.equal(1);
    expect((await rebuildProjection(hub.service.db, autoClaimReactor, silentLogger)).status).to.equal("rebuilt");
    expect((await hub.service.db.query(claims)).rows[0].n, "a replay makes no claim twice").to.equal(1);
  });

  it("replays auto-claim as things were at each event: a report re-sent for another person is not claimed again by a rebuild", async () => {
    const first = { name: "赵六", idCard: "110105195001010012" };
    const other = { name: "钱七", idCard: "110105196001010033" };
    await hub.tenant.push("lab", [labReport("AC-R1", { patient: first })]);
    await until(() => inQueue("AC-R1"));
    expect(
      (await hub.tenant.call("PUT", "/api/patients/P-AC1", { token: hub.tenant.authorToken, body: first })).status,
    ).to.equal(200);
    await until(async () => !(await inQueue("AC-R1")), 8000);
    await hub.tenant.push("lab", [labReport("AC-R1", { patient: other })]);
    await until(() => inQueue("AC-R1"));

    const events = "select type from events where stream_id = 'lab-report:AC-R1' order by stream_version";
    const before = (await hub.service.db.query(events)).rows.map((row) => row.type);
    expect(before).to.deep.equal(["LabReportReceived", "LabReportClaimed", "LabReportReceived"]);
    expect((await rebuildProjection(hub.service.db, autoClaimReactor, silentLogger)).status).to.equal("rebuilt");
    expect(
      (await hub.service.db.query(events)).rows.map((row) => row.type),
      "the rebuild appended nothing",
    ).to.deep.equal(before);
    expect(await inQueue("AC-R1"), "the report about someone else still waits for a person").to.equal(true);
  });

  it("claims nothing when the report was re-sent for another person before auto-claim met the registration", async () => {
    const first = { name: "孙八", idCard: "110105197001010011" };
    const other = { name: "周九", idCard: "110105198001010016" };
    await hub.tenant.push("lab", [labReport("AC-R2", { patient: first })]);
    await until(() => inQueue("AC-R2"));
    // A transaction left open holds every projection and reactor back at this point of the store.
    const holder = await hub.service.db.connect();
    try {
      await holder.query("begin");
      await holder.query("select txid_current()");
      // Saved; while held back, its answer cannot show the patient yet (read-your-writes is #32's).
      expect(
        (await hub.tenant.call("PUT", "/api/patients/P-AC2", { token: hub.tenant.authorToken, body: first })).status,
      ).to.be.below(300);
      await hub.tenant.push("lab", [labReport("AC-R2", { patient: other })]);
    } finally {
      await holder.query("rollback");
      holder.release();
    }
    const autoClaimCaughtUp = `select 1 from projection_generations g where g.name = 'auto_claim' and g.state = 'live'
      and not exists (select 1 from events e where (e.transaction_id, e.position) > (g.last_tx, g.last_position))`;
    await until(async () => (await hub.service.db.query(autoClaimCaughtUp)).rowCount === 1, 15_000);
    const types = (
      await hub.service.db.query("select type from events where stream_id = 'lab-report:AC-R2' order by stream_version")
    ).rows.map((row) => row.type);
    expect(types, "no claim of a report now about someone else").to.deep.equal([
      "LabReportReceived",
      "LabReportReceived",
    ]);
    expect(await inQueue("AC-R2")).to.equal(true);
  });

  describe("the check before claiming (issue #34 item 2)", () => {
    const yuan = { name: "袁金龙", idCard: "110108195803170156" }; // born 1958-03-17, a man
    const ma = { name: "马丽华", idCard: "320102196208040221" }; // born 1962-08-04, a woman, no patient
    const check = (externalId: string, patientRef: string) =>
      hub.tenant.call("GET", `/api/unmatched/lab/${externalId}/check?patientRef=${patientRef}`, {
        token: hub.tenant.authorToken,
      });

    before(async () => {
      expect(
        (
          await hub.tenant.call("PUT", "/api/patients/HD0002", {
            token: hub.tenant.authorToken,
            body: { ...yuan, hisPatientId: "H-2" },
          })
        ).status,
      ).to.equal(200);
      await hub.tenant.push("lab", [
        labReport("CK-1", { patient: { ...ma, hisPatientId: "H-9" } }),
        labReport("CK-2", { patient: { name: " 张 三 ", hisPatientId: "H-1" } }),
        labReport("CK-3", { patient: { name: ZHANG_SAN.name, idCard: "110105194912310021" } }),
        labReport("CK-4", { patient: { name: "张山", idCard: ZHANG_SAN.idCard } }),
      ]);
      await until(async () => (await queue()).filter((e) => e.externalId.startsWith("CK-")).length === 4);
    });

    it("sets another person's report beside the chosen patient: every fact differs, and the patient's birth date is not given", async () => {
      const answer = await check("CK-1", "HD0002");
      expect(answer.status).to.equal(200);
      expect(answer.body).to.deep.equal({
        report: {
          name: "马丽华",
          idCard: "320102********0221",
          idCardState: "valid",
          birthDate: "1962-08-04",
          sex: "F",
          hisPatientId: "H-9",
        },
        patient: { patientRef: "HD0002", name: "袁金龙", idCard: "110108********0156", sex: "M", hisPatientId: "H-2" },
        checks: { name: "differs", idCard: "differs", birthDate: "differs", sex: "differs", hisPatientId: "differs" },
      });
      // Beside the masked card, the birth date would complete the number: neither whole card, nor the patient's hidden digits.
      const text = JSON.stringify(answer.body);
      for (const hidden of [yuan.idCard, ma.idCard, "19580317", "1958-03-17"]) expect(text).not.to.include(hidden);
    });

    it("says what agrees and what the report does not tell: no id card, an invalid one, a name that differs", async () => {
      const noCard = (await check("CK-2", "P001")).body;
      expect(noCard.report).to.include({ idCard: null, idCardState: "missing", birthDate: null, sex: null });
      expect(noCard.checks, "the name as spaced by the sender is the same name").to.deep.equal({
        name: "same",
        idCard: "unknown",
        birthDate: "unknown",
        sex: "unknown",
        hisPatientId: "unknown",
      });

      const invalid = (await check("CK-3", "P001")).body;
      expect(invalid.report).to.include({
        idCard: "110105********0021",
        idCardState: "invalid",
        birthDate: null,
        sex: null,
      });
      expect(invalid.checks).to.deep.equal({
        name: "same",
        idCard: "differs",
        birthDate: "unknown",
        sex: "unknown",
        hisPatientId: "unknown",
      });

      const renamed = (await check("CK-4", "P001")).body;
      expect(renamed.report).to.include({ birthDate: "1949-12-31", sex: "F" });
      expect(renamed.checks).to.deep.equal({
        name: "differs",
        idCard: "same",
        birthDate: "same",
        sex: "same",
        hisPatientId: "unknown",
      });
    });

    it("answers 404 for a report not awaiting claim or an unknown patient, 400 without a patientRef", async () => {
      expect((await check("NOPE", "P001")).status).to.equal(404);
      expect((await check("CK-1", "P999")).status).to.equal(404);
      const bare = await hub.tenant.call("GET", "/api/unmatched/lab/CK-1/check", { token: hub.tenant.authorToken });
      expect([bare.status, bare.body.error]).to.deep.equal([
        400,
        "patientRef is the patient the report would be claimed for, sent once.",
      ]);
      expect(
        (await hub.tenant.call("GET", "/api/unmatched/lab/CK-1/check?patientRef=P001")).status,
        "without a token",
      ).to.equal(401);
    });
  });

  it("pages the queue on request: limit rows, a Link to the next page, every report once, and says how to fix a bad page", async () => {
    await hub.tenant.push(
      "lab",
      ["PG-1", "PG-2", "PG-3", "PG-4", "PG-5"].map((id) => labReport(id, { patient: LI_SI })),
    );
    await until(async () => (await queue()).filter((entry) => entry.externalId.startsWith("PG-")).length === 5);
    const whole = (await queue()).map((entry) => `${entry.kind}:${entry.externalId}`);
    const paged: string[] = [];
    let next: string | null = "/api/unmatched?limit=2";
    let pages = 0;
    while (next) {
      const answer: Answer = await hub.tenant.call("GET", next, { token: hub.tenant.authorToken });
      expect(answer.status).to.equal(200);
      expect(answer.body.length).to.be.at.most(2);
      paged.push(...answer.body.map((entry: Record<string, string>) => `${entry.kind}:${entry.externalId}`));
      next = /^<([^>]+)>; rel="next"$/.exec(answer.headers.get("link") ?? "")?.[1] ?? null;
      pages += 1;
    }
    expect(paged, "the pages hold the whole queue in its order, each report once").to.deep.equal(whole);
    expect(pages).to.equal(Math.ceil(whole.length / 2));
    const badLimit = await hub.tenant.call("GET", "/api/unmatched?limit=0", { token: hub.tenant.authorToken });
    expect([badLimit.status, badLimit.body.error]).to.deep.equal([400, "limit must be a whole number from 1 to 1000."]);
    const forged = Buffer.from(JSON.stringify(["not a time", "PG-1", "lab"])).toString("base64url");
    for (const cursor of ["nonsense", forged]) {
      const badCursor = await hub.tenant.call("GET", `/api/unmatched?limit=2&cursor=${cursor}`, {
        token: hub.tenant.authorToken,
      });
      expect(badCursor.status, cursor).to.equal(400);
      expect(badCursor.body.error).to.match(/cursor is not one this list gave/);
    }
  });
});
