// Scratch diagnostic (not committed): each projection's progress during a bulk job.
import { writeJobFile, upload } from "./bulk.ts";
import { benchService } from "./ingest.ts";
import { getJson } from "./ingestSenders.ts";

const reports = Number(process.env.N ?? 100000);
const { service, db, tenant } = await benchService();
try {
  await writeJobFile("/tmp/diag/job.ndjson", "B", 0, reports / 100);
  const started = performance.now();
  const answer = await upload(`${service.url}/open/v1/lab/reports/bulk`, tenant.client.key, "/tmp/diag/job.ndjson");
  const jobId = answer.body.data.jobId;
  for (;;) {
    await new Promise((r) => setTimeout(r, 10_000));
    const job = (await getJson(`${service.url}/open/v1/bulk/${jobId}`, tenant.client.key)).body.data;
    const { rows } = await db.query("select name, applied_count from projection_generations where state = 'live' order by name");
    const { rows: head } = await db.query("select count(*)::int as n from events");
    const { rows: stats } = await db.query("select last_autoanalyze, n_live_tup from pg_stat_user_tables where relname = 'events'");
    console.log(`${((performance.now() - started) / 1000).toFixed(0)} s job ${job.status} ${job.processed ?? ""} events ${head[0].n} | ${rows.map((r) => `${r.name} ${r.applied_count}`).join(", ")} | analyzed ${stats[0]?.last_autoanalyze?.toISOString?.().slice(11, 19) ?? "never"}`);
    if (job.status === "DONE" && rows.every((r) => Number(r.applied_count) >= head[0].n - 5)) break;
    if (performance.now() - started > 600_000) break;
  }
} finally {
  await db.end();
  await service.stop();
}
