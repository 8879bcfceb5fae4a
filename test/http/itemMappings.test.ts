import { expect } from "chai";
import { localDateTime } from "../../db/localDateTime.ts";
import { ADMIN } from "../support/http.ts";
import { labReport, useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

/** Contract F.1 over HTTP: a mapping is made once, and from then on pushes map the item with it. */
describe("item mappings (POST, GET and DELETE /api/dictionary/mappings)", function () {
  this.timeout(60_000);
  const hub = useIngestionService();
  const mappings = "/api/dictionary/mappings";
  const call = (method: string, path: string, body?: unknown, token = hub.tenant.authorToken) =>
    hub.tenant.call(method, path, { token, ...(body === undefined ? {} : { body }) });
  /** The item rows of a report once they are there: sent code, standard code and value, unit status. */
  const itemRows = (externalId: string, count: number) =>
    until(async () => {
      const { rows } = await hub.service.db.query(
        "select item_code, std_code, std_value, unit_status from read.lab_results where external_id = $1 order by item_index",
        [externalId],
      );
      return rows.length === count ? rows : null;
    }, 8000);
  const localUrea = { itemCode: "L-UREA", itemName: "本院尿素", value: 56, unit: "mg/dL" };
  const localProtein = { itemCode: "L-PROT", itemName: "本院蛋白", value: 7, unit: "g/dL-lab" };
  let ureaMapping: string;

  it("maps a sender's unknown item once, and the next push maps it, converting its unit by the dictionary", async () => {
    const before = await hub.tenant.push("lab", [labReport("MAP-0", { items: [localUrea] })]);
    expect(before.body.data.results[0]).to.include({ itemsMapped: 0, itemsUnmapped: 1 });
    await itemRows("MAP-0", 1);
    const preview = await call("POST", `${mappings}/preview`, { client: "Central lab LIS", itemCode: "L-UREA" });
    expect(preview.status, JSON.stringify(preview.body)).to.equal(200);
    expect(preview.body).to.deep.equal({ results: 1, reports: 1, units: ["mg/dL"] });
    const made = await call("POST", mappings, {
      client: "Central lab LIS",
      itemCode: "L-UREA",
      itemName: "本院尿素",
      unit: "mg/dL",
      stdCode: "UREA_PRE",
      reason: "The lab's in-house code",
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    ureaMapping = made.body.mappingId;
    expect(ureaMapping).to.match(/^[0-9a-f-]{36}$/);
    const after = await hub.tenant.push("lab", [labReport("MAP-1", { items: [localUrea] })]);
    expect(after.body.data.results[0]).to.include({ itemsMapped: 1, itemsUnmapped: 0 });
    // The dictionary's BUN conversion: 56 mg/dL x 0.357015.
    expect(await itemRows("MAP-1", 1)).to.deep.equal([
      { item_code: "L-UREA", std_code: "UREA_PRE", std_value: 19.9928, unit_status: "converted" },
    ]);
    const { rows } = await hub.service.db.query(
      "select data->'items'->0 as item from events where type = 'LabReportReceived' and data->>'externalId' = 'MAP-1'",
    );
    expect(rows[0].item).to.deep.include({ mappedBy: "mapping", mappingId: ureaMapping, stdCode: "UREA_PRE" });
  });

  it("lists the mapping with who made it and why", async () => {
    const listed = (await call("GET", mappings)).body as Array<Record<string, unknown>>;
    expect(listed[0]).to.deep.include({
      mappingId: ureaMapping,
      client: "Central lab LIS",
      itemCode: "L-UREA",
      itemName: "本院尿素",
      unit: "mg/dL",
      stdCode: "UREA_PRE",
      factor: null,
      reason: "The lab's in-house code",
      addedBy: "Nurse Chen",
      removedAt: null,
    });
  });

  it("converts a unit nobody knows by the factor given, and maps for every sender when no client is named", async () => {
    const made = await call("POST", mappings, { itemCode: "L-PROT", stdCode: "ALB", factor: 10 });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    const otherKey = (
      await hub.tenant.call("POST", "/api/admin/clients", { token: ADMIN, body: { name: "Ward POCT", tenant: "h1" } })
    ).body.key;
    const pushed = await hub.tenant.call("POST", "/open/v1/lab/reports", {
      token: otherKey,
      body: { reports: [labReport("MAP-2", { items: [localProtein, localUrea] })] },
    });
    // The urea mapping is the central lab's alone.
    expect(pushed.body.data.results[0]).to.include({ itemsMapped: 1, itemsUnmapped: 1 });
    expect(await itemRows("MAP-2", 2)).to.deep.equal([
      { item_code: "L-PROT", std_code: "ALB", std_value: 70, unit_status: "converted" },
      { item_code: "L-UREA", std_code: null, std_value: null, unit_status: "not-applicable" },
    ]);
  });

  it("marks a report whose mapped item is critical as one that may alert, and the alert comes", async () => {
    const made = await call("POST", mappings, { itemCode: "L-K", stdCode: "K" });
    expect(made.status).to.equal(201);
    const now = new Date();
    const report = labReport("MAP-K", {
      collectedAt: localDateTime(new Date(now.getTime() - 3_600_000)),
      reportedAt: localDateTime(now),
      items: [{ itemCode: "L-K", value: 7.1, unit: "mmol/L" }],
    });
    expect((await hub.tenant.push("lab", [report])).body.data.results[0]).to.include({ itemsMapped: 1 });
    const { rows } = await hub.service.db.query(
      "select metadata->'criticalAtReceipt' as hint from events where type = 'LabReportReceived' and data->>'externalId' = 'MAP-K'",
    );
    expect(rows[0].hint).to.equal(true);
    const alert = await until(
      async () =>
        ((await call("GET", "/api/alerts")).body as Array<Record<string, unknown>>).find(
          (candidate) => candidate.externalId === "MAP-K",
        ),
      8000,
    );
    expect(alert).to.deep.include({ code: "K", value: 7.1 });
  });

  it("refuses a second mapping of the same item, one the dictionary maps, and what it cannot make, saying what to send", async () => {
    const again = await call("POST", mappings, {
      client: "Central lab LIS",
      itemCode: "L-UREA",
      itemName: "本院尿素",
      unit: "mg/dL",
      stdCode: "UREA_POST",
    });
    expect(again.status).to.equal(409);
    expect(again.body).to.deep.include({ code: "mapping-exists" });
    expect(again.body.error).to.include(ureaMapping);
    const known = await call("POST", mappings, { itemCode: "K", stdCode: "NA" });
    expect(known.status).to.equal(400);
    expect(known.body.error).to.match(/The dictionary maps this item already, to K/);
    const unknownItem = await call("POST", mappings, { itemCode: "L-X", stdCode: "NOPE" });
    expect(unknownItem.body.error).to.match(/stdCode: NOPE is not an item of the dictionary/);
    const unknownClient = await call("POST", mappings, { client: "Nobody", itemCode: "L-X", stdCode: "HGB" });
    expect(unknownClient.body.error).to.match(/no sender of this tenant is named Nobody/);
    const noKey = await call("POST", mappings, { stdCode: "HGB" });
    expect(noKey.body.error).to.match(/Send itemCode or itemName/);
    const badFactor = await call("POST", mappings, { itemCode: "L-X", stdCode: "HGB", factor: -1 });
    expect(badFactor.body.error).to.match(/factor is a number greater than 0/);
    for (const refused of [known, unknownItem, unknownClient, noKey, badFactor]) expect(refused.status).to.equal(400);
    const made = await hub.tenant.call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: "Dr. Wu", tenant: "h1", roles: ["clinician"] },
    });
    const byClinician = await call("POST", mappings, { itemCode: "L-X", stdCode: "HGB" }, made.body.token);
    expect(byClinician.status).to.equal(403);
  });

  it("undoes a mapping: later pushes leave the item unmapped, the list says who undid it, and undoing again changes nothing", async () => {
    const undone = await call("DELETE", `${mappings}/${ureaMapping}`, { reason: "wrong item" });
    expect(undone.status).to.equal(204);
    const after = await hub.tenant.push("lab", [labReport("MAP-3", { items: [localUrea] })]);
    expect(after.body.data.results[0]).to.include({ itemsMapped: 0, itemsUnmapped: 1 });
    const listed = ((await call("GET", mappings)).body as Array<Record<string, unknown>>).find(
      (mapping) => mapping.mappingId === ureaMapping,
    )!;
    expect(listed).to.deep.include({ removedBy: "Nurse Chen" });
    expect(listed.removedAt).to.be.a("string");
    expect((await call("DELETE", `${mappings}/${ureaMapping}`)).status).to.equal(204);
    const unknown = await call("DELETE", `${mappings}/00000000-0000-4000-8000-000000000000`);
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.deep.include({ code: "mapping-not-found" });
    // Undone, the key may be mapped again.
    expect(
      (
        await call("POST", mappings, {
          client: "Central lab LIS",
          itemCode: "L-UREA",
          itemName: "本院尿素",
          unit: "mg/dL",
          stdCode: "UREA_PRE",
        })
      ).status,
    ).to.equal(201);
  });
});
