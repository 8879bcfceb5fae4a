import pg from "pg";
import { measureOurs } from "./ingest.ts";
const admin = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5433/postgres" });
await admin.connect();
const mode = process.argv[2] ?? "on";
const run = await measureOurs(20, { DERIVED_RESULTS: mode }, async () => {
  const { rows } = await admin.query(`select round(total_exec_time::numeric, 0) as ms, calls, left(regexp_replace(query, '\\s+', ' ', 'g'), 150) as q from pg_stat_statements order by total_exec_time desc limit 25`);
  for (const r of rows) console.log(r.ms, r.calls, r.q);
});
console.log(mode, run.measured.reportsPerSecond, run.cpuMs);
await admin.end();
