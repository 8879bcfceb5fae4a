import { expect } from "chai";
import { createHash } from "node:crypto";
import { localDateTime } from "../../db/localDateTime.ts";
import { ADMIN } from "../support/http.ts";
import { ingestionTenant, labReport, LI_SI, nextPageOf, useIngestionService, ZHANG_SAN } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

/*
 * Contract E.6 (issue #52 finding 3): every list answer takes limit (default 100, at most 1,000)
 * and a keyset cursor; a bare array names its next page in a Link header, a reconciliation day's
 * externalIds are written a page at a time. Over HTTP, on a running service with every projection.
 */

const ndjson = (lines: unknown[]) =>
  lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n") + "\n";
const hoursAgo = (hours: number) => localDateTime(new Date(Date.now() - hours * 3_600_000));
/** A report of 张三 with a critical potassium, taken an hour ago: it raises an alert. */
const criticalPotassium = (externalId: string) =>
  labReport(externalId, {
    collectedAt: hoursAgo(1),
    reportedAt: localDateTime(new Date()),
    items: [{ itemCode: "K", itemName: "钾", value: 7.5, unit: "mmol/L" }],
  });

describe("paged lists (contract E.6)", function () {
  this.timeout(120_000);
  const hub = useIngestionService();
  const author = () => hub.tenant.authorToken;
  const get = (path: string, token = author()) => hub.tenant.call("GET", path, { token });

  /** Walks a list from `path` with pages of `limit`, each page at most that long: every row it meets, in order. */
  async function walk(path: string, limit: number, token = author()): Promise<Array<Record<string, any>>> {
    const rows: Array<Record<string, any>> = [];
    for (let next: string | null = `${path}${path.includes("?") ? "&" : "?"}limit=${limit}`; next;) {
      const page = await get(next, token);
      expect(page.status, `${next}: ${JSON.stringify(page.body)}`).to.equal(200);
      expect(page.body.length, next).to.be.at.most(limit);
      rows.push(...page.body);
      next = nextPageOf(page.headers);
    }
    return rows;
  }

  async function submitBulk(lines: unknown[]): Promise<string> {
    const response = await fetch(`${hub.service.url}/open/v1/lab/reports/bulk`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${hub.tenant.client.key}`,
        "content-type": "application/x-ndjson",
        "x-service-tenant": "h1",
      },
      body: ndjson(lines),
    });
    expect(response.status).to.equal(202);
    return ((await response.json()) as { data: { jobId: string } }).data.jobId;
  }

  let rejectingJob: string;
  before(async () => {
    // Three or more rows in every list.
    const call = (method: string, path: string, body: unknown, token = author()) =>
      hub.tenant.call(method, path, { token, body });
    for (const ref of ["P002", "P003", "P004"])
      expect(
        (await call("PUT", `/api/patients/${ref}`, { name: `患者${ref}`, idCard: idCardOf(Number(ref.slice(1))) }))
          .status,
      ).to.equal(200);
    for (const id of ["pl-a", "pl-b", "pl-c"]) {
      const spec = {
        version: 1,
        title: id,
        params: [],
        queries: { q: { sql: "select 1 as n" } },
        nodes: [{ id: "t", type: "table", query: "q" }],
      };
      expect((await call("PUT", `/api/reports/${id}/draft`, { spec })).status).to.equal(200);
    }
    for (let v = 0; v < 3; v++) {
      const spec = {
        version: 1,
        title: "versions",
        params: [],
        queries: { q: { sql: `select ${v} as n` } },
        nodes: [{ id: "t", type: "table", query: "q" }],
      };
      expect((await call("PUT", "/api/reports/pl-versions/draft", { spec })).status).to.equal(200);
      expect(
        (await call("POST", "/api/reports/pl-versions/publish", { mode: "dynamic", note: `v${v + 1}` })).status,
      ).to.equal(201);
    }
    for (const name of ["POCT", "Ward lab"])
      expect((await call("POST", "/api/admin/clients", { name, tenant: "h1" }, ADMIN)).status).to.equal(201);
    for (const name of ["Nurse Li", "Dr Wang"])
      expect((await call("POST", "/api/admin/authors", { name, tenant: "h1" }, ADMIN)).status).to.equal(201);
    for (const itemCode of ["PL-M1", "PL-M2", "PL-M3"])
      expect(
        (await call("POST", "/api/dictionary/mappings", { itemCode, stdCode: "ALB", factor: 10 })).status,
      ).to.equal(201);
    // Unmapped items sent 3, 2, 2 and 1 times: the ties are ordered by what they are.
    const unmapped = (codes: string[]) => ({
      items: codes.map((itemCode) => ({ itemCode, itemName: `本院${itemCode}`, value: 1, unit: "U" })),
    });
    await hub.tenant.push("lab", [
      labReport("PL-U1", unmapped(["PL-X1", "PL-X2", "PL-X3", "PL-X4"])),
      labReport("PL-U2", unmapped(["PL-X1", "PL-X2", "PL-X3"])),
      labReport("PL-U3", unmapped(["PL-X1"])),
    ]);
    await hub.tenant.push("lab", ["PL-K1", "PL-K2", "PL-K3"].map(criticalPotassium));
    rejectingJob = await submitBulk([
      labReport("PL-B1", { reportedAt: "2026-02-30 08:00:00" }),
      "not json",
      labReport("PL-B2", { reportedAt: "2026-13-01 08:00:00" }),
      "[1]",
    ]);
    await submitBulk([labReport("PL-B3")]);
    await submitBulk([labReport("PL-B4")]);
    await until(
      async () => (await get(`/open/v1/bulk/${rejectingJob}`, hub.tenant.client.key)).body.data.status === "DONE",
      30_000,
    );
    await until(
      async () =>
        ((await get("/api/dictionary/unmapped")).body as Array<{ itemCode: string }>).filter((item) =>
          item.itemCode.startsWith("PL-X"),
        ).length === 4,
      15_000,
    );
    await until(async () => (await get("/api/alerts?limit=500")).body.length >= 3, 15_000);
    // The patient list's access records name P001.
    await get("/api/patients");
    await until(async () => (await get("/api/patients/P001/access-log?limit=1000", ADMIN)).body.length >= 2, 15_000);
  });

  const lists: Array<[string, string?]> = [
    ["/api/patients"],
    ["/api/reports"],
    ["/api/reports/pl-versions/versions"],
    ["/api/alerts?state=open"],
    ["/api/bulk-jobs"],
    ["/api/admin/clients", ADMIN],
    ["/api/admin/authors", ADMIN],
    ["/api/dictionary/mappings"],
    ["/api/dictionary/unmapped"],
    ["/api/patients/P001/access-log", ADMIN],
  ];

  it("pages every list a Link at a time: the pages hold the list in its order, each row once", async () => {
    for (const [path, token] of lists) {
      const whole = (await get(`${path}${path.includes("?") ? "&" : "?"}limit=500`, token)).body as unknown[];
      expect(whole.length, path).to.be.at.least(3);
      expect(await walk(path, 2, token), path).to.deep.equal(whole);
    }
  });

  it("pages a bulk job's rejected lines by cursor too, for the sender and for staff", async () => {
    for (const [base, token] of [
      [`/open/v1/bulk/${rejectingJob}/rejected`, hub.tenant.client.key],
      [`/api/bulk-jobs/${rejectingJob}/rejected`, author()],
    ] as const) {
      const lines: number[] = [];
      for (let cursor: string | null = null, pages = 0; pages === 0 || cursor; pages++) {
        const answer = await get(`${base}?limit=1${cursor ? `&cursor=${cursor}` : ""}`, token);
        expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
        const page = base.startsWith("/open") ? answer.body.data : answer.body;
        expect(page.total).to.equal(4);
        lines.push(...page.items.map((item: { line: number }) => item.line));
        cursor = page.next;
      }
      expect(lines, base).to.deep.equal([1, 2, 3, 4]);
    }
  });

  it("refuses a limit out of range or a cursor it did not give, with a 400 that says how to ask", async () => {
    const forged = Buffer.from(JSON.stringify({ not: "a key" })).toString("base64url");
    for (const [path, token] of [...lists, ["/api/unmatched"] as [string]]) {
      const most = path.startsWith("/api/alerts") ? 500 : 1000;
      const join = path.includes("?") ? "&" : "?";
      for (const limit of ["0", String(most + 1), "ten", "1.5"]) {
        const answer = await get(`${path}${join}limit=${limit}`, token);
        expect([answer.status, answer.body.error], `${path} limit=${limit}`).to.deep.equal([
          400,
          `limit ${most === 500 ? "is" : "must be"} a whole number from 1 to ${most}.`,
        ]);
      }
      for (const cursor of ["nonsense", forged]) {
        const answer = await get(`${path}${join}cursor=${cursor}`, token);
        expect(answer.status, `${path} cursor=${cursor}`).to.equal(400);
        expect(answer.body.error, path).to.match(/^cursor is not one this list gave; send back the one in /);
      }
    }
    const open = await get(`/open/v1/bulk/${rejectingJob}/rejected?cursor=nonsense`, hub.tenant.client.key);
    expect([open.status, open.body.code]).to.deep.equal([400, 400]);
    expect(open.body.msg).to.match(/^cursor is not one this list gave/);
  });

  it("answers the unmatched queue 100 at a time unless asked, and a walk meets every report once while more arrive", async () => {
    const waiting = Array.from({ length: 230 }, (_, i) => `PLQ-${String(i).padStart(3, "0")}`);
    for (let i = 0; i < waiting.length; i += 100)
      await hub.tenant.push(
        "lab",
        waiting.slice(i, i + 100).map((id) => labReport(id, { patient: LI_SI })),
      );
    await until(
      async () =>
        (await hub.tenant.unmatched()).filter((entry) => entry.externalId.startsWith("PLQ-")).length === waiting.length,
      15_000,
    );

    const first = await get("/api/unmatched");
    expect(first.status).to.equal(200);
    expect(first.body, "a page of 100 unless a limit is asked for").to.have.length(100);
    expect(nextPageOf(first.headers), "the next page's address").to.match(
      /^\/api\/unmatched\?cursor=[A-Za-z0-9_-]+&limit=100$/,
    );

    // Reports keep arriving while a person pages through: each page is read after a push.
    const seen: string[] = [];
    let arrived = 0;
    for (let next: string | null = "/api/unmatched?limit=40"; next;) {
      const page = await get(next);
      expect(page.status).to.equal(200);
      seen.push(...page.body.map((entry: Record<string, string>) => `${entry.kind}:${entry.externalId}`));
      next = nextPageOf(page.headers);
      if (arrived < 5) await hub.tenant.push("lab", [labReport(`PLQ-NEW-${arrived++}`, { patient: LI_SI })]);
    }
    expect(new Set(seen).size, "no report twice").to.equal(seen.length);
    for (const id of waiting) expect(seen, id).to.include(`lab:${id}`);
    const whole = await hub.tenant.unmatched();
    // The walk is the queue in its order: those that arrived during it came at its end.
    expect(seen).to.deep.equal(
      whole.map((entry) => `${entry.kind}:${entry.externalId}`).filter((key) => seen.includes(key)),
    );
  });
});

describe("reconciliation of a day larger than a page (contract E.6)", function () {
  this.timeout(120_000);
  const hub = useIngestionService();
  const DAY = "2026-05-20";
  // Letters, digits, a lower case, an accented one and a Chinese id: code-point order is not the locale's.
  const ids = [
    ...Array.from({ length: 12_000 }, (_, i) => `R${String(i).padStart(6, "0")}`),
    "Zebra",
    "alpha",
    "Émile",
    "中心-1",
    "r-lower",
  ];
  const unmatched = 17;

  before(async () => {
    // Straight into the live read models, as the reconcile benchmark does: a day of 12,005 reports in seconds.
    const db = hub.service.db;
    const schema = async (name: string) =>
      (await db.query("select schema_name from projection_generations where name = $1 and state = 'live'", [name]))
        .rows[0].schema_name as string;
    const reports = await schema("lab_reports");
    await db.query(
      `insert into ${reports}.lab_report_days (tenant, external_id, version, valid_from, report_day, unmatched, ledger_tx, ledger_position)
       select 'h1', id, 1, now() - interval '1 hour', $2::date, n <= $3, '1'::xid8, 1 from unnest($1::text[]) with ordinality as t(id, n)`,
      [ids, DAY, unmatched],
    );
    await db.query(
      `insert into ${reports}.lab_reports (tenant, external_id, matched, reported_at, report_day, received_at,
         client_name, item_count, ledger_tx, ledger_position)
       select tenant, external_id, not unmatched, report_day + time '09:00', report_day, valid_from, 'Central lab LIS', 1, ledger_tx, ledger_position
       from ${reports}.lab_report_days where tenant = 'h1' and report_day = $1`,
      [DAY],
    );
  });

  const codePointOrder = [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const digest = `sha256:${createHash("sha256").update(codePointOrder.join("\n"), "utf8").digest("hex")}`;

  for (const query of [`date=${DAY}`, `date=${DAY}&asOf=${encodeURIComponent(localDateTime(new Date()))}`]) {
    it(
      "writes every id of the day a page at a time, with the count and digest of exactly those ids " +
        `(${query.includes("asOf") ? "as of now" : "now"})`,
      async () => {
        const response = await fetch(`${hub.service.url}/open/v1/reconcile/lab?${query}`, {
          headers: { authorization: `Bearer ${hub.tenant.client.key}`, "x-service-tenant": "h1" },
        });
        expect(response.status).to.equal(200);
        // Sent as it is read: no length known before the last id is written.
        expect(response.headers.get("content-length")).to.equal(null);
        expect(response.headers.get("transfer-encoding")).to.equal("chunked");
        expect(response.headers.get("content-type")).to.equal("application/json; charset=utf-8");
        const { code, msg, data } = (await response.json()) as {
          code: number;
          msg: string;
          data: Record<string, unknown>;
        };
        expect([code, msg]).to.deep.equal([200, "ok"]);
        expect(data.externalIds).to.deep.equal(codePointOrder);
        expect(data).to.include({
          date: DAY,
          labReportCount: ids.length,
          examReportCount: 0,
          unmatchedCount: unmatched,
          externalIdDigest: digest,
          sealed: false,
          ledgerRoot: null,
        });
      },
    );
  }

  it("names in its count and digest exactly the ids it wrote, while reports of the day arrive during the answer", async () => {
    let pushes = 0;
    const pushing = (async () => {
      for (; pushes < 20; pushes++)
        await hub.tenant.push("lab", [
          labReport(`LATE-${pushes}`, { reportedAt: `${DAY} 10:00:00`, patient: ZHANG_SAN }),
        ]);
    })();
    for (let read = 0; read < 5; read++) {
      const data = await hub.tenant.reconcile("lab", `date=${DAY}`);
      const written = data.externalIds as string[];
      expect(data.labReportCount).to.equal(written.length);
      expect(data.externalIdDigest).to.equal(
        `sha256:${createHash("sha256").update(written.join("\n"), "utf8").digest("hex")}`,
      );
      expect(written.filter((id) => !id.startsWith("LATE-"))).to.deep.equal(codePointOrder);
    }
    await pushing;
  });
});

describe("list pages take turns, paced, in a line per tenant and per sending system (LIST_READS_PER_TENANT, LIST_BYTES_PER_SECOND)", function () {
  this.timeout(60_000);
  // One page at a time, given back once its size at 10 kB/s has passed: a page of 60 queue entries (some 20 kB) holds the line 2 s.
  const hub = useIngestionService({
    env: { LIST_READS_PER_TENANT: "1", LIST_QUEUE_WAIT_MS: "500", LIST_BYTES_PER_SECOND: "10000" },
  });

  it(
    "lets a tenant's next page wait its turn and then answer 503 with Retry-After, while another tenant's lists, " +
      "a laboratory's reconciliation and every push answer",
    async () => {
      const other = await ingestionTenant(hub.service, "h2");
      await hub.tenant.push(
        "lab",
        Array.from({ length: 60 }, (_, i) => labReport(`TURN-${i}`, { patient: LI_SI })),
      );
      await until(async () => (await hub.tenant.unmatched()).length === 60, 15_000);
      await until(
        async () =>
          (await hub.tenant.call("GET", "/api/unmatched?limit=1", { token: hub.tenant.authorToken })).status === 200,
        15_000,
      );

      const page = await hub.tenant.call("GET", "/api/unmatched", { token: hub.tenant.authorToken });
      expect([page.status, page.body.length], "the page is answered at once").to.deep.equal([200, 60]);
      const waited = await hub.tenant.call("GET", "/api/patients", { token: hub.tenant.authorToken });
      expect([waited.status, waited.body.error, waited.headers.get("retry-after")]).to.deep.equal([
        503,
        "This hospital's lists are busy (1 page is read at once, and this call waited 0.5 s for its turn); try again shortly.",
        "1",
      ]);
      expect(
        (await other.call("GET", "/api/patients", { token: other.authorToken })).status,
        "another tenant's line is its own",
      ).to.equal(200);
      const reconciled = await hub.tenant.call("GET", "/open/v1/reconcile/lab?date=2026-03-01", {
        token: hub.tenant.client.key,
      });
      expect(reconciled.status, "a laboratory's line is its own").to.equal(200);
      expect((await hub.tenant.push("lab", [labReport("TURN-PUSH")])).status, "a push takes no turn").to.equal(200);
      // The line comes back once the page's pace has passed.
      await until(
        async () => (await hub.tenant.call("GET", "/api/patients", { token: hub.tenant.authorToken })).status === 200,
        10_000,
        200,
      );
    },
  );
});

/** A valid national id number (GB 11643) born 1950-01-01, numbered `n`. */
function idCardOf(n: number): string {
  const body = `11010119500101${String(n).padStart(3, "0")}`;
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const sum = [...body].reduce((total, digit, i) => total + Number(digit) * weights[i]!, 0);
  return body + "10X98765432"[sum % 11]!;
}
