import { expect } from "chai";
import { withTransaction, type Tx } from "../../db/pool.ts";
import { applyNextBatch } from "../../projections/runtime/applyBatch.ts";
import {
  createGeneration,
  discardBuilding,
  finishLoad,
  lockGeneration,
} from "../../projections/runtime/generations.ts";
import { rebuildProjection } from "../../projections/runtime/rebuild.ts";
import { labResultsProjection } from "../../projections/ingestion/labResults.ts";
import { silentLogger } from "../../src/logger.ts";
import { labReport, LI_SI, ZHANG_SAN, useIngestionService } from "../support/ingestion.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";
import { monthRecountSql } from "../support/monthRecount.ts";

/*
 * The summaries dashboards read (clinical.monthly_results, latest_results) are kept by difference;
 * whatever happens to the results, they must say what a recount of the item rows says.
 */
const WANG_WU = { name: "王五", idCard: "110101199003070011" };

/** What monthly_results must hold: a recount of the item rows, under each patient's current ward. */
const RECOUNT = monthRecountSql({ items: "read.lab_results", wards: "read.patients", targets: "read.std_targets" });
const SUMMARY = `
  select tenant, std_code, month, ward, results, patients, value_sum, below_target, in_target, above_target
  from read.result_months where results > 0`;
const NEWEST = `
  select distinct on (tenant, patient_ref, std_code) tenant, patient_ref, std_code, std_value, external_id
  from read.lab_results where patient_ref is not null and std_value is not null
  order by tenant, patient_ref, std_code, reported_at desc, external_id desc, item_index desc`;

