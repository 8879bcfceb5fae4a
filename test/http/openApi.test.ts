import { createHash } from "node:crypto";
import { expect } from "chai";
import { allProjections } from "../../src/app/allProjections.ts";
import { ingestionTenant, labReport, LI_SI, useIngestionService } from "../support/ingestion.ts";
import { httpClient } from "../support/http.ts";
import { startTestService, until } from "../support/service.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";

describe("ingestion open API (/open/v1)", () => {
  const hub = useIngestionService();

  const rows = async (sql: string, params: unknown[] = []) => (await hub.service.db.query(sql, params)).rows;

  describe("envelope and credentials", () => {
    it("answers ping with the client, tenant, server time and dictionary version in the envelope", async () => {
      const ping = await hub.tenant.call("GET", "/open/v1/ping", { token: hub.tenant.client.key });
      expect(ping.status).to.equal(200);
      expect(ping.body).to.include({ code: 200 });
      expect(ping.body.timestamp)
        .to.be.a("number")
        .within(Date.now() - 10_000, Date.now() + 1000);
      expect(ping.body.data).to.include({ pong: true, client: "Central lab LIS", tenant: "h1", apiVersion: "v1" });
      expect(ping.body.data.serverTime).to.match(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(ping.body.data.dictVersion).to.be.a("string").with.length.greaterThan(5);
    });

    it("answers 401 in the envelope without a key or with an unknown one", async () => {
      for (const token of [undefined, "dhk_unknown"]) {
        const answer = await hub.tenant.call("GET", "/open/v1/ping", { token });
        expect(answer.status).to.equal(401);
        expect(answer.body).to.include({ code: 401, data: null });
        expect(answer.body.msg).to.match(/key/);
      }
    });

    it("answers 403 when X-Service-Tenant names another tenant than the key's, 400 when it is malformed", async () => {
      expect(
        (await hub.tenant.call("GET", "/open/v1/ping", { token: hub.tenant.client.key, tenant: "h2" })).body.code,
      ).to.equal(403);
      const malformed = await hub.tenant.call("GET", "/open/v1/ping", { token: hub.tenant.client.key, tenant: "h 1" });
      expect(malformed.status).to.equal(400);
      expect(malformed.body.code).to.equal(400);
    });

    it("answers an unknown path with 404 in the envelope", async () => {
      const answer = await hub.tenant.call("GET", "/open/v1/nothing-here", { token: hub.tenant.client.key });
      expect(answer.status).to.equal(404);
      expect(answer.body).to.include({ code: 404, data: null });
    });
  });

  describe("lab push", () => {
    it("stores a report of a registered patient as CREATED, matched, with its items mapped", async () => {
      const answer = await hub.tenant.push("lab", [labReport("L-100")]);
      expect(answer.status).to.equal(200);
      expect(answer.body.data).to.deep.equal({
        total: 1,
        accepted: 1,
        rejected: 0,
        results: [
          {
            externalId: "L-100",
            status: "CREATED",
            matched: true,
            patientRef: "P001",
            itemsMapped: 2,
            itemsUnmapped: 1,
          },
        ],
      });
      // Committed before the answer: the event is there the moment the push returns.
      const events = await rows(
        "select type, metadata->>'actor' as actor from events where stream_id = 'lab-report:L-100'",
      );
      expect(events).to.deep.equal([{ type: "LabReportReceived", actor: "Central lab LIS" }]);
    });

    it("converts a value sent in another unit to the standard unit, keeping the original beside it", async () => {
      await hub.tenant.push("lab", [labReport("L-101")]);
      const [hgb] = await until(async () => {
        const found = await rows(
          "select value_num, unit, std_value, std_unit, patient_ref from read.lab_results where external_id = 'L-101' and std_code = 'HGB'",
        );
        return found.length ? found : null;
      });
      expect(hgb).to.deep.equal({
        value_num: 11.5,
        unit: "g/dL",
        std_value: 115,
        std_unit: "g/L",
        patient_ref: "P001",
      });
    });

    it("keeps every field of a report and of each item in the read tables", async () => {
      const report = labReport("L-FULL", { reporter: "王医生", reviewer: "李主任", collectedAt: undefined });
      report.items.push({
        itemCode: "P",
        itemName: "磷",
        value: "1.62",
        unit: "mmol/L",
        refLow: 0.87,
        refHigh: 1.45,
        abnormalFlag: "H",
        resultType: "NUMERIC",
      } as never);
      await hub.tenant.push("lab", [report]);
      const [stored] = await until(async () => {
        const found = await rows("select * from read.lab_reports where external_id = 'L-FULL'");
        return found.length ? found : null;
      });
      expect({ ...stored, received_at: typeof stored.received_at }).to.deep.equal({
        tenant: "h1",
        external_id: "L-FULL",
        report_no: "R-L-FULL",
        patient_ref: "P001",
        matched: true,
        pending_reason: null,
        id_card: "11010519491231002X",
        patient_name: "张三",
        his_patient_id: "H-1",
        panel_name: "透析月度检查",
        specimen: "SERUM",
        status: "FINAL",
        lab_name: "Central lab",
        reporter: "王医生",
        reviewer: "李主任",
        collected_at: null,
        reported_at: new Date("2026-03-01T11:00:00"),
        report_day: new Date("2026-03-01T00:00:00"),
        received_at: "object",
        client_name: "Central lab LIS",
        item_count: 4,
        dismissed_at: null,
        dismiss_reason: null,
        ledger_tx: stored.ledger_tx,
        ledger_position: stored.ledger_position,
      });
      const [event] = await rows(
        "select transaction_id::text as tx, position from events where stream_id = 'lab-report:L-FULL'",
      );
      expect(
        [stored.ledger_tx, stored.ledger_position],
        "the report's newest event, for the ledger receipt",
      ).to.deep.equal([event.tx, event.position]);
      // The item rows are a read model of their own, which may apply the report a moment later.
      const items = await until(async () => {
        const found = await rows("select * from read.lab_results where external_id = 'L-FULL' order by item_index");
        return found.length ? found : null;
      });
      const shared = {
        tenant: "h1",
        external_id: "L-FULL",
        patient_ref: "P001",
        collected_at: null,
        collected_on: null,
        reported_at: new Date("2026-03-01T11:00:00"),
        reported_on: new Date("2026-03-01T00:00:00"),
      };
      // client_name and mapping_id: only an item the dictionary left unmapped names its sender (for item mappings, contract F.1).
      const none = {
        ref_low: null,
        ref_high: null,
        abnormal_flag: null,
        result_type: null,
        client_name: null,
        mapping_id: null,
      };
      expect(items).to.deep.equal([
        {
          ...shared,
          ...none,
          item_index: 0,
          item_code: "HGB",
          item_name: "血红蛋白",
          std_code: "HGB",
          std_name: "血红蛋白",
          category: "blood_routine",
          value_num: 11.5,
          value_text: null,
          unit: "g/dL",
          std_value: 115,
          std_unit: "g/L",
          unit_status: "converted",
          ref_low: 11.5,
          ref_high: 15,
        },
        {
          ...shared,
          ...none,
          item_index: 1,
          item_code: "K",
          item_name: "钾",
          std_code: "K",
          std_name: "钾",
          category: "electrolyte",
          value_num: 5.6,
          value_text: null,
          unit: "mmol/L",
          std_value: 5.6,
          std_unit: "mmol/L",
          unit_status: "standard",
          abnormal_flag: "H",
        },
        {
          ...shared,
          ...none,
          item_index: 2,
          item_code: "X-LOCAL-42",
          item_name: "某本地项目",
          std_code: null,
          std_name: null,
          category: null,
          value_num: null,
          value_text: "阴性",
          unit: null,
          std_value: null,
          std_unit: null,
          unit_status: "not-applicable",
          result_type: "QUALITATIVE",
          client_name: "Central lab LIS",
        },
        {
          ...shared,
          item_index: 3,
          item_code: "P",
          item_name: "磷",
          std_code: "P",
          std_name: "磷",
          category: "mineral_bone",
          value_num: 1.62,
          value_text: "1.62",
          unit: "mmol/L",
          std_value: 1.62,
          std_unit: "mmol/L",
          unit_status: "standard",
          ref_low: 0.87,
          ref_high: 1.45,
          abnormal_flag: "H",
          result_type: "NUMERIC",
          client_name: null,
          mapping_id: null,
        },
      ]);
    });

    it("answers UNCHANGED for the same content sent again and stores nothing new", async () => {
      await hub.tenant.push("lab", [labReport("L-102")]);
      const again = await hub.tenant.push("lab", [{ ...labReport("L-102"), unknownExtra: "ignored" }]);
      expect(again.body.data.results[0]).to.include({ status: "UNCHANGED", matched: true, patientRef: "P001" });
      expect(await rows("select count(*)::int as n from events where stream_id = 'lab-report:L-102'")).to.deep.equal([
        { n: 1 },
      ]);
    });

    it("overwrites an earlier report with the same externalId and answers UPDATED", async () => {
      await hub.tenant.push("lab", [labReport("L-103")]);
      const changed = labReport("L-103", { items: [{ itemCode: "ALB", value: 38, unit: "g/L" }] });
      const answer = await hub.tenant.push("lab", [changed]);
      expect(answer.body.data.results[0]).to.include({ status: "UPDATED", itemsMapped: 1, itemsUnmapped: 0 });
      await until(
        async () =>
          (await rows("select std_code from read.lab_results where external_id = 'L-103'"))
            .map((r) => r.std_code)
            .join() === "ALB",
      );
    });

    it("stores an unmatched report and says why it waits for claiming", async () => {
      const reports = [
        labReport("U-1", { patient: { hisPatientId: "H-9" } }),
        labReport("U-2", { patient: { idCard: "110105194912310021", name: "张三" } }),
        labReport("U-3", { patient: { idCard: LI_SI.idCard, name: LI_SI.name } }),
        labReport("U-4", { patient: { idCard: "11010519491231002x", name: "张 四" } }),
      ];
      const answer = await hub.tenant.push("lab", reports);
      expect(
        answer.body.data.results.map((r: { matched: boolean; pendingReason: string }) => [r.matched, r.pendingReason]),
      ).to.deep.equal([
        [false, "idCard is missing"],
        [false, "idCard is not a valid national identity number"],
        [false, "no dialysis patient with this idCard"],
        [false, "name differs from the patient registered with this idCard"],
      ]);
      expect(answer.body.data.accepted).to.equal(4);
    });

    it("matches whitespace-insensitively on the name and on a full-width, lower-case idCard", async () => {
      const answer = await hub.tenant.push("lab", [
        labReport("L-104", { patient: { idCard: " １１０１０５１９４９１２３１００２ｘ ", name: "张 三" } }),
      ]);
      expect(answer.body.data.results[0]).to.include({ matched: true, patientRef: "P001" });
    });

    it("rejects an invalid report with field errors while storing the others of the batch", async () => {
      const answer = await hub.tenant.push("lab", [
        labReport("L-105"),
        labReport("L-106", { reportedAt: "2026-02-30 10:00:00", items: [{ itemCode: "HGB" }] }),
        labReport("L-107"),
      ]);
      const { total, accepted, rejected, results } = answer.body.data;
      expect({ total, accepted, rejected }).to.deep.equal({ total: 3, accepted: 2, rejected: 1 });
      expect(results[1]).to.include({ index: 1, externalId: "L-106", status: "REJECTED" });
      expect(results[1].errors.map((e: { field: string }) => e.field)).to.have.members([
        "reportedAt",
        "items[0].value",
      ]);
      expect(results[2]).to.include({ externalId: "L-107", status: "CREATED" });
      expect(await rows("select count(*)::int as n from events where stream_id = 'lab-report:L-106'")).to.deep.equal([
        { n: 0 },
      ]);
    });

    it("rejects a date in year 0000, which no calendar has, and keeps the read models running on one of AD 1", async () => {
      const answer = await hub.tenant.push("lab", [
        labReport("L-Y0", { reportedAt: "0000-01-01 00:00:00" }),
        labReport("L-Y0C", { collectedAt: "0000-12-31 23:59:59" }),
        labReport("L-Y1", { collectedAt: "0001-01-01 07:00:00", reportedAt: "0001-01-01 08:00:00" }),
      ]);
      const [y0, y0c, y1] = answer.body.data.results;
      expect(y0.errors.map((e: { field: string }) => e.field)).to.deep.equal(["reportedAt"]);
      expect(y0c.errors.map((e: { field: string }) => e.field)).to.deep.equal(["collectedAt"]);
      expect(y1).to.include({ externalId: "L-Y1", status: "CREATED" });
      // A stored report the read tables cannot take would stop them for every tenant.
      await projectionsCaughtUp(hub.service.url!);
      const day = await hub.tenant.call("GET", "/open/v1/reconcile/lab?date=0001-01-01", {
        token: hub.tenant.client.key,
      });
      expect(day.body.data).to.include({ date: "0001-01-01", labReportCount: 1 });
      expect(day.body.data.externalIds).to.deep.equal(["L-Y1"]);
    });

    it("handles one externalId sent twice in a batch in order: CREATED, then UPDATED", async () => {
      const answer = await hub.tenant.push("lab", [labReport("L-108"), labReport("L-108", { labName: "Second lab" })]);
      expect(answer.body.data.results.map((r: { status: string }) => r.status)).to.deep.equal(["CREATED", "UPDATED"]);
    });

    it("lets exactly one of several concurrent pushes of a new externalId create it", async () => {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => hub.tenant.push("lab", [labReport("L-RACE", { labName: `lab ${i}` })])),
      );
      const statuses = answers.map((a) => a.body.data.results[0].status);
      expect(statuses.filter((s) => s === "CREATED")).to.have.length(1);
      expect(statuses.filter((s) => s === "UPDATED")).to.have.length(7);
      expect(await rows("select count(*)::int as n from events where stream_id = 'lab-report:L-RACE'")).to.deep.equal([
        { n: 8 },
      ]);
    });

    it("refuses a request that is wrong as a whole with 400 and a sentence on how to fix it", async () => {
      const { key } = hub.tenant.client;
      const malformed = await hub.tenant.call("POST", "/open/v1/lab/reports", { token: key, body: '{"reports": [' });
      expect(malformed.body).to.include({ code: 400 });
      const missing = await hub.tenant.call("POST", "/open/v1/lab/reports", { token: key, body: { items: [] } });
      expect(missing.body.msg).to.match(/reports is required/);
      const tooMany = await hub.tenant.push(
        "lab",
        Array.from({ length: 101 }, (_, i) => labReport(`M-${i}`)),
      );
      expect(tooMany.status).to.equal(400);
      expect(tooMany.body.msg).to.match(/at most 100/);
      expect(await rows("select count(*)::int as n from events where stream_id like 'lab-report:M-%'")).to.deep.equal([
        { n: 0 },
      ]);
    });

    it("refuses a body over 4 MB with 413 before reading it whole", async () => {
      const big = JSON.stringify({ reports: [labReport("BIG", { labName: "x".repeat(4 * 1024 * 1024) })] });
      const answer = await hub.tenant.call("POST", "/open/v1/lab/reports", { token: hub.tenant.client.key, body: big });
      expect(answer.status).to.equal(413);
      expect(answer.body.code).to.equal(413);
    });
  });

  describe("exam push", () => {
    it("stores an echocardiography report matched to its patient", async () => {
      const answer = await hub.tenant.push("exam", [
        {
          externalId: "E-1",
          reportNo: "US-1",
          patient: { idCard: "11010519491231002X", name: "张三" },
          examType: "ECHO",
          examName: "超声心动图",
          examinedAt: "2026-03-01 09:00:00",
          reportedAt: "2026-03-01 10:00:00",
          findings: "左室壁增厚",
          conclusion: "左室舒张功能减低",
          items: [{ itemCode: "LVEF", itemName: "左室射血分数", value: 62, unit: "%" }],
        },
      ]);
      expect(answer.body.data.results[0]).to.include({
        externalId: "E-1",
        status: "CREATED",
        matched: true,
        patientRef: "P001",
      });
    });

    it("rejects an unknown exam type and lists the valid ones", async () => {
      const answer = await hub.tenant.push("exam", [
        {
          externalId: "E-2",
          patient: { idCard: "11010519491231002X" },
          examType: "MRI",
          reportedAt: "2026-03-01 10:00:00",
        },
      ]);
      const [entry] = answer.body.data.results;
      expect(entry.status).to.equal("REJECTED");
      expect(entry.errors[0].field).to.equal("examType");
      expect(entry.errors[0].message).to.include("ECHO");
    });
  });

  describe("dictionary", () => {
    it("serves at least 50 items and 10 exam types with a version, an ETag, and 304 when unchanged", async () => {
      const first = await hub.tenant.call("GET", "/open/v1/dict/lab-items", { token: hub.tenant.client.key });
      expect(first.body.data.items.length).to.be.at.least(50);
      expect(first.body.data.examTypes.length).to.be.at.least(10);
      const hgb = first.body.data.items.find((item: { code: string }) => item.code === "HGB");
      expect(hgb).to.include({
        name: "血红蛋白",
        category: "blood_routine",
        valueType: "numeric",
        unit: "g/L",
        core: true,
        timing: false,
      });
      // Beside the contract's fields, the English name and the short clinical label (#34 item 5).
      expect(hgb).to.include({ nameEn: "Hemoglobin", label: "Hb" });
      expect(first.body.data.items.find((item: { code: string }) => item.code === "KTV")).to.include({
        name: "尿素清除指数",
        nameEn: "Single-pool Kt/V",
        label: "spKt/V",
      });
      expect(first.body.data.examTypes.find((exam: { code: string }) => exam.code === "ECG")).to.deep.equal({
        code: "ECG",
        name: "心电图",
        nameEn: "Electrocardiogram",
      });
      const etag = first.headers.get("etag")!;
      expect(etag).to.include(first.body.data.version);
      const second = await hub.tenant.call("GET", "/open/v1/dict/lab-items", {
        token: hub.tenant.client.key,
        headers: { "if-none-match": etag },
      });
      expect(second.status).to.equal(304);
    });

    it("records the dictionary in force, unit conversions included, under the version senders see", async () => {
      const served = (await hub.tenant.call("GET", "/open/v1/dict/lab-items", { token: hub.tenant.client.key })).body
        .data;
      const [release] = await rows(
        "select data->>'version' as version, data->'items' as items from events where stream_id = 'dictionary' order by stream_version desc limit 1",
      );
      expect(release.version).to.equal(served.version);
      const hgb = release.items.find((item: { code: string }) => item.code === "HGB");
      expect(hgb.conversions).to.deep.include({ unit: "g/dL", toStandard: { factor: 10 } });
      // What report SQL reads as the standard items.
      const standard = await until(
        async () =>
          (await rows("select name, name_en, label, unit, version from read.std_items where code = 'HGB'"))[0],
      );
      expect(standard).to.deep.equal({
        name: "血红蛋白",
        name_en: "Hemoglobin",
        label: "Hb",
        unit: "g/L",
        version: served.version,
      });
    });

    it("serves the staff pages the same dictionary at /api/dictionary/lab-items, for any role, with its ETag", async () => {
      const open = (await hub.tenant.call("GET", "/open/v1/dict/lab-items", { token: hub.tenant.client.key })).body
        .data;
      const staff = await hub.tenant.call("GET", "/api/dictionary/lab-items", { token: hub.tenant.authorToken });
      expect(staff.status).to.equal(200);
      expect(staff.body).to.deep.equal({ version: open.version, items: open.items, examTypes: open.examTypes });
      const again = await hub.tenant.call("GET", "/api/dictionary/lab-items", {
        token: hub.tenant.authorToken,
        headers: { "if-none-match": staff.headers.get("etag")! },
      });
      expect(again.status).to.equal(304);
      expect((await hub.tenant.call("GET", "/api/dictionary/lab-items")).status, "no credential").to.equal(401);
    });

    it("filters by category and refuses an unknown one, listing the valid categories", async () => {
      const iron = await hub.tenant.call("GET", "/open/v1/dict/lab-items?category=iron", {
        token: hub.tenant.client.key,
      });
      expect(iron.body.data.items.map((item: { category: string }) => item.category)).to.satisfy(
        (cats: string[]) => cats.length > 0 && cats.every((c) => c === "iron"),
      );
      const unknown = await hub.tenant.call("GET", "/open/v1/dict/lab-items?category=astrology", {
        token: hub.tenant.client.key,
      });
      expect(unknown.status).to.equal(400);
      expect(unknown.body.msg).to.include("blood_routine");
    });
  });

  describe("reconciliation", () => {
    it("counts a day's reports and digests their ids in code-point order", async () => {
      const ids = ["R-b", "R-B", "R-a", "R-10", "R-9", "R-é"];
      await hub.tenant.push(
        "lab",
        ids.map((id) => labReport(id, { reportedAt: "2026-04-02 09:00:00" })),
      );
      await hub.tenant.push("lab", [
        labReport("R-unmatched", { reportedAt: "2026-04-02 23:59:59", patient: { hisPatientId: "H-77" } }),
      ]);
      const expected = [...ids, "R-unmatched"].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const answer = await until(async () => {
        const got = await hub.tenant.call("GET", "/open/v1/reconcile/lab?date=2026-04-02", {
          token: hub.tenant.client.key,
        });
        return got.body.data.labReportCount === expected.length ? got : null;
      });
      // B.5's fields; the ledger receipt (D.2) has tests of its own, reconcileReceipt.test.ts.
      const { sealed, ledgerRoot, ...b5 } = answer.body.data;
      expect([typeof sealed, ledgerRoot === null || typeof ledgerRoot === "string"]).to.deep.equal(["boolean", true]);
      expect(b5).to.deep.equal({
        date: "2026-04-02",
        labReportCount: 7,
        examReportCount: 0,
        unmatchedCount: 1,
        externalIdDigest: `sha256:${createHash("sha256").update(expected.join("\n")).digest("hex")}`,
        externalIds: expected,
      });
    });

    it("refuses a missing or impossible date", async () => {
      for (const query of ["", "?date=2026-02-30", "?date=2026/04/02"]) {
        const answer = await hub.tenant.call("GET", `/open/v1/reconcile/lab${query}`, { token: hub.tenant.client.key });
        expect(answer.status, query).to.equal(400);
      }
    });

    it("shows one tenant nothing of another's reports", async () => {
      const other = await ingestionTenant(hub.service, "h2");
      const answer = await other.call("GET", "/open/v1/reconcile/lab?date=2026-04-02", { token: other.client.key });
      expect(answer.body.data.labReportCount).to.equal(0);
      expect(answer.body.data.externalIds).to.deep.equal([]);
    });
  });
});

describe("ingestion open API rate limit", () => {
  it("answers 429 with Retry-After once a client exceeds its rate", async () => {
    const service = await startTestService({
      projections: allProjections,
      env: { OPEN_API_RATE_PER_SECOND: "1", OPEN_API_BURST: "3" },
    });
    try {
      const { client } = await ingestionTenant(service, "h1");
      const call = httpClient(service.url!);
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await call("GET", "/open/v1/ping", { token: client.key }));
      expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200, 429, 429]);
      expect(answers[3]!.headers.get("retry-after")).to.match(/^\d+$/);
      expect(answers[3]!.body.code).to.equal(429);
    } finally {
      await service.stop();
    }
  });
});
