import { expect } from "chai";
import { examReport, LI_SI, useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

describe("exam push (POST /open/v1/exam/reports): the same guarantees as lab push", () => {
  const hub = useIngestionService();

  const rows = async (sql: string, params: unknown[] = []) => (await hub.service.db.query(sql, params)).rows;
  const eventCount = async (externalId: string) =>
    (await rows("select count(*)::int as n from events where stream_id = $1", [`exam-report:${externalId}`]))[0]
      .n as number;
  const storedRow = (externalId: string, ready: (row: Record<string, any>) => boolean = () => true) =>
    until(
      async () =>
        (await rows("select * from read.exam_reports where tenant = 'h1' and external_id = $1", [externalId])).find(
          ready,
        ),
      8000,
    );

  it("answers UNCHANGED for an exam report resent with identical content, and stores nothing new", async () => {
    const first = await hub.tenant.push("exam", [examReport("E-SAME")]);
    expect(first.body.data.results[0]).to.include({ status: "CREATED", matched: true, patientRef: "P001" });
    // Systems resend with their fields in another order; the content is still the same.
    const reordered = Object.fromEntries(Object.entries(examReport("E-SAME")).reverse());
    const again = await hub.tenant.push("exam", [reordered]);
    expect(again.status).to.equal(200);
    expect(again.body.data).to.deep.include({ total: 1, accepted: 1, rejected: 0 });
    expect(again.body.data.results[0]).to.include({
      externalId: "E-SAME",
      status: "UNCHANGED",
      matched: true,
      patientRef: "P001",
    });
    expect(await eventCount("E-SAME")).to.equal(1);
  });

  it("answers UPDATED when the content changes, and the exam read table shows the new content", async () => {
    await hub.tenant.push("exam", [examReport("E-CORR")]);
    await storedRow("E-CORR");
    const corrected = examReport("E-CORR", {
      status: "CORRECTED",
      findings: "左室壁增厚，少量心包积液",
      conclusion: "左室舒张功能减低；少量心包积液",
      items: [{ itemCode: "LVEF", itemName: "左室射血分数", value: 55, unit: "%" }],
    });
    const answer = await hub.tenant.push("exam", [corrected]);
    expect(answer.body.data.results[0]).to.include({
      externalId: "E-CORR",
      status: "UPDATED",
      matched: true,
      patientRef: "P001",
    });
    expect(await eventCount("E-CORR")).to.equal(2);
    const row = await storedRow("E-CORR", (r) => r.status === "CORRECTED");
    expect(row).to.include({
      findings: "左室壁增厚，少量心包积液",
      conclusion: "左室舒张功能减低；少量心包积液",
      patient_ref: "P001",
      matched: true,
    });
    expect(row.items.map((item: { value: unknown }) => item.value)).to.deep.equal([55]);
    expect(
      (await rows("select count(*)::int as n from read.exam_reports where external_id = 'E-CORR'"))[0].n,
      "overwritten, not stored beside",
    ).to.equal(1);
  });

  it("lets exactly one of 8 concurrent pushes of a new exam externalId create it", async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        hub.tenant.push("exam", [examReport("E-RACE", { findings: `finding of push ${i}` })]),
      ),
    );
    const statuses = answers.map((a) => a.body.data.results[0].status);
    expect(statuses.filter((s) => s === "CREATED")).to.have.length(1);
    expect(statuses.filter((s) => s === "UPDATED")).to.have.length(7);
    expect(await eventCount("E-RACE")).to.equal(8);
    // The read table ends on the version the store holds last, whichever push that was.
    const [last] = await rows(
      "select data->'report'->>'findings' as findings from events where stream_id = 'exam-report:E-RACE' order by stream_version desc limit 1",
    );
    const row = await storedRow("E-RACE", (r) => r.findings === last.findings);
    expect(row.findings).to.equal(last.findings);
  });

  it("rejects an exam report with an impossible date with field errors, and stores the others of the batch", async () => {
    const answer = await hub.tenant.push("exam", [
      examReport("E-OK-1"),
      examReport("E-BAD", { examinedAt: "2026-02-30 09:00:00", items: [{ itemCode: "LVEF" }] }),
      examReport("E-OK-2"),
    ]);
    expect(answer.status).to.equal(200);
    const { total, accepted, rejected, results } = answer.body.data;
    expect({ total, accepted, rejected }).to.deep.equal({ total: 3, accepted: 2, rejected: 1 });
    expect(results[1]).to.include({ index: 1, externalId: "E-BAD", status: "REJECTED" });
    expect(results[1].errors.map((e: { field: string }) => e.field)).to.have.members(["examinedAt", "items[0].value"]);
    expect(results[1].errors.find((e: { field: string }) => e.field === "examinedAt").message).to.match(
      /yyyy-MM-dd HH:mm:ss/,
    );
    expect(results[0]).to.include({ externalId: "E-OK-1", status: "CREATED" });
    expect(results[2]).to.include({ externalId: "E-OK-2", status: "CREATED" });
    expect(await eventCount("E-BAD")).to.equal(0);
    expect(await eventCount("E-OK-2")).to.equal(1);
  });

  it("stores unmatched exam reports and says why each waits for claiming", async () => {
    const answer = await hub.tenant.push("exam", [
      examReport("E-U1", { patient: { hisPatientId: "H-9" } }),
      examReport("E-U2", { patient: { idCard: "110105194912310021", name: "张三" } }),
      examReport("E-U3", { patient: { idCard: LI_SI.idCard, name: LI_SI.name } }),
      examReport("E-U4", { patient: { idCard: "11010519491231002x", name: "张 四" } }),
    ]);
    expect(answer.body.data).to.deep.include({ total: 4, accepted: 4, rejected: 0 });
    expect(
      answer.body.data.results.map((r: Record<string, unknown>) => [
        r.externalId,
        r.status,
        r.matched,
        r.patientRef,
        r.pendingReason,
      ]),
    ).to.deep.equal([
      ["E-U1", "CREATED", false, undefined, "idCard is missing"],
      ["E-U2", "CREATED", false, undefined, "idCard is not a valid national identity number"],
      ["E-U3", "CREATED", false, undefined, "no dialysis patient with this idCard"],
      ["E-U4", "CREATED", false, undefined, "name differs from the patient registered with this idCard"],
    ]);
    // A nurse sees the same reasons in the queue.
    const queue = await until(async () => {
      const entries = await hub.tenant.unmatched();
      const ours = entries.filter((e) => /^E-U\d$/.test(e.externalId));
      return ours.length === 4 ? ours : null;
    });
    expect(queue.map((e) => [e.kind, e.externalId, e.pendingReason]).sort()).to.deep.equal([
      ["exam", "E-U1", "idCard is missing"],
      ["exam", "E-U2", "idCard is not a valid national identity number"],
      ["exam", "E-U3", "no dialysis patient with this idCard"],
      ["exam", "E-U4", "name differs from the patient registered with this idCard"],
    ]);
  });
});