describe("result summaries (monthly_results, latest_results)", () => {
  const hub = useIngestionService();
  before(async () => {
    await hub.tenant.call("PUT", "/api/patients/P002", {
      token: hub.tenant.authorToken,
      body: { ...LI_SI, ward: "B" },
    });
  });

  const rows = async (sql: string) => (await hub.service.db.query(sql)).rows.map((row) => JSON.stringify(row)).sort();
  const disagreement = async () => {
    const [summary, recount, latest, newest] = [
      await rows(SUMMARY),
      await rows(RECOUNT),
      await rows(`select tenant, patient_ref, std_code, std_value, external_id from read.latest_results`),
      await rows(NEWEST),
    ];
    return {
      months: {
        onlySummary: summary.filter((r) => !recount.includes(r)),
        onlyRecount: recount.filter((r) => !summary.includes(r)),
      },
      latest: {
        onlySummary: latest.filter((r) => !newest.includes(r)),
        onlyRecount: newest.filter((r) => !latest.includes(r)),
      },
    };
  };
  const agreed = { months: { onlySummary: [], onlyRecount: [] }, latest: { onlySummary: [], onlyRecount: [] } };
  const caughtUp = async () => {
    await projectionsCaughtUp(hub.service.url!, 20_000, ["lab_results", "patients", "auto_claim"]);
    expect(await disagreement()).to.deep.equal(agreed);
  };
  const push = async (reports: unknown[]) =>
    expect((await hub.tenant.push("lab", reports)).body.data.accepted).to.equal(reports.length);
  const register = async (patientRef: string, body: Record<string, unknown>) =>
    expect(
      (await hub.tenant.call("PUT", `/api/patients/${patientRef}`, { token: hub.tenant.authorToken, body })).status,
    ).to.equal(200);
  const hb = (value: number) => [
    { itemCode: "HGB", itemName: "血红蛋白", value, unit: "g/L" },
    { itemCode: "P", itemName: "磷", value: 1.5, unit: "mmol/L" },
  ];
  const on = (day: string) => ({ collectedAt: `${day} 07:30:00`, reportedAt: `${day} 11:00:00` });

  it("count each patient once a month, whatever the number of results, and results against the target", async () => {
    await push([
      labReport("S-1", { ...on("2026-03-02"), items: hb(105) }),
      labReport("S-2", { ...on("2026-03-20"), items: hb(120) }),
      labReport("S-3", { ...on("2026-04-02"), items: hb(135) }),
      labReport("S-4", { ...on("2026-03-05"), patient: { ...LI_SI }, items: hb(118) }),
    ]);
    await caughtUp();
    const { rows: march } = await hub.service.db.query(
      "select ward, results, patients, below_target, in_target, above_target from read.result_months where " +
        "std_code = 'HGB' and month = '2026-03-01' order by ward",
    );
    expect(march).to.deep.equal([
      { ward: "A", results: 2, patients: 1, below_target: 1, in_target: 1, above_target: 0 },
      { ward: "B", results: 1, patients: 1, below_target: 0, in_target: 1, above_target: 0 },
    ]);
    const { rows: latest } = await hub.service.db.query(
      "select patient_ref, std_value from read.latest_results where std_code = 'HGB' order by 1",
    );
    expect(latest).to.deep.equal([
      { patient_ref: "P001", std_value: 135 },
      { patient_ref: "P002", std_value: 118 },
    ]);
  });

  it("follow a corrected report out of its month, a claim, and a patient who changes ward", async () => {
    // The April report corrected into February: April loses its only result, the latest goes back to S-2.
    await push([labReport("S-3", { ...on("2026-02-10"), items: hb(99), labName: "corrected" })]);
    // Waiting for a patient not registered yet, then claimed automatically when they are.
    await push([labReport("S-5", { ...on("2026-03-09"), patient: { ...WANG_WU }, items: hb(125) })]);
    await register("P003", { ...WANG_WU, ward: "B" });
    await caughtUp();
    await register("P001", { ...ZHANG_SAN, ward: "B" });
    await caughtUp();
    const { rows: march } = await hub.service.db.query(
      "select ward, results, patients from read.result_months where std_code = 'HGB' and month = '2026-03-01' and results > 0 order by ward",
    );
    expect(march).to.deep.equal([{ ward: "B", results: 4, patients: 3 }]);
    const { rows: latest } = await hub.service.db.query(
      "select patient_ref, std_value, external_id from read.latest_results where std_code = 'HGB' order by 1",
    );
    expect(latest).to.deep.equal([
      { patient_ref: "P001", std_value: 120, external_id: "S-2" },
      { patient_ref: "P002", std_value: 118, external_id: "S-4" },
      { patient_ref: "P003", std_value: 125, external_id: "S-5" },
    ]);
  });

  it("come out the same when a backlog is caught up, its summaries counted in passes", async () => {
    // More history: months and patients apart, a correction and a report that waits for its patient.
    const days = [
      "2026-01-05",
      "2026-01-19",
      "2026-02-02",
      "2026-02-16",
      "2026-03-02",
      "2026-03-16",
      "2026-04-06",
      "2026-04-20",
    ];
    await push(
      days.map((day, i) =>
        labReport(`B-${i}`, { ...on(day), ...(i % 2 ? { patient: { ...LI_SI } } : {}), items: hb(100 + i) }),
      ),
    );
    await push([
      labReport("B-2", { ...on("2026-01-07"), items: hb(90), labName: "corrected" }),
      labReport("B-9", {
        ...on("2026-02-11"),
        patient: { name: "赵六", idCard: "11010119900307651X" },
        items: hb(111),
      }),
    ]);
    await register("P004", { name: "赵六", idCard: "11010119900307651X", ward: "A" });
    // Last in the store, newest first: the patients' latest results come in batches left pending.
    await push(
      [...days]
        .reverse()
        .map((day, i) =>
          labReport(`C-${i}`, { ...on(day), ...(i % 3 === 0 ? { patient: { ...LI_SI } } : {}), items: hb(130 - i) }),
        ),
    );
    // Then events lab_results does not handle: the batch before them is behind and leaves its
    // reports pending, and only the batches of these (afterBatch) are left to count them.
    for (let i = 0; i < 4; i++) {
      await hub.service.db.query(
        `insert into events (tenant, stream_id, stream_version, type, data, metadata) values ('probe', $1, 1, 'Probe', '{}', '{"actor": "test"}')`,
        [`probe:${i}`],
      );
    }
    await caughtUp();
    // A new generation applies the whole store three events a batch, as the live one catches up a backlog.
    const db = hub.service.db;
    const gen = await withTransaction(db, async (tx) => {
      const created = await createGeneration(tx, labResultsProjection, "building");
      await finishLoad(tx, labResultsProjection, created);
      return created;
    });
    const pending = async () =>
      Number((await db.query(`select count(*) from ${gen.schemaName}.unsummarised_reports`)).rows[0].count);
    try {
      let mostPending = 0;
      for (;;) {
        const outcome = await withTransaction(db, async (tx) =>
          applyNextBatch(
            tx,
            labResultsProjection,
            (await lockGeneration(tx, "lab_results", { generation: gen.generation }, false))!,
            3,
          ),
        );
        mostPending = Math.max(mostPending, await pending());
        if (outcome.kind === "idle") break;
        expect(outcome.kind).to.be.oneOf(["applied", "waiting"]);
        // The service's own transactions may hold the last events back for a moment.
        if (outcome.kind === "waiting") await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(mostPending, "reports left pending while behind").to.be.greaterThan(3);
      expect(await pending()).to.equal(0);
      const ours = async (sql: string) => rows(sql.replaceAll("read.", `${gen.schemaName}.`));
      expect(await ours(SUMMARY)).to.deep.equal(await rows(SUMMARY));
      expect(await ours("select * from read.latest_results")).to.deep.equal(
        await rows("select * from read.latest_results"),
      );
    } finally {
      await withTransaction(db, (tx) => discardBuilding(tx, "lab_results"));
    }
  });

  it("are counted after a load by set on the statistics of the rows it loaded", async () => {
    // What the planner knows of the item rows when the finish steps begin (pg_stats is what ANALYZE left).
    const seen: number[] = [];
    const [first, ...rest] = labResultsProjection.finishLoad!;
    const watched = {
      ...labResultsProjection,
      finishLoad: [
        {
          name: first!.name,
          async run(tx: Tx) {
            const { rows } = await tx.query(
              "select count(*)::int as n from pg_stats where schemaname = current_schema() and tablename in ('lab_results', 'patient_wards')",
            );
            seen.push(rows[0].n);
            await first!.run(tx);
          },
        },
        ...rest,
      ],
    };
    const rebuilt = await rebuildProjection(hub.service.db, watched, silentLogger);
    expect(rebuilt).to.include({ status: "rebuilt" });
    expect(rebuilt.status === "rebuilt" && rebuilt.loadedAtOnce).to.be.greaterThan(0);
    expect(seen).to.have.length(1);
    expect(seen[0], "columns with statistics").to.be.greaterThan(20);
  });

  it("come out the same from a replay", async () => {
    const before = [await rows(SUMMARY), await rows("select * from read.latest_results")];
    const rebuilt = await rebuildProjection(hub.service.db, labResultsProjection, silentLogger, { batchSize: 2 });
    expect(rebuilt.status).to.equal("rebuilt");
    expect([await rows(SUMMARY), await rows("select * from read.latest_results")]).to.deep.equal(before);
  });
});
