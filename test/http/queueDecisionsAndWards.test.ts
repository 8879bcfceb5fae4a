import { expect } from "chai";
import { makeIdCard } from "../../src/demo/demoData.ts";
import { ADMIN } from "../support/http.ts";
import { labReport, useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

/**
 * Issue #51, deliverable 6: a refusal never names a patient the caller may not see (finding 5, the
 * id-card oracle), and a claim or dismissal never silently overrides one made a moment before by
 * someone else (finding 6): the queue and the history give the report's etag, and a decision sent
 * with it (If-Match) is refused, saying what changed and by whom, when the report changed since.
 */
describe("no oracle, no silent override (issue #51 deliverable 6)", () => {
  const hub = useIngestionService();
  const call = (...args: Parameters<typeof hub.tenant.call>) => hub.tenant.call(...args);
  const tokenOf = async (name: string, extra: Record<string, unknown> = {}) => {
    const made = await call("POST", "/api/admin/authors", { token: ADMIN, body: { name, tenant: "h1", ...extra } });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    return made.body.token as string;
  };
  const entryOf = (externalId: string) =>
    until(async () => (await hub.tenant.unmatched()).find((entry) => entry.externalId === externalId));
  const historyOf = async (externalId: string) =>
    (await call("GET", `/api/history/lab/${externalId}`, { token: hub.tenant.authorToken })).body;
  const decisions = async (externalId: string) =>
    ((await historyOf(externalId)).entries as Array<{ event: string; by: string }>).map(
      (entry) => `${entry.event} ${entry.by}`,
    );
  const claim = (externalId: string, token: string, patientRef: string, ifMatch?: string) =>
    call("POST", `/api/unmatched/lab/${externalId}/claim`, {
      token,
      body: { patientRef },
      headers: ifMatch ? { "if-match": ifMatch } : {},
    });
  const dismiss = (externalId: string, token: string, reason: string, ifMatch?: string) =>
    call("POST", `/api/unmatched/lab/${externalId}/dismiss`, {
      token,
      body: { reason },
      headers: ifMatch ? { "if-match": ifMatch } : {},
    });

  const ward5B = { name: "病人五乙", idCard: makeIdCard("110105", "19560202", 51), ward: "5B" };
  let chen: string; // Nurse Chen, every ward (the tenant's author)
  let wang: string; // Nurse Wang, every ward
  let ward3A: string; // an author limited to ward 3A

  before(async () => {
    chen = hub.tenant.authorToken;
    wang = await tokenOf("Nurse Wang");
    ward3A = await tokenOf("Nurse 3A", { roles: ["author"], wards: ["3A"] });
    for (const [ref, body] of [
      ["W-3A", { name: "病人三甲", idCard: makeIdCard("110105", "19550101", 41), ward: "3A" }],
      ["W-5B", ward5B],
    ] as const) {
      expect((await call("PUT", `/api/patients/${ref}`, { token: ADMIN, body })).status).to.equal(200);
    }
  });

  describe("refusals name no patient outside the caller's wards (finding 5)", () => {
    it("refuses a 3A author the id card of a 5B patient without naming that patient, and registers no second patient", async () => {
      const taken = await call("PUT", "/api/patients/W-NEW", {
        token: ward3A,
        body: { name: "新病人", idCard: ward5B.idCard, ward: "3A" },
      });
      expect(taken.status).to.equal(409);
      expect(taken.body.code).to.equal("id-card-taken-outside-wards");
      expect(JSON.stringify(taken.body)).not.to.include("W-5B");
      expect(taken.body.error).to.match(/already registered to another patient/);
      expect(
        (await call("GET", "/api/patients/W-NEW", { token: ADMIN })).status,
        "no second patient with the same id card",
      ).to.equal(404);
      const everyWard = await call("PUT", "/api/patients/W-NEW", {
        token: chen,
        body: { name: "新病人", idCard: ward5B.idCard, ward: "3A" },
      });
      expect([everyWard.status, everyWard.body.code], "a caller who sees the holder is told who it is").to.deep.equal([
        409,
        "id-card-taken",
      ]);
      expect(everyWard.body.error).to.include("W-5B");
    });

    it("answers a 3A author's claim or dismissal of a 5B patient's report 404, as a report that does not exist", async () => {
      await hub.tenant.push("lab", [labReport("NO-5B-1", { patient: { name: ward5B.name, idCard: ward5B.idCard } })]);
      // Matched to W-5B on arrival: every-ward callers are told so, with the patient.
      const seen = await until(async () => {
        const answer = await dismiss("NO-5B-1", chen, "x");
        return answer.status === 409 ? answer : undefined;
      });
      expect([seen.body.code, seen.body.error]).to.deep.equal([
        "report-already-matched",
        "This report is already matched to patient W-5B; only reports awaiting claim can be claimed or dismissed.",
      ]);
      const unknown = await claim("NO-SUCH-REPORT", ward3A, "W-3A");
      for (const answer of [
        await claim("NO-5B-1", ward3A, "W-3A"),
        await dismiss("NO-5B-1", ward3A, "not ours"),
        await claim("NO-5B-1", ward3A, "W-3A", '"report-1"'),
      ]) {
        expect(answer.status).to.equal(404);
        expect(answer.body, "the same answer as an unknown report").to.deep.equal(unknown.body);
        expect(JSON.stringify(answer.body)).not.to.include("W-5B");
      }
      expect(await decisions("NO-5B-1"), "nothing was decided").to.deep.equal(["RECEIVED Central lab LIS"]);
    });

    it("answers a claim for another ward's patient 404 as for an unknown one, and the check before it too", async () => {
      await hub.tenant.push("lab", [labReport("NO-5B-2", { patient: { name: "某人", hisPatientId: "H-77" } })]);
      const entry = await entryOf("NO-5B-2");
      const other = await claim("NO-5B-2", ward3A, "W-5B", entry.etag);
      const unknown = await claim("NO-5B-2", ward3A, "W-NONE", entry.etag);
      expect([other.status, other.body.code]).to.deep.equal([404, "patient-not-found"]);
      expect(other.body.error).to.equal(unknown.body.error.replaceAll("W-NONE", "W-5B"));
      expect(
        (await call("GET", "/api/unmatched/lab/NO-5B-2/check?patientRef=W-5B", { token: ward3A })).status,
      ).to.equal(404);
      expect(await entryOf("NO-5B-2"), "still waiting").to.include({ etag: entry.etag });
    });

    it("tells a changed report's story without naming the patient it was claimed for in between", async () => {
      await hub.tenant.push("lab", [labReport("NO-5B-3", { patient: { name: "某人", hisPatientId: "H-78" } })]);
      const read = await entryOf("NO-5B-3");
      expect((await claim("NO-5B-3", chen, "W-5B", read.etag)).status).to.equal(200);
      // The laboratory sends it again for someone else: it waits again, after a claim for a 5B patient.
      await hub.tenant.push("lab", [
        labReport("NO-5B-3", { patient: { name: "别人", hisPatientId: "H-79" }, labName: "again" }),
      ]);
      await until(async () => (await entryOf("NO-5B-3")).etag !== read.etag);
      const refused = await dismiss("NO-5B-3", ward3A, "not ours", read.etag);
      expect([refused.status, refused.body.code]).to.deep.equal([409, "queue-entry-changed"]);
      expect(refused.body.error).to.match(
        /claimed for a patient by Nurse Chen at .*, then sent again by Central lab LIS at /,
      );
      expect(refused.body.error).not.to.include("W-5B");
    });
  });

  describe("a decision based on a report that changed since is refused (finding 6)", () => {
    it("gives each waiting report an etag, and the history the same one as its ETag", async () => {
      await hub.tenant.push("lab", [labReport("OV-0", { patient: { hisPatientId: "H-80" } })]);
      const entry = await entryOf("OV-0");
      expect(entry.etag).to.equal('"report-1"');
      const history = await call("GET", "/api/history/lab/OV-0", { token: chen });
      expect([history.body.etag, history.headers.get("etag")]).to.deep.equal(['"report-1"', '"report-1"']);
    });

    it("refuses a claim made on the queue as read before someone else's dismissal, saying who dismissed it, when and why", async () => {
      await hub.tenant.push("lab", [labReport("OV-1", { patient: { hisPatientId: "H-81" } })]);
      const read = await entryOf("OV-1");
      expect((await dismiss("OV-1", wang, "sent to the wrong centre", read.etag)).status).to.equal(200);
      const late = await claim("OV-1", chen, "P001", read.etag);
      expect([late.status, late.body.code]).to.deep.equal([409, "queue-entry-changed"]);
      expect(late.body.error).to.match(
        new RegExp(
          String.raw`^This report changed since you read it: since "report-1" it was dismissed by Nurse Wang at ` +
            String.raw`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(reason: "sent to the wrong centre"\)\. Nothing was done\. ` +
            String.raw`It is now "report-2"`,
        ),
      );
      expect(await decisions("OV-1"), "the dismissal stands, no claim over it").to.deep.equal([
        "RECEIVED Central lab LIS",
        "DISMISSED Nurse Wang",
      ]);
    });

    it("refuses a claim without If-Match of a dismissed report; with the report's etag as it is now, the claim is made on purpose", async () => {
      await hub.tenant.push("lab", [labReport("OV-2", { patient: { hisPatientId: "H-82" } })]);
      await entryOf("OV-2");
      expect((await dismiss("OV-2", wang, "duplicate")).status).to.equal(200);
      const blind = await claim("OV-2", chen, "P001");
      expect([blind.status, blind.body.code]).to.deep.equal([409, "report-dismissed"]);
      expect(blind.body.error).to.match(
        new RegExp(
          String.raw`^This report no longer awaits claim: it was dismissed by Nurse Wang at .* \(reason: "duplicate"\)\. ` +
            String.raw`To claim it all the same, send the claim again with If-Match: "report-2"`,
        ),
      );
      const { etag } = await historyOf("OV-2");
      expect((await claim("OV-2", chen, "P001", etag)).status).to.equal(200);
      expect(await decisions("OV-2")).to.deep.equal([
        "RECEIVED Central lab LIS",
        "DISMISSED Nurse Wang",
        "CLAIMED Nurse Chen",
      ]);
    });

    it("refuses a dismissal after someone else's claim, and a claim of a report sent again since", async () => {
      await hub.tenant.push("lab", [
        labReport("OV-3", { patient: { hisPatientId: "H-83" } }),
        labReport("OV-4", { patient: { hisPatientId: "H-84" } }),
      ]);
      const [three, four] = [await entryOf("OV-3"), await entryOf("OV-4")];
      expect((await claim("OV-3", wang, "P001", three.etag)).status).to.equal(200);
      const dismissal = await dismiss("OV-3", chen, "not ours", three.etag);
      expect([dismissal.status, dismissal.body.code]).to.deep.equal([409, "queue-entry-changed"]);
      expect(dismissal.body.error).to.match(/since "report-1" it was claimed for a patient by Nurse Wang at /);

      await hub.tenant.push("lab", [labReport("OV-4", { patient: { hisPatientId: "H-84" }, labName: "corrected" })]);
      await until(async () => (await entryOf("OV-4")).etag === '"report-2"');
      const stale = await claim("OV-4", chen, "P001", four.etag);
      expect([stale.status, stale.body.code]).to.deep.equal([409, "queue-entry-changed"]);
      expect(stale.body.error).to.match(/since "report-1" it was sent again by Central lab LIS at /);
      expect((await claim("OV-4", chen, "P001", '"report-2"')).status, "read again, decided anew").to.equal(200);
    });

    it("takes a retry of one's own decision (the answer lost on the way) as done, once", async () => {
      await hub.tenant.push("lab", [
        labReport("OV-5", { patient: { hisPatientId: "H-85" } }),
        labReport("OV-6", { patient: { hisPatientId: "H-86" } }),
      ]);
      const [five, six] = [await entryOf("OV-5"), await entryOf("OV-6")];
      for (let i = 0; i < 2; i++) expect((await claim("OV-5", chen, "P001", five.etag)).status).to.equal(200);
      for (let i = 0; i < 2; i++) expect((await dismiss("OV-6", chen, "test", six.etag)).status).to.equal(200);
      expect(await decisions("OV-5")).to.deep.equal(["RECEIVED Central lab LIS", "CLAIMED Nurse Chen"]);
      expect(await decisions("OV-6")).to.deep.equal(["RECEIVED Central lab LIS", "DISMISSED Nurse Chen"]);
    });

    it("says how to write If-Match when it is not an etag of a report, and refuses one the report never had", async () => {
      await hub.tenant.push("lab", [labReport("OV-7", { patient: { hisPatientId: "H-87" } })]);
      await entryOf("OV-7");
      for (const ifMatch of ["report-1", '"draft-1"', "*", '"report-0"']) {
        const bad = await claim("OV-7", chen, "P001", ifMatch);
        expect(bad.status, ifMatch).to.equal(400);
        expect(bad.body.error).to.match(/^If-Match takes the etag of the report/);
      }
      const never = await claim("OV-7", chen, "P001", '"report-9"');
      expect([never.status, never.body.code]).to.deep.equal([409, "queue-entry-changed"]);
      expect(never.body.error).to.include('the ETag "report-9" is not one this report has had');
    });
  });
});
