import { expect } from "chai";
import { examReport, useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

describe("exam reports in the unmatched queue", () => {
  const hub = useIngestionService();

  const queue = () => hub.tenant.unmatched();
  const queued = async (externalId: string) =>
    (await queue()).find((entry) => entry.kind === "exam" && entry.externalId === externalId);
  const examRow = async (externalId: string) =>
    (
      await hub.service.db.query(
        "select matched, patient_ref, pending_reason from read.exam_reports where tenant = 'h1' and external_id = $1",
        [externalId],
      )
    ).rows[0];

  it("claims an exam report by hand: it leaves the queue and is matched to the patient", async () => {
    const pushed = await hub.tenant.push("exam", [
      examReport("EQ-HAND", { patient: { hisPatientId: "H-1", name: "张三" } }),
    ]);
    expect(pushed.body.data.results[0]).to.include({
      status: "CREATED",
      matched: false,
      pendingReason: "idCard is missing",
    });
    await until(() => queued("EQ-HAND"));

    const claimed = await hub.tenant.call("POST", "/api/unmatched/exam/EQ-HAND/claim", {
      token: hub.tenant.authorToken,
      body: { patientRef: "P001" },
    });
    expect(claimed.status).to.equal(200);
    expect(claimed.body).to.deep.equal({ kind: "exam", externalId: "EQ-HAND", matched: true, patientRef: "P001" });
    // The claim answers once the queue shows it: the nurse's next look no longer lists it.
    expect(await queued("EQ-HAND")).to.equal(undefined);
    expect(await examRow("EQ-HAND")).to.deep.equal({ matched: true, patient_ref: "P001", pending_reason: null });
  });

  it("keeps a hand-claimed exam report with its patient when the sender resends or corrects it", async () => {
    const patient = { hisPatientId: "H-1" };
    await hub.tenant.push("exam", [examReport("EQ-KEEP", { patient })]);
    await until(() => queued("EQ-KEEP"));
    await hub.tenant.call("POST", "/api/unmatched/exam/EQ-KEEP/claim", {
      token: hub.tenant.authorToken,
      body: { patientRef: "P001" },
    });

    const resent = await hub.tenant.push("exam", [examReport("EQ-KEEP", { patient })]);
    expect(resent.body.data.results[0]).to.include({ status: "UNCHANGED", matched: true, patientRef: "P001" });
    const corrected = await hub.tenant.push("exam", [
      examReport("EQ-KEEP", { patient, conclusion: "心影增大，较前相仿" }),
    ]);
    expect(corrected.body.data.results[0]).to.include({ status: "UPDATED", matched: true, patientRef: "P001" });
    await until(
      async () =>
        (await hub.service.db.query("select conclusion from read.exam_reports where external_id = 'EQ-KEEP'")).rows[0]
          ?.conclusion === "心影增大，较前相仿",
    );
    expect(await examRow("EQ-KEEP")).to.deep.equal({ matched: true, patient_ref: "P001", pending_reason: null });
    expect(await queued("EQ-KEEP"), "the correction must not put it back in the queue").to.equal(undefined);
  });

  it("claims waiting exam reports automatically once their patient is registered with that id card and name", async () => {
    const zhao = { name: "赵六", idCard: "110105198001010016" };
    await hub.tenant.push("exam", [
      examReport("EQ-AUTO-NAMED", { patient: zhao }),
      examReport("EQ-AUTO-NONAME", { patient: { idCard: zhao.idCard } }),
      examReport("EQ-AUTO-OTHER", { patient: { idCard: zhao.idCard, name: "别人" } }),
    ]);
    const waiting = await until(() => queued("EQ-AUTO-NAMED"));
    expect(waiting.pendingReason).to.equal("no dialysis patient with this idCard");
    await until(() => queued("EQ-AUTO-OTHER"));

    const registered = await hub.tenant.call("PUT", "/api/patients/P010", {
      token: hub.tenant.authorToken,
      body: { ...zhao, ward: "B" },
    });
    expect(registered.status).to.equal(200);

    await until(async () => !(await queued("EQ-AUTO-NAMED")) && !(await queued("EQ-AUTO-NONAME")), 8000);
    expect(await examRow("EQ-AUTO-NAMED")).to.deep.equal({ matched: true, patient_ref: "P010", pending_reason: null });
    expect(await examRow("EQ-AUTO-NONAME")).to.deep.equal({ matched: true, patient_ref: "P010", pending_reason: null });
    // Same id card, another name: a person must decide whether it is this patient.
    expect(await queued("EQ-AUTO-OTHER")).to.include({ pendingReason: "no dialysis patient with this idCard" });
    expect(await examRow("EQ-AUTO-OTHER")).to.include({ matched: false, patient_ref: null });

    const claims = await hub.service.db.query(
      "select stream_id, metadata->>'actor' as actor from events where tenant = 'h1' and type = " +
        "'ExamReportClaimed' and stream_id like 'exam-report:EQ-AUTO-%' order by stream_id",
    );
    expect(claims.rows).to.deep.equal([
      { stream_id: "exam-report:EQ-AUTO-NAMED", actor: "auto-claim" },
      { stream_id: "exam-report:EQ-AUTO-NONAME", actor: "auto-claim" },
    ]);
  });
});
