import { expect } from "chai";
import { createTestDatabase } from "../support/database.ts";
import { ingestionTenant, labReport } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { useServiceProcesses } from "../support/serviceProcess.ts";

const TENANT = "fault-bulk";
const DAY = "2026-03-03";
const LINES = 10_000;
const NOT_JSON_EVERY = 997;
/** Workers look for unfinished jobs this often: how soon one takes over a dead worker's job. */
const QUICK_TAKEOVER = { BULK_SAFETY_NET_MS: "300" };

/** A job whose every line is a new report, but for a line now and then that is not JSON. */
function jobBody(prefix: string): { body: string; notJson: number } {
  const lines: string[] = [];
  let notJson = 0;
  for (let i = 1; i <= LINES; i++) {
    if (i % NOT_JSON_EVERY === 0) {
      lines.push(`{"externalId": "${prefix}-${i}", oops`);
      notJson++;
    } else lines.push(JSON.stringify(labReport(`${prefix}-${i}`, { reportedAt: `${DAY} 10:00:00` })));
  }
  return { body: `${lines.join("\n")}\n`, notJson };
}

describe("a bulk job whose worker is killed with SIGKILL mid-job", function () {
  this.timeout(240_000);
  const deployment = useServiceProcesses(() => createTestDatabase(true));
  const start = (role: "all" | "worker") => deployment.spawn({ role, env: QUICK_TAKEOVER });
  const status = async (url: string, key: string, jobId: string) => {
    const answer = await fetch(`${url}/open/v1/bulk/${jobId}`, { headers: { authorization: `Bearer ${key}` } });
    return ((await answer.json()) as { data: Record<string, any> }).data;
  };
  const submit = async (url: string, key: string, body: string) => {
    const answer = await fetch(`${url}/open/v1/lab/reports/bulk`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/x-ndjson" },
      body,
    });
    expect(answer.status).to.equal(202);
    return ((await answer.json()) as { data: { jobId: string } }).data.jobId;
  };
  /** Waits until the job runs and has some pieces behind it, not all. */
  const midJob = (url: string, key: string, jobId: string) =>
    until(
      async () => {
        const job = await status(url, key, jobId);
        expect(job.status, "the job ended before it could be killed").to.not.equal("DONE");
        return job.status === "RUNNING" && job.processed >= 1000 ? job : null;
      },
      60_000,
      10,
    );

  /** Every line counted once, every report stored once: what a job that was never interrupted would show. */
  async function expectImportedOnce(
    url: string,
    key: string,
    jobId: string,
    { tenant, prefix, notJson }: { tenant: string; prefix: string; notJson: number },
  ): Promise<void> {
    const job = await until(
      async () => {
        const current = await status(url, key, jobId);
        return current.status === "DONE" ? current : null;
      },
      120_000,
      100,
    );
    expect(job).to.include({
      lines: LINES,
      processed: LINES,
      rejected: notJson,
      accepted: LINES - notJson,
      created: LINES - notJson,
      updated: 0,
      unchanged: 0,
    });
    const { rows: streams } = await deployment.db.query(
      "select count(*)::int as reports, count(*) filter (where versions > 1)::int as twice from (select " +
        "stream_id, count(*) as versions from events where tenant = $1 and stream_id like $2 group by 1) s",
      [tenant, `lab-report:${prefix}-%`],
    );
    expect(streams[0]).to.deep.equal({ reports: LINES - notJson, twice: 0 });
    const { rows: pieces } = await deployment.db.query(
      "select count(*)::int as checkpoints, count(distinct data->'piece')::int as pieces from events where " +
        "tenant = $1 and stream_id = $2 and type = 'BulkPieceImported'",
      [tenant, `bulk-job:${jobId}`],
    );
    expect(pieces[0].checkpoints, "one checkpoint per piece").to.equal(pieces[0].pieces);
    const rejected = await fetch(`${url}/open/v1/bulk/${jobId}/rejected?limit=1000`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const page = ((await rejected.json()) as { data: { total: number; items: Array<{ line: number }> } }).data;
    expect(page.items.map((item) => item.line)).to.deep.equal(
      Array.from({ length: notJson }, (_, i) => (i + 1) * NOT_JSON_EVERY),
    );
  }

  it("is taken over by another worker process, with no line lost and none counted twice", async () => {
    const api = await start("all");
    const tenant = await ingestionTenant(api, TENANT);
    const { body, notJson } = jobBody("KB1");
    const jobId = await submit(api.url!, tenant.client.key, body);
    const before = await midJob(api.url!, tenant.client.key, jobId);
    // The other process starts while the job runs here: the client's lock keeps it waiting.
    const worker = await start("worker");
    await api.kill();
    const survivor = await start("all");
    const after = await until(
      async () => {
        const job = await status(survivor.url!, tenant.client.key, jobId);
        return job.processed > before.processed ? job : null;
      },
      30_000,
      50,
    );
    expect(after.status).to.be.oneOf(["RUNNING", "DONE"]);
    await expectImportedOnce(survivor.url!, tenant.client.key, jobId, { tenant: TENANT, prefix: "KB1", notJson });
    await worker.kill();
    await survivor.kill();
  });

  it("is resumed at the next start when no other worker runs", async () => {
    const first = await start("all");
    const tenant = await ingestionTenant(first, `${TENANT}-2`);
    const { body, notJson } = jobBody("KB2");
    const jobId = await submit(first.url!, tenant.client.key, body);
    await midJob(first.url!, tenant.client.key, jobId);
    await first.kill();
    const next = await start("all");
    await expectImportedOnce(next.url!, tenant.client.key, jobId, { tenant: `${TENANT}-2`, prefix: "KB2", notJson });
    await next.kill();
  });
});
