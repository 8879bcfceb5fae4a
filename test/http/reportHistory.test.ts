import { expect } from "chai";
import { ADMIN } from "../support/http.ts";
import { ingestionTenant, labReport, LI_SI, useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

/* Contract D.1: the history of a report, its versions as accepted and the diff of two, over HTTP. */

const WANG_WU = { name: "王五", idCard: "110105200002290013" };
const ZHAO_LIU = { name: "赵六", idCard: "110105198001010016" };

describe("history of a report (/api/history)", () => {
  const hub = useIngestionService();
  const asAuthor = (path: string) => hub.tenant.call("GET", path, { token: hub.tenant.authorToken });

  // Version 1 names 李四, whom the centre has not registered; version 2 re-orders the items and
  // changes one value; a person claims it for P001; version 3 names 王五 instead (the claim does
  // not carry over to another person) and it waits again, until it is dismissed.
  const v1 = labReport("HIST-1", {
    patient: { idCard: LI_SI.idCard, name: LI_SI.name },
    sentByMistake: "not a report field",
  });
  const [hgb, k, local] = v1.items as Array<Record<string, unknown>>;
  const v2 = { ...v1, items: [k, local, { ...hgb, value: 12.5 }] };
  const v3 = { ...v2, patient: { idCard: WANG_WU.idCard, name: WANG_WU.name }, items: [k, local] };

  before(async () => {
    for (const version of [v1, v2, v2]) expect((await hub.tenant.push("lab", [version])).status).to.equal(200);
    expect(
      (
        await hub.tenant.call("POST", "/api/unmatched/lab/HIST-1/claim", {
          token: hub.tenant.authorToken,
          body: { patientRef: "P001" },
        })
      ).status,
    ).to.equal(200);
    expect((await hub.tenant.push("lab", [v3])).body.data.results[0]).to.include({ status: "UPDATED", matched: false });
    expect(
      (
        await hub.tenant.call("POST", "/api/unmatched/lab/HIST-1/dismiss", {
          token: hub.tenant.authorToken,
          body: { reason: "not our patient" },
        })
      ).status,
    ).to.equal(200);
  });

  it("tells what happened to the report, oldest first, with who, when, the request and each version's hash", async () => {
    const answer = await asAuthor("/api/history/lab/HIST-1");
    expect(answer.status).to.equal(200);
    expect(answer.body).to.include({ kind: "lab", externalId: "HIST-1", current: 3 });
    const entries = answer.body.entries as Array<Record<string, unknown>>;
    const strip = ({ at: _at, requestId: _id, contentHash: _hash, ...rest }: Record<string, unknown>) => rest;
    expect(entries.map(strip)).to.deep.equal([
      {
        seq: 1,
        event: "RECEIVED",
        by: "Central lab LIS",
        version: 1,
        status: "CREATED",
        matched: false,
        patientRef: null,
      },
      {
        seq: 2,
        event: "RECEIVED",
        by: "Central lab LIS",
        version: 2,
        status: "UPDATED",
        matched: false,
        patientRef: null,
      },
      { seq: 3, event: "CLAIMED", by: "Nurse Chen", matched: true, patientRef: "P001" },
      {
        seq: 4,
        event: "RECEIVED",
        by: "Central lab LIS",
        version: 3,
        status: "UPDATED",
        matched: false,
        patientRef: null,
      },
      {
        seq: 5,
        event: "REQUEUED",
        by: "Central lab LIS",
        matched: false,
        patientRef: null,
        reason: entries[4]!.reason,
      },
      { seq: 6, event: "DISMISSED", by: "Nurse Chen", reason: "not our patient" },
    ]);
    expect(entries[4]!.reason).to.be.a("string").and.not.equal("");
    for (const entry of entries) {
      expect(entry.at).to.match(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(entry.requestId).to.be.a("string").and.not.equal("");
    }
    const hashes = entries.filter((entry) => entry.event === "RECEIVED").map((entry) => entry.contentHash as string);
    for (const hash of hashes) expect(hash).to.match(/^sha256:[0-9a-f]{64}$/);
    expect(new Set(hashes).size, "three different versions, the unchanged re-push not among them").to.equal(3);
  });

  it("shows a claim made automatically as by auto", async () => {
    expect((await hub.tenant.push("lab", [labReport("HIST-AUTO", { patient: ZHAO_LIU })])).status).to.equal(200);
    expect(
      (
        await hub.tenant.call("PUT", "/api/patients/P077", {
          token: hub.tenant.authorToken,
          body: { ...ZHAO_LIU, ward: "B" },
        })
      ).status,
    ).to.equal(200);
    const claimed = await until(async () => {
      const entries = (await asAuthor("/api/history/lab/HIST-AUTO")).body.entries as Array<Record<string, unknown>>;
      return entries.find((entry) => entry.event === "CLAIMED");
    }, 10_000);
    expect(claimed).to.include({ by: "auto", matched: true, patientRef: "P077" });
  });

  it("serves each version exactly as accepted, unknown fields stripped", async () => {
    const first = await asAuthor("/api/history/lab/HIST-1/versions/1");
    expect(first.status).to.equal(200);
    expect(first.body).to.include({ version: 1, by: "Central lab LIS" });
    expect(first.body.receivedAt).to.match(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(first.body.report).to.deep.include({
      externalId: "HIST-1",
      patient: { idCard: LI_SI.idCard, name: LI_SI.name },
      items: v1.items,
    });
    expect(first.body.report).not.to.have.property("sentByMistake");
    expect((await asAuthor("/api/history/lab/HIST-1/versions/3")).body.report.patient).to.deep.equal({
      idCard: WANG_WU.idCard,
      name: WANG_WU.name,
    });
  });

  it("names the standard item each result of a version was mapped to, in the order of its items (#34 item 5)", async () => {
    const hgbItem = { code: "HGB", name: "血红蛋白", nameEn: "Hemoglobin", label: "Hb" };
    const kItem = { code: "K", name: "钾", nameEn: "Potassium", label: "K" };
    expect((await asAuthor("/api/history/lab/HIST-1/versions/1")).body.standardItems).to.deep.equal([
      hgbItem,
      kItem,
      null,
    ]);
    expect(
      (await asAuthor("/api/history/lab/HIST-1/versions/2")).body.standardItems,
      "as version 2 orders its items",
    ).to.deep.equal([kItem, null, hgbItem]);
  });

  it("diffs two versions pairing items by code, not by position", async () => {
    const reordered = await asAuthor("/api/history/lab/HIST-1/diff?from=1&to=2");
    expect(reordered.status).to.equal(200);
    expect(reordered.body).to.deep.equal({
      from: 1,
      to: 2,
      changes: [{ path: "items[2].value", before: 11.5, after: 12.5 }],
    });

    const changed = await asAuthor("/api/history/lab/HIST-1/diff?from=2&to=3");
    expect(changed.body.changes).to.deep.include.members([
      { path: "patient.idCard", before: LI_SI.idCard, after: WANG_WU.idCard },
      { path: "patient.name", before: LI_SI.name, after: WANG_WU.name },
      { path: "items[2]", before: { ...hgb, value: 12.5 }, after: null },
    ]);
    expect(changed.body.changes).to.have.length(3);
    expect((await asAuthor("/api/history/lab/HIST-1/diff?from=2&to=2")).body.changes).to.deep.equal([]);
  });

  it("answers 404 for an unknown report, another tenant's report or a missing version, and 400 for a version that is not a number", async () => {
    expect((await asAuthor("/api/history/lab/NO-SUCH")).status).to.equal(404);
    expect((await asAuthor("/api/history/exam/HIST-1")).status, "HIST-1 is a lab report").to.equal(404);
    expect((await asAuthor("/api/history/blood/HIST-1")).status).to.equal(404);
    const missing = await asAuthor("/api/history/lab/HIST-1/versions/4");
    expect(missing.status).to.equal(404);
    expect(missing.body.error).to.match(/no version 4/);
    expect((await asAuthor("/api/history/lab/HIST-1/diff?from=1&to=9")).status).to.equal(404);
    for (const path of [
      "/api/history/lab/HIST-1/versions/first",
      "/api/history/lab/HIST-1/versions/0",
      "/api/history/lab/HIST-1/diff?from=1",
      "/api/history/lab/HIST-1/diff?from=a&to=2",
    ]) {
      const bad = await asAuthor(path);
      expect(bad.status, path).to.equal(400);
      expect(bad.body.error, path).to.match(/version number/);
    }

    const other = await ingestionTenant(hub.service, "h2");
    expect((await other.call("GET", "/api/history/lab/HIST-1", { token: other.authorToken })).status).to.equal(404);
    expect((await other.call("GET", "/api/history/lab/HIST-1/versions/1", { token: ADMIN })).status).to.equal(404);
  });

  it("needs an author token of the tenant or the ADMIN_TOKEN", async () => {
    expect((await hub.tenant.call("GET", "/api/history/lab/HIST-1")).status).to.equal(401);
    expect((await hub.tenant.call("GET", "/api/history/lab/HIST-1", { token: ADMIN })).status).to.equal(200);
  });
});
