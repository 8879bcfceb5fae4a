import { EVENT_HASH_SQL, sealPending } from "../db/ledger.ts";
import { verifyLedger } from "../queries/ledger/ledger.ts";
import { startBenchService } from "./benchService.ts";
import { result, type BenchResult } from "./results.ts";

const EVENTS = 1_000_000;

/**
 * The ledger (contract D.2) over a million events of about 600 bytes each (a report's head
 * without its items), written by SQL: sealing them all, then verifying every block, against the
 * ceiling of hashing every event in one statement.
 */
export async function ledgerBenchmarks(): Promise<BenchResult[]> {
  // The background sealer stays out of the way: this seals and verifies on its own clock.
  const service = await startBenchService({ LEDGER_SEAL_SECONDS: "3600" });
  try {
    const db = service.db;
    await db.query(
      `insert into events (tenant, stream_id, stream_version, type, data, metadata)
       select 'bench', 'lab-report:R' || g, 1, 'BenchReceived',
              jsonb_build_object('externalId', 'R' || g, 'reportNo', 'JY' || g, 'patient',
                jsonb_build_object('idCard', '11010519491231002X', 'name', '张三', 'hisPatientId', 'H-' || g),
                                 'panelName', '透析月度检查', 'specimen', 'SERUM', 'collectedAt', '2026-03-01 07:30:00', 'reportedAt', '2026-03-01 11:00:00',
                                 'status', 'FINAL', 'labName', 'Central lab', 'contentHash', md5(g::text) || md5((g + 1)::text), 'note', repeat('x', 200)),
              jsonb_build_object('actor', 'bench', 'client', 'bench-lab', 'requestId', md5(g::text))
       from generate_series(1, ${EVENTS}) g`,
    );
    await db.query("analyze events");
    const bytes = Number(
      (
        await db.query(
          "select avg(pg_column_size(data) + pg_column_size(metadata))::int as n from events where tenant = 'bench'",
        )
      ).rows[0].n,
    );

    const sealStarted = performance.now();
    const blocks = await sealPending(db);
    const sealSeconds = (performance.now() - sealStarted) / 1000;
    const sealed = blocks.reduce((sum, block) => sum + block.events, 0);

    const ceilingStarted = performance.now();
    await db.query(`select count(${EVENT_HASH_SQL}) from events e`);
    const ceilingSeconds = (performance.now() - ceilingStarted) / 1000;

    const verifyStarted = performance.now();
    const verification = await verifyLedger(db);
    const verifySeconds = (performance.now() - verifyStarted) / 1000;
    if (!verification.ok)
      throw new Error(`the ledger did not verify: ${JSON.stringify(verification.problems.slice(0, 5))}`);

    const verifyRate = verification.eventsChecked / verifySeconds;
    const ceilingRate = sealed / ceilingSeconds;
    return [
      result(
        "ledger.verify_events_per_s",
        verifyRate,
        "events/s",
        ceilingRate,
        `verifyLedger over ${verification.eventsChecked.toLocaleString("en")} events in ` +
          `${verification.blocksChecked} blocks (${verifySeconds.toFixed(1)} s; events of ~${bytes} bytes ` +
          `stored); baseline: hashing every event in one statement (${ceilingSeconds.toFixed(1)} ` +
          "s); target >= 200,000",
      ),
      result(
        "ledger.seal_events_per_s",
        sealed / sealSeconds,
        "events/s",
        undefined,
        `sealPending over ${sealed.toLocaleString("en")} events into ${blocks.length} blocks of at most 10,000 (${sealSeconds.toFixed(1)} s)`,
      ),
    ];
  } finally {
    await service.stop();
  }
}
