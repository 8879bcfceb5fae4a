import { expect } from "chai";
import pg from "pg";
import { labResultsProjection } from "../../projections/ingestion/labResults.ts";
import { rebuildProjection } from "../../projections/runtime/rebuild.ts";
import { remapSteps } from "../../reactors/itemRemap.ts";
import { silentLogger } from "../../src/logger.ts";
import { monthlyPanels, useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

/**
 * Contract F.1: a mapping re-maps the results stored before it, in steps, without changing a
 * stored event; the chart and the unmapped list show it; undoing it unmaps them all; a rebuild
 * of the item rows reaches the same rows.
 */
describe("re-mapping stored results with an item mapping", function () {
  this.timeout(60_000);
  const hub = useIngestionService();
  const localUrea = (value: number) => ({ itemCode: "L-UREA", itemName: "本院尿素", value, unit: "mg/dL" });
  const ureaRows = async () =>
    (
      await hub.service.db.query(
        "select external_id, std_code, std_value, unit_status, mapping_id from read.lab_results where item_code = 'L-UREA' order by external_id",
      )
    ).rows;
  const chartPoints = async () => {
    const answer = await hub.tenant.call("GET", "/api/patients/P001/results?codes=UREA_PRE", {
      token: hub.tenant.authorToken,
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return (answer.body.series[0].points as Array<{ value: number }>).map((point) => point.value);
  };
  const unmappedCodes = async () =>
    (
      (await hub.tenant.call("GET", "/api/dictionary/unmapped", { token: hub.tenant.authorToken })).body as Array<{
        itemCode: string;
      }>
    ).map((item) => item.itemCode);
  let mappingId: string;
  const savedStep = remapSteps.results;

  before(async () => {
    remapSteps.results = 2;
    const panels = monthlyPanels("RM", 5, (i) => [{ itemCode: "HGB", value: 110 + i, unit: "g/L" }, localUrea(50 + i)]);
    const pushed = await hub.tenant.push("lab", panels);
    expect(pushed.body.data.accepted).to.equal(5);
    await until(async () => (await ureaRows()).length === 5 || null, 8000);
  });
  after(() => {
    remapSteps.results = savedStep;
  });

  it("re-maps last months' results in steps: the chart shows them in the standard unit, and the unmapped list no longer lists them", async () => {
    expect(await chartPoints()).to.deep.equal([]);
    expect(await unmappedCodes()).to.include("L-UREA");
    const { rows: before } = await hub.service.db.query(
      "select position, data from events where type = 'LabReportReceived' order by position",
    );
    const made = await hub.tenant.call("POST", "/api/dictionary/mappings", {
      token: hub.tenant.authorToken,
      body: { client: "Central lab LIS", itemCode: "L-UREA", stdCode: "UREA_PRE" },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    mappingId = made.body.mappingId;
    const rows = await until(async () => {
      const current = await ureaRows();
      return current.every((row) => row.std_code === "UREA_PRE") ? current : null;
    }, 10_000);
    // BUN in mg/dL to mmol/L, by the dictionary's conversion (x 0.357015), six significant digits.
    expect(rows!.map((row) => [row.std_value, row.unit_status, row.mapping_id])).to.deep.equal(
      [50, 51, 52, 53, 54].map((value) => [Number((value * 0.357015).toPrecision(6)), "converted", mappingId]),
    );
    expect(await chartPoints()).to.deep.equal(
      [50, 51, 52, 53, 54].map((value) => Number((value * 0.357015).toPrecision(6))),
    );
    expect(await unmappedCodes()).to.not.include("L-UREA");
    const { rows: steps } = await hub.service.db.query(
      "select data from events where type = 'ItemMappingApplied' order by position",
    );
    expect(steps.length, "steps of two results").to.be.greaterThan(1);
    expect(steps.at(-1)!.data).to.deep.include({ mappingId, through: null });
    const { rows: after } = await hub.service.db.query(
      "select position, data from events where type = 'LabReportReceived' order by position",
    );
    expect(after, "no stored event changed").to.deep.equal(before);
  });

  const remapped = async (externalId: string) => {
    const answer = await hub.tenant.call("GET", `/api/history/lab/${externalId}`, { token: hub.tenant.authorToken });
    expect(answer.status).to.equal(200);
    return (
      (answer.body.entries as Array<Record<string, unknown>>)
        .filter((entry) => entry.event === "REMAPPED")
        // The items and the standard item (issue #54) are shown in test/browser/readableMappings.test.ts.
        .map(({ seq, at, items, standardItem, ...rest }) => rest)
    );
  };

  it("shows the re-mapping in each report's history, with who mapped and to what", async () => {
    for (const externalId of ["RM-1", "RM-5"]) {
      expect(await remapped(externalId)).to.deep.equal([
        { event: "REMAPPED", by: "Nurse Chen", requestId: null, mappingId, stdCode: "UREA_PRE" },
      ]);
    }
  });

  it("shows the re-mapping's progress with the mapping", async () => {
    const mapping = await until(async () => {
      const listed = (await hub.tenant.call("GET", "/api/dictionary/mappings", { token: hub.tenant.authorToken }))
        .body as Array<Record<string, any>>;
      const found = listed.find((candidate) => candidate.mappingId === mappingId);
      return found?.remap.status === "DONE" ? found : null;
    }, 8000);
    expect(mapping!.remap).to.deep.include({ status: "DONE", total: 5 });
    expect(mapping!.remap.results).to.be.at.least(5);
  });

  it("maps a report pushed later by the same mapping, and a rebuild of the item rows reaches the same rows and summaries", async () => {
    const later = monthlyPanels("RM-LATE", 1, () => [localUrea(60)]);
    expect((await hub.tenant.push("lab", later)).body.data.results[0]).to.include({ itemsMapped: 1 });
    await until(async () => (await ureaRows()).length === 6 || null, 8000);
    const snapshot = async () => ({
      rows: await ureaRows(),
      months: (
        await hub.service.db.query(
          "select std_code, month, ward, results, patients, value_sum::text from read.result_months where std_code = 'UREA_PRE' order by month",
        )
      ).rows,
      latest: (
        await hub.service.db.query("select std_value, external_id from read.latest_results where std_code = 'UREA_PRE'")
      ).rows,
    });
    const live = await snapshot();
    expect(live.months.reduce((sum, month) => sum + month.results, 0)).to.equal(6);
    expect((await rebuildProjection(hub.service.db, labResultsProjection, silentLogger)).status).to.equal("rebuilt");
    expect(await snapshot()).to.deep.equal(live);
  });

  it("undoes the mapping: every result it mapped, before or after it, is unmapped again, and the chart and the summaries let them go", async () => {
    const undone = await hub.tenant.call("DELETE", `/api/dictionary/mappings/${mappingId}`, {
      token: hub.tenant.authorToken,
    });
    expect(undone.status).to.equal(204);
    const rows = await until(async () => {
      const current = await ureaRows();
      return current.every((row) => row.std_code === null) ? current : null;
    }, 8000);
    expect(rows!.map((row) => [row.std_value, row.unit_status, row.mapping_id])).to.deep.equal(
      Array.from({ length: 6 }, () => [null, "not-applicable", null]),
    );
    expect(await chartPoints()).to.deep.equal([]);
    expect(
      (
        await hub.service.db.query(
          "select count(*)::int as n from read.result_months where std_code = 'UREA_PRE' and results > 0",
        )
      ).rows[0].n,
    ).to.equal(0);
    expect(
      (await hub.service.db.query("select count(*)::int as n from read.latest_results where std_code = 'UREA_PRE'"))
        .rows[0].n,
    ).to.equal(0);
    expect(await unmappedCodes()).to.include("L-UREA");
    const undoing = { event: "REMAPPED", by: "Nurse Chen", requestId: null, mappingId, stdCode: null };
    expect(await remapped("RM-2")).to.deep.equal([{ ...undoing, stdCode: "UREA_PRE" }, undoing]);
    expect(await remapped("RM-LATE-1"), "mapped when it came, unmapped by the undoing").to.deep.equal([undoing]);
  });
});

/**
 * An undo while the re-mapping runs (issue #52, finding 7): the steps not yet applied map nothing,
 * the re-mapping ends STOPPED, not DONE, and another mapping in force that the undone one outranked
 * takes the results, as a rebuild would give them to it.
 */
describe("undoing a mapping while its re-mapping runs", function () {
  this.timeout(90_000);
  const hub = useIngestionService();
  const savedStep = remapSteps.results;
  const bun = (value: number) => ({ itemCode: "L-BUN", itemName: "本院尿素氮", value, unit: "mg/dL" });
  const bunRows = async () =>
    (
      await hub.service.db.query(
        "select external_id, std_code, std_value, mapping_id from read.lab_results where item_code = 'L-BUN' order by external_id",
      )
    ).rows;
  const mappingOf = async (mappingId: string) => {
    const listed = (await hub.tenant.call("GET", "/api/dictionary/mappings", { token: hub.tenant.authorToken }))
      .body as Array<Record<string, any>>;
    return listed.find((candidate) => candidate.mappingId === mappingId)!;
  };
  const steps = async (mappingId: string) =>
    (
      await hub.service.db.query(
        "select count(*)::int as n from events where type = 'ItemMappingApplied' and data->>'mappingId' = $1",
        [mappingId],
      )
    ).rows[0].n as number;

  before(async () => {
    remapSteps.results = 1;
    const pushed = await hub.tenant.push(
      "lab",
      monthlyPanels("BUN", 6, (i) => [bun(40 + i)]),
    );
    expect(pushed.body.data.accepted).to.equal(6);
    await until(async () => (await bunRows()).length === 6 || null, 8000);
  });
  after(() => {
    remapSteps.results = savedStep;
  });

  it("stops it: STOPPED, its remaining steps map nothing, and the mapping it outranked takes the results", async () => {
    // The item rows are held (writes wait, reads go on): the re-mapping is still to run when it is undone.
    const held = new pg.Client({ connectionString: hub.service.databaseUrl });
    await held.connect();
    let undo: Promise<{ status: number }> | null = null;
    try {
      await held.query("begin");
      await held.query("lock table read.lab_results in share mode");
      const sender = await hub.tenant.call("POST", "/api/dictionary/mappings", {
        token: hub.tenant.authorToken,
        body: { client: "Central lab LIS", itemCode: "L-BUN", stdCode: "UREA_PRE" },
      });
      expect(sender.status, JSON.stringify(sender.body)).to.equal(201);
      const everySender = await hub.tenant.call("POST", "/api/dictionary/mappings", {
        token: hub.tenant.authorToken,
        body: { itemCode: "L-BUN", stdCode: "UREA_POST" },
      });
      expect(everySender.status, JSON.stringify(everySender.body)).to.equal(201);
      await until(
        async () => (await steps(sender.body.mappingId)) > 2 && (await steps(everySender.body.mappingId)) > 2,
        15_000,
        100,
      );
      expect((await mappingOf(sender.body.mappingId)).remap.status).to.equal("RUNNING");
      undo = hub.tenant.call("DELETE", `/api/dictionary/mappings/${sender.body.mappingId}`, {
        token: hub.tenant.authorToken,
      });
      await until(
        async () =>
          (
            await hub.service.db.query(
              "select 1 from events where type = 'ItemMappingRemoved' and data->>'mappingId' = $1",
              [sender.body.mappingId],
            )
          ).rowCount! > 0,
        15_000,
        50,
      );
      await held.query("rollback");
      expect((await undo).status).to.equal(204);

      const stopped = await until(
        async () => {
          const mapping = await mappingOf(sender.body.mappingId);
          return mapping.remap.status !== "RUNNING" ? mapping : null;
        },
        15_000,
        100,
      );
      expect(stopped.remap.status, "the undo stopped the re-mapping").to.equal("STOPPED");
      expect(stopped.remap.results, "the steps after the undo mapped nothing").to.be.below(6);
      const taken = await until(
        async () => ((await mappingOf(everySender.body.mappingId)).remap.status === "DONE" ? bunRows() : null),
        15_000,
        100,
      );
      expect(taken.map((row) => [row.std_code, row.mapping_id])).to.deep.equal(
        Array.from({ length: 6 }, () => ["UREA_POST", everySender.body.mappingId]),
      );
      expect((await rebuildProjection(hub.service.db, labResultsProjection, silentLogger)).status).to.equal("rebuilt");
      expect(await bunRows(), "a rebuild gives the same rows").to.deep.equal(taken);
    } finally {
      await held.query("rollback").catch(() => {});
      await held.end();
      await undo?.catch(() => {});
    }
  });
});
