import { expect } from "chai";
import { bulkJobListEntrySchema } from "../../queries/bulk/bulkJobs.ts";
import { ADMIN } from "../support/http.ts";
import {
  examReport,
  ingestionTenant,
  type IngestionTenant,
  labReport,
  useIngestionService,
} from "../support/ingestion.ts";
import { until } from "../support/service.ts";

/* The staff's view of bulk jobs (GET /api/bulk-jobs, …/rejected): every client's jobs of the tenant, read-only. */

const ndjson = (lines: unknown[]) =>
  lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n") + "\n";

describe("bulk jobs for staff (GET /api/bulk-jobs)", () => {
  const hub = useIngestionService();

  const asAuthor = (path: string, token = hub.tenant.authorToken) => hub.tenant.call("GET", path, { token });

  /** Submits a job with `key` and waits for its end; returns the job as its sender reads it. */
  async function finishedJob(
    kind: "lab" | "exam",
    lines: unknown[],
    key = hub.tenant.client.key,
  ): Promise<Record<string, any>> {
    const response = await fetch(`${hub.service.url}/open/v1/${kind}/reports/bulk`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/x-ndjson" },
      body: ndjson(lines),
    });
    expect(response.status).to.equal(202);
    const { jobId } = ((await response.json()) as { data: { jobId: string } }).data;
    return until(async () => {
      const job = (await hub.tenant.call("GET", `/open/v1/bulk/${jobId}`, { token: key })).body.data;
      return job.status === "DONE" || job.status === "FAILED" ? job : null;
    }, 30_000);
  }

  let mixed: Record<string, any>;
  let other: IngestionTenant;
  before(async () => {
    other = await ingestionTenant(hub.service, "h2");
    // Seven lines, four rejected: one cut off (not JSON) and three reports with a bad field.
    mixed = await finishedJob("lab", [
      labReport("STAFF-1"),
      '{"externalId": "STAFF-CUT", "patient": ',
      labReport("STAFF-2", { reportedAt: "2026-02-30 08:00:00" }),
      labReport("STAFF-3"),
      labReport("STAFF-4", { collectedAt: "yesterday" }),
      labReport("STAFF-5", { items: "none" }),
      labReport("STAFF-6"),
    ]);
    expect(mixed).to.include({ status: "DONE", accepted: 3, rejected: 4 });
  });

  it("lists every client's jobs of the tenant, newest first, with the client's name and the counts a sender reads", async () => {
    const admin = await hub.tenant.call("POST", "/api/admin/clients", {
      token: ADMIN,
      body: { name: "Echo cart", tenant: "h1" },
    });
    const exam = await finishedJob(
      "exam",
      [examReport("STAFF-E1"), examReport("STAFF-E2", { examType: "NOPE" })],
      admin.body.key,
    );

    const list = await asAuthor("/api/bulk-jobs");
    expect(list.status).to.equal(200);
    expect(list.body.map((job: { jobId: string }) => job.jobId)).to.deep.equal([exam.jobId, mixed.jobId]);
    expect(list.body[0]).to.deep.equal({ ...exam, client: "Echo cart" });
    expect(list.body[1]).to.deep.equal({ ...mixed, client: "Central lab LIS" });
    expect(list.body[1]).to.include({
      kind: "lab",
      status: "DONE",
      lines: 7,
      processed: 7,
      accepted: 3,
      rejected: 4,
      created: 3,
      updated: 0,
      unchanged: 0,
      unmatched: 0,
    });
    expect(list.body[1].finishedAt).to.match(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    for (const job of list.body) {
      const parsed = bulkJobListEntrySchema.safeParse(job);
      expect(parsed.success && parsed.data, "as documented, nothing more").to.deep.equal(job);
    }
    // The operator's token reads the tenant X-Service-Tenant names.
    expect((await asAuthor("/api/bulk-jobs", ADMIN)).body).to.deep.equal(list.body);
  });

  it("lists nothing of another tenant's jobs", async () => {
    expect((await other.call("GET", "/api/bulk-jobs", { token: other.authorToken })).body).to.deep.equal([]);
  });

  it("pages a job's rejected lines in line order, with each line's number, externalId and problems", async () => {
    const path = `/api/bulk-jobs/${mixed.jobId}/rejected`;
    const all = await asAuthor(path);
    expect(all.status).to.equal(200);
    expect(all.body.total).to.equal(4);
    expect(
      all.body.items.map((item: { line: number; externalId: string | null }) => [item.line, item.externalId]),
    ).to.deep.equal([
      [2, null],
      [3, "STAFF-2"],
      [5, "STAFF-4"],
      [6, "STAFF-5"],
    ]);
    expect(all.body.items[0].errors).to.have.length(1);
    expect(all.body.items[0].errors[0].field).to.equal("");
    expect(all.body.items[0].errors[0].message).to.match(/^the line is not JSON/);
    expect(all.body.items[1].errors[0]).to.include({ field: "reportedAt" });
    // The same lines as the sender reads them.
    expect(all.body).to.deep.equal(
      (await hub.tenant.call("GET", `/open/v1/bulk/${mixed.jobId}/rejected`, { token: hub.tenant.client.key })).body
        .data,
    );

    const pages = [
      await asAuthor(`${path}?offset=0&limit=3`),
      await asAuthor(`${path}?offset=3&limit=3`),
      await asAuthor(`${path}?offset=6&limit=3`),
    ];
    expect(pages.map((page) => page.body.total)).to.deep.equal([4, 4, 4]);
    expect(pages.map((page) => page.body.items.map((item: { line: number }) => item.line))).to.deep.equal([
      [2, 3, 5],
      [6],
      [],
    ]);
    // An id written in capitals is the same job.
    expect(
      (await asAuthor(`/api/bulk-jobs/${mixed.jobId.toUpperCase()}/rejected?limit=1`)).body.items[0].line,
    ).to.equal(2);
  });

  it("answers 401 without an author token (a client key is none)", async () => {
    for (const path of ["/api/bulk-jobs", `/api/bulk-jobs/${mixed.jobId}/rejected`]) {
      for (const [token, says] of [
        [undefined, /^Send an author token/],
        [hub.tenant.client.key, /^The token is not valid/],
        ["dha_not-a-token", /^The token is not valid/],
      ] as const) {
        const answer = await hub.tenant.call("GET", path, { token });
        expect(answer.status, `${path} with ${token?.slice(0, 8)}`).to.equal(401);
        expect(answer.body.error).to.match(says);
      }
    }
  });

  it("answers 404 for a job id that is not a UUID, no job's, or another tenant's", async () => {
    for (const [what, answer] of [
      ["not a UUID", await asAuthor("/api/bulk-jobs/not-a-job/rejected")],
      ["a UUID of no job", await asAuthor("/api/bulk-jobs/0b6f3c1e-8d2a-4f55-9a57-2f1c3f7f0a11/rejected")],
      [
        "another tenant's job",
        await other.call("GET", `/api/bulk-jobs/${mixed.jobId}/rejected`, { token: other.authorToken }),
      ],
    ] as const) {
      expect(answer.status, what).to.equal(404);
      expect(Object.keys(answer.body), what).to.deep.equal(["error"]);
      expect(answer.body.error, what).to.match(
        /^There is no bulk job .* for this tenant; GET \/api\/bulk-jobs lists its jobs/,
      );
    }
  });

  it("answers 400 saying how to page for an offset or limit out of range", async () => {
    for (const query of [
      "limit=0",
      "limit=1001",
      "limit=ten",
      "limit=2.5",
      "offset=-1",
      "offset=1e400",
      "limit=1&limit=2",
    ]) {
      const answer = await asAuthor(`/api/bulk-jobs/${mixed.jobId}/rejected?${query}`);
      expect(answer.status, query).to.equal(400);
      expect(answer.body.error, query).to.equal(
        "offset must be a whole number from 0 and limit one from 1 to 1000, e.g. ?offset=0&limit=100.",
      );
    }
  });
});
