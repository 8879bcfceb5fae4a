import { expect } from "chai";
import ExcelJS from "exceljs";
import { localDateTime } from "../../db/localDateTime.ts";
import type { AccessRecordAnswer } from "../../queries/access/accessLog.ts";
import { ADMIN, httpClient, type Answer } from "../support/http.ts";
import { labReport, LI_SI, useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

/*
 * Issue #54: the access log's 35 records in 20 minutes had no filter and no export. The tenant's
 * log (contract E.4, additively) is filtered by patient and action beside who and the period,
 * read the newest first when asked, still a page at a time by its keyset cursor, and exported as
 * xlsx or CSV with the same filters. And an alert stream that only tells a page that something
 * changed (content=notice, what the staff pages' badge holds open) names no patient and records
 * no look, while the full stream still records each alert it shows.
 */

type Page = { records: AccessRecordAnswer[]; next: string | null };

describe("the tenant's access log filtered and exported, and the alert stream's notices (issue #54)", function () {
  this.timeout(60_000);
  const hub = useIngestionService();
  const call = <T = any>(method: string, path: string, token = ADMIN) =>
    httpClient(hub.service.url!)<T>(method, path, { token, tenant: "h1" });
  /** Every record of the tenant, through the list's pages, with `query` beside limit and cursor. */
  const every = async (query: string, limit = 1000): Promise<AccessRecordAnswer[]> => {
    const records: AccessRecordAnswer[] = [];
    let cursor: string | null = null;
    do {
      const page: Answer<Page> = await call<Page>(
        "GET",
        `/api/admin/access-log?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(page.status, JSON.stringify(page.body)).to.equal(200);
      records.push(...page.body.records);
      cursor = page.body.next;
    } while (cursor);
    return records;
  };
  /** Waits until the record of `answer` is in the log. */
  const recorded = (answer: Answer) =>
    until(async () =>
      (await every("order=newest", 50)).some((record) => record.requestId === answer.headers.get("x-request-id")),
    );

  before(async () => {
    const { tenant } = hub;
    expect(
      (await tenant.call("PUT", "/api/patients/P002", { token: tenant.authorToken, body: { ...LI_SI, ward: "B" } }))
        .status,
    ).to.equal(200);
    // A report of P001's, in its chart before anyone looks.
    expect((await tenant.push("lab", [labReport("AL-1")])).status).to.equal(200);
    await until(
      async () =>
        (await tenant.call("GET", "/api/patients/P001/results?codes=K", { token: ADMIN })).body?.series?.[0]?.points
          ?.length === 1,
      10_000,
    );
    // Nurse Chen looks at P001's chart three times and P002's once; the operator lists the patients.
    for (let i = 0; i < 3; i++)
      expect((await tenant.call("GET", "/api/patients/P001/results", { token: tenant.authorToken })).status).to.equal(
        200,
      );
    expect((await tenant.call("GET", "/api/patients/P002/results", { token: tenant.authorToken })).status).to.equal(
      200,
    );
    await recorded(await call("GET", "/api/patients"));
  });

  it("filters by patient and by action, each with who and the period, and reads the newest first, page by page", async () => {
    const all = await every("");
    const ofP002 = await every("patientRef=P002");
    expect(ofP002.length).to.be.greaterThan(0);
    expect(ofP002.every((record) => record.patientRefs.includes("P002"))).to.equal(true);
    expect(ofP002.length, "every record naming P002").to.equal(
      all.filter((r) => r.patientRefs.includes("P002")).length,
    );

    const chartsOfP001 = await every(
      `patientRef=P001&action=${encodeURIComponent("GET /api/patients/{patientRef}/results")}&who=${encodeURIComponent("Nurse Chen")}`,
    );
    expect(chartsOfP001.map((record) => [record.who, record.action, record.patientRefs])).to.deep.equal(
      Array(3).fill(["Nurse Chen", "GET /api/patients/{patientRef}/results", ["P001"]]),
    );
    const lists = await every(`action=${encodeURIComponent("GET /api/patients")}`);
    expect(lists.length).to.be.greaterThan(0);
    expect(lists.every((record) => record.action === "GET /api/patients")).to.equal(true);

    const tomorrow = localDateTime(new Date(Date.now() + 86_400_000)).slice(0, 10);
    expect(await every(`patientRef=P002&from=${tomorrow}`)).to.deep.equal([]);

    // The newest first, two at a time: the same records as written, the other way round, each once.
    const newest = await every("order=newest", 2);
    expect(newest.map((record) => record.requestId)).to.deep.equal(
      (await every("order=oldest")).map((record) => record.requestId).reverse(),
    );
    const first = await call<Page>("GET", "/api/admin/access-log?order=newest&limit=1&patientRef=P001");
    const second = await call<Page>(
      "GET",
      `/api/admin/access-log?order=newest&limit=1&patientRef=P001&cursor=${first.body.next}`,
    );
    expect(second.body.records[0]!.at <= first.body.records[0]!.at).to.equal(true);
    expect(second.body.records[0]!.requestId).to.not.equal(first.body.records[0]!.requestId);
  });

  it("answers 400 saying how to fix a bad patient, action, order or format, and 403 with a code to an administrator of some wards", async () => {
    for (const [path, says] of [
      ["/api/admin/access-log?patientRef=-P001", /patientRef must be 1 to 64 letters/],
      ["/api/admin/access-log?action=", /action must not be empty/],
      ["/api/admin/access-log?order=latest", /order is oldest .* or newest/],
      ["/api/admin/access-log/export?format=pdf", /format is xlsx or csv/],
      ["/api/admin/access-log/export?lang=fr", /lang must be en or zh/],
      ["/api/admin/access-log/export?limit=5", /The query parameters are who, patientRef, action, from and to/],
    ] as const) {
      const answer = await call("GET", path);
      expect(answer.status, path).to.equal(400);
      expect(answer.body.error, path).to.match(says);
    }
    const made = await httpClient(hub.service.url!)("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: "Ward A admin", tenant: "h1", roles: ["admin"], wards: ["A"] },
    });
    expect(made.status).to.equal(201);
    for (const path of ["/api/admin/access-log", "/api/admin/access-log/export"]) {
      const refused = await call("GET", path, made.body.token);
      expect(refused.status, path).to.equal(403);
      expect(refused.body.code, path).to.equal("access-log-every-ward");
    }
  });

  it("exports the records the filters choose as xlsx, its words in the page's language, and as CSV", async () => {
    const query = `patientRef=P001&who=${encodeURIComponent("Nurse Chen")}`;
    const chosen = await every(query);
    const response = await fetch(`${hub.service.url}/api/admin/access-log/export?${query}&lang=zh`, {
      headers: { authorization: `Bearer ${ADMIN}`, "x-service-tenant": "h1" },
    });
    expect(response.status).to.equal(200);
    expect(response.headers.get("content-type")).to.equal(
      "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    );
    const today = localDateTime(new Date()).slice(0, 10);
    expect(response.headers.get("content-disposition")).to.include(
      `filename*=UTF-8''${encodeURIComponent(`访问日志 h1 ${today}.xlsx`)}`,
    );
    const book = new ExcelJS.Workbook();
    await book.xlsx.load((await response.arrayBuffer()) as never);
    expect(book.worksheets.map((sheet) => sheet.name)).to.deep.equal(["访问日志", "说明"]);
    const sheet = book.getWorksheet("访问日志")!;
    expect((sheet.getRow(1).values as unknown[]).slice(1)).to.deep.equal([
      "时间",
      "访问者",
      "凭据",
      "角色",
      "操作（接口）",
      "显示的患者",
      "显示的报告",
      "请求编号",
      "结果",
    ]);
    const rows = (sheet.getSheetValues() as unknown[][]).slice(2);
    expect(rows.map((row) => row[8])).to.deep.equal(chosen.map((record) => record.requestId));
    expect(rows.every((row) => row[2] === "Nurse Chen" && row[6] === "P001" && row[9] === "已显示")).to.equal(true);
    expect(rows[0]![1], "the time a date-time cell").to.be.instanceOf(Date);
    const about = book.getWorksheet("说明")!;
    const facts = (about.getSheetValues() as unknown[][]).map((row) => (row ?? []).slice(1));
    expect(facts).to.deep.include(["患者", "P001"]).and.deep.include(["访问者", "Nurse Chen"]);
    expect(facts).to.deep.include(["记录数", String(chosen.length)]);

    const csv = await call<string>("GET", `/api/admin/access-log/export?${query}&format=csv`);
    expect(csv.status).to.equal(200);
    expect(csv.headers.get("content-type")).to.equal("text/csv; charset=utf-8");
    const lines = csv.body
      .replace(/^\ufeff/, "")
      .trimEnd()
      .split("\r\n");
    expect(lines[0]).to.equal("At,Who,Credential,Roles,Action (route),Patients shown,Reports shown,Request id,Outcome");
    expect(lines.slice(1).map((line) => line.split(",")[7])).to.deep.equal(chosen.map((record) => record.requestId));
    expect(lines[1]).to.match(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,Nurse Chen,/);
  });

  it("sends notices that name no patient down a stream asked for content=notice, and records no look; the full stream still records each alert", async () => {
    const open = async (query: string) => {
      const abort = new AbortController();
      const response = await fetch(`${hub.service.url}/api/alerts/stream${query}`, {
        headers: { authorization: `Bearer ${ADMIN}`, "x-service-tenant": "h1" },
        signal: abort.signal,
      });
      expect(response.status).to.equal(200);
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      const until = async (pattern: RegExp) => {
        while (!pattern.test(text)) text += (await reader.read()).value ?? "";
        return text;
      };
      await until(/: listening/);
      return { requestId: response.headers.get("x-request-id")!, until, close: () => abort.abort() };
    };
    const notices = await open("?content=notice");
    const alerts = await open("");
    const critical = labReport("NOTICE-K", {
      collectedAt: localDateTime(new Date(Date.now() - 3_600_000)),
      reportedAt: localDateTime(new Date()),
      items: [{ itemCode: "K", value: 7.1, unit: "mmol/L" }],
    });
    expect((await hub.tenant.push("lab", [critical])).status).to.equal(200);
    const told = await notices.until(/event: raised\ndata: (\{.*\})\n/);
    const notice = JSON.parse(/event: raised\ndata: (\{.*\})\n/.exec(told)![1]!);
    expect(Object.keys(notice).sort()).to.deep.equal(["alertId", "kind", "severity"]);
    expect(notice).to.deep.include({ kind: "CRITICAL", severity: "alert" });
    expect(told, "no patient in a notice").not.to.match(/P001|张三|7\.1/);
    await alerts.until(/event: raised\ndata: .*NOTICE-K/);
    notices.close();
    alerts.close();

    const shown = await until(async () =>
      (await every("order=newest", 100)).find((record) => record.requestId === alerts.requestId),
    );
    expect(shown).to.deep.include({ action: "GET /api/alerts/stream", who: "admin", patientRefs: ["P001"] });
    // Written in order: once the full stream's record is in, the notices' would be too.
    expect((await every("")).filter((record) => record.requestId === notices.requestId)).to.deep.equal([]);

    expect((await call("GET", "/api/alerts/stream?content=everything")).status).to.equal(400);
  });
});
