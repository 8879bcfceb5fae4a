import { expect } from "chai";
import { gzipSync } from "node:zlib";
import { ADMIN } from "../support/http.ts";
import { examReport, ingestionTenant, labReport, LI_SI, useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

/* Contract D.4: background bulk import over HTTP, every rule, bad input included. */

const ndjson = (reports: unknown[]) => reports.map((report) => JSON.stringify(report)).join("\n") + "\n";

describe("bulk import (POST /open/v1/{lab|exam}/reports/bulk)", () => {
  const hub = useIngestionService();

  async function upload(
    kind: "lab" | "exam",
    body: string | Buffer,
    options: { gzip?: boolean; contentType?: string; key?: string; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.key ?? hub.tenant.client.key}`,
      "content-type": options.contentType ?? "application/x-ndjson",
      ...options.headers,
    };
    if (options.gzip) headers["content-encoding"] = "gzip";
    const payload = options.gzip ? gzipSync(body) : body;
    const response = await fetch(`${hub.service.url}/open/v1/${kind}/reports/bulk`, {
      method: "POST",
      headers,
      body: typeof payload === "string" ? payload : new Uint8Array(payload),
    });
    return { status: response.status, body: (await response.json()) as any };
  }
  const get = (path: string, key = hub.tenant.client.key) => hub.tenant.call("GET", path, { token: key });
  // Without X-Service-Tenant: the key alone decides the tenant.
  const getWithKey = async (path: string, key: string) => {
    const response = await fetch(`${hub.service.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: response.status, body: (await response.json()) as any };
  };
  const finished = (jobId: string, key = hub.tenant.client.key) =>
    until(
      async () => {
        const job = (await get(`/open/v1/bulk/${jobId}`, key)).body.data;
        return job && (job.status === "DONE" || job.status === "FAILED") ? job : null;
      },
      30_000,
      50,
    );
  const jobEvents = async () =>
    Number((await hub.service.db.query("select count(*) from events where stream_id like 'bulk-job:%'")).rows[0].count);

  it("stores the body before answering 202, then imports every line as a push would", async () => {
    const reports = [
      labReport("BULK-1"),
      labReport("BULK-2", { reportedAt: "2026-03-02 09:00:00" }),
      labReport("BULK-3", { patient: { idCard: LI_SI.idCard, name: LI_SI.name } }),
    ];
    const answer = await upload("lab", ndjson(reports));
    expect(answer.status).to.equal(202);
    expect(answer.body).to.include({ code: 202 });
    expect(answer.body.data).to.include({ status: "QUEUED", lines: 3 });
    const { jobId, statusUrl } = answer.body.data;
    expect(jobId).to.match(/^[0-9a-f-]{36}$/);
    expect(statusUrl).to.equal(`/open/v1/bulk/${jobId}`);

    const job = await finished(jobId);
    expect(job).to.deep.include({
      jobId,
      kind: "lab",
      status: "DONE",
      lines: 3,
      processed: 3,
      accepted: 3,
      rejected: 0,
      created: 3,
      updated: 0,
      unchanged: 0,
      unmatched: 1,
    });
    expect(job.createdAt).to.match(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(job.startedAt).to.match(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(job.finishedAt >= job.startedAt && job.startedAt >= job.createdAt).to.equal(true);

    // Reconciliation, the unmatched queue and the history are those of pushed reports.
    const day = await until(async () => {
      const data = (await get("/open/v1/reconcile/lab?date=2026-03-01")).body.data;
      return data.externalIds.includes("BULK-3") ? data : null;
    });
    expect(day.externalIds).to.include.members(["BULK-1", "BULK-3"]).and.not.include("BULK-2");
    const queued = await until(async () =>
      (await hub.tenant.call("GET", "/api/unmatched", { token: hub.tenant.authorToken })).body.find(
        (e: { externalId: string }) => e.externalId === "BULK-3",
      ),
    );
    expect(queued.pendingReason).to.equal("no dialysis patient with this idCard");
    const history = (await hub.tenant.call("GET", "/api/history/lab/BULK-1", { token: hub.tenant.authorToken })).body;
    expect(history.entries).to.have.length(1);
    expect(history.entries[0]).to.include({
      event: "RECEIVED",
      status: "CREATED",
      matched: true,
      patientRef: "P001",
      by: "Central lab LIS",
    });
  });

  it("reads a gzip-compressed body (Content-Encoding: gzip) and handles exam reports on the exam call", async () => {
    const answer = await upload("exam", ndjson([examReport("BULK-E1"), examReport("BULK-E2", { examType: "NOPE" })]), {
      gzip: true,
    });
    expect(answer.status).to.equal(202);
    const job = await finished(answer.body.data.jobId);
    expect(job).to.include({ kind: "exam", status: "DONE", lines: 2, accepted: 1, rejected: 1, created: 1 });
    const rejected = (await get(`/open/v1/bulk/${job.jobId}/rejected`)).body.data;
    expect(rejected.total).to.equal(1);
    expect(rejected.items[0]).to.deep.include({ line: 2, externalId: "BULK-E2" });
    expect(rejected.items[0].errors[0].field).to.equal("examType");
  });

  it("answers UNCHANGED for lines resent with the same content and UPDATED for changed ones, the order of jobs kept", async () => {
    // Long enough (several pieces) that the second is submitted while the first runs: it must wait for it.
    const filler = Array.from({ length: 1500 }, (_, i) => labReport(`BULK-ORD-FILL-${i}`));
    const first = (await upload("lab", ndjson([...filler, labReport("BULK-ORD-1"), labReport("BULK-ORD-2")]))).body.data
      .jobId;
    const second = (
      await upload("lab", ndjson([labReport("BULK-ORD-1"), labReport("BULK-ORD-2", { status: "CORRECTED" })]))
    ).body.data.jobId;
    expect(await finished(first)).to.include({ created: 1502, updated: 0, unchanged: 0 });
    expect(await finished(second)).to.include({ created: 0, updated: 1, unchanged: 1 });
  });

  it('reports rejected lines by their line number in the body, blank lines counted, a line that is not JSON with field ""', async () => {
    const body = [
      JSON.stringify(labReport("BULK-REJ-1")),
      "",
      '{"externalId": "BULK-REJ-2", "patient": ', // cut off
      JSON.stringify(labReport("BULK-REJ-3", { reportedAt: "2026-02-30 08:00:00" })),
      "   ",
      JSON.stringify(labReport("BULK-REJ-4")),
      "[1, 2]",
    ].join("\r\n");
    const answer = await upload("lab", body);
    expect(answer.body.data.lines, "blank lines are not reports").to.equal(5);
    const job = await finished(answer.body.data.jobId);
    expect(job).to.include({ processed: 5, accepted: 2, rejected: 3 });
    const page = (await get(`/open/v1/bulk/${job.jobId}/rejected?offset=0&limit=10`)).body.data;
    expect(page.total).to.equal(3);
    expect(page.items.map((item: { line: number }) => item.line)).to.deep.equal([3, 4, 7]);
    expect(page.items[0]).to.deep.include({ externalId: null });
    expect(page.items[0].errors).to.have.length(1);
    expect(page.items[0].errors[0].field).to.equal("");
    expect(page.items[0].errors[0].message).to.match(/^the line is not JSON/);
    expect(page.items[1]).to.deep.include({ externalId: "BULK-REJ-3" });
    expect(page.items[1].errors[0]).to.include({ field: "reportedAt" });
    expect(page.next, "the page holds the last rejected line").to.equal(null);
    const second = (await get(`/open/v1/bulk/${job.jobId}/rejected?offset=1&limit=1`)).body.data;
    expect(second).to.deep.include({ total: 3, items: [page.items[1]] });
    // Contract E.6: the next page after the cursor the page gave, not by counting lines.
    const third = (await get(`/open/v1/bulk/${job.jobId}/rejected?cursor=${second.next}&limit=1`)).body.data;
    expect(third).to.deep.equal({ total: 3, items: [page.items[2]], next: null });
    const both = await get(`/open/v1/bulk/${job.jobId}/rejected?cursor=${second.next}&offset=1`);
    expect([both.status, both.body.msg]).to.deep.equal([
      400,
      "Send offset or cursor, not both: the cursor already says where the page starts.",
    ]);
  });

  it("refuses a body that is not NDJSON, an empty one, broken gzip and the wrong content type with 400, queuing nothing", async () => {
    const before = await jobEvents();
    const cases: Array<[string, Parameters<typeof upload>[1], Parameters<typeof upload>[2], RegExp]> = [
      ["pretty-printed JSON", JSON.stringify([labReport("X")], null, 2), {}, /not NDJSON/],
      ["a push body", JSON.stringify({ reports: [labReport("X")] }), {}, /push body/],
      ["an empty body", "", {}, /no reports/],
      ["blank lines only", "\n  \n\n", {}, /no reports/],
      ["broken gzip", Buffer.from("this is not gzip"), { headers: { "content-encoding": "gzip" } }, /gzip/],
      ["JSON content type", ndjson([labReport("X")]), { contentType: "application/json" }, /application\/x-ndjson/],
      [
        "an unknown encoding",
        ndjson([labReport("X")]),
        { headers: { "content-encoding": "br" } },
        /Content-Encoding br/,
      ],
    ];
    for (const [what, body, options, message] of cases) {
      const answer = await upload("lab", body, options);
      expect(answer.status, what).to.equal(400);
      expect(answer.body, what).to.include({ code: 400, data: null });
      expect(answer.body.msg, what).to.match(message);
    }
    expect(await jobEvents()).to.equal(before);
    expect(
      Number(
        (
          await hub.service.db.query(
            "select count(*) from bulk_job_bodies where job_id not in (select (substr(stream_id, 10))::uuid from events where stream_id like 'bulk-job:%')",
          )
        ).rows[0].count,
      ),
      "no pieces left behind",
    ).to.equal(0);
  });

  it("refuses over 1,000,000 reports, a line over 4 MB and over 512 MB with 413, queuing nothing", async () => {
    const before = await jobEvents();
    const tooMany = Buffer.from("{}\n".repeat(1_000_001));
    const many = await upload("lab", tooMany, { gzip: true });
    expect(many.status).to.equal(413);
    expect(many.body.msg).to.match(/more than 1,000,000 reports/);
    const longLine = await upload(
      "lab",
      `${JSON.stringify(labReport("L"))}\n{"pad":"${"x".repeat(4 * 1024 * 1024)}"}\n`,
    );
    expect(longLine.status).to.equal(413);
    expect(longLine.body.msg).to.match(/Line 2 is longer than 4 MB/);
    // 513 MB of blank lines (a few hundred kB gzipped): counted as they are unpacked, never stored.
    // gzip members one after the other are one gzip stream: 513 of a megabyte of blank lines each.
    const blankMegabyte = gzipSync(`${" ".repeat(1023)}\n`.repeat(1024));
    const huge = await upload(
      "lab",
      Buffer.concat([
        gzipSync(`${JSON.stringify(labReport("H"))}\n`),
        ...Array.from({ length: 513 }, () => blankMegabyte),
      ]),
      { headers: { "content-encoding": "gzip" } },
    );
    expect(huge.status).to.equal(413);
    expect(huge.body.msg).to.match(/larger than 512 MB/);
    expect(await jobEvents()).to.equal(before);
    expect(
      Number(
        (
          await hub.service.db.query(
            "select count(*) from bulk_job_bodies where job_id not in (select (substr(stream_id, 10))::uuid from events where stream_id like 'bulk-job:%')",
          )
        ).rows[0].count,
      ),
    ).to.equal(0);
  });

  it("shows a job only to the client that submitted it: another client's or tenant's key gets 404", async () => {
    const jobId = (await upload("lab", ndjson([labReport("BULK-MINE")]))).body.data.jobId;
    await finished(jobId);
    const sameTenant = (
      await hub.tenant.call("POST", "/api/admin/clients", { token: ADMIN, body: { name: "Other LIS", tenant: "h1" } })
    ).body.key as string;
    const otherTenant = (await ingestionTenant(hub.service, "h2")).client.key;
    for (const key of [sameTenant, otherTenant]) {
      for (const path of [`/open/v1/bulk/${jobId}`, `/open/v1/bulk/${jobId}/rejected`]) {
        const answer = await getWithKey(path, key);
        expect(answer.status, path).to.equal(404);
        expect(answer.body).to.include({ code: 404, data: null });
        expect(answer.body.msg).to.match(/no bulk job/);
      }
    }
    expect((await get("/open/v1/bulk/not-a-job-id")).status).to.equal(404);
    expect((await get(`/open/v1/bulk/${jobId}/rejected?limit=5000`)).status).to.equal(400);
    expect((await get(`/open/v1/bulk/${jobId}/rejected?offset=-1`)).body.msg).to.match(/offset must be a whole number/);
    expect((await hub.tenant.call("GET", `/open/v1/bulk/${jobId}`)).status, "no key").to.equal(401);
  });
});
