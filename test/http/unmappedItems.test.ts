import { expect } from "chai";
import { localDate } from "../../db/localDateTime.ts";
import { ADMIN } from "../support/http.ts";
import { labReport, LI_SI, useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

/** Contract F.1's list: GET /api/dictionary/unmapped, the sent items no dictionary entry matched. */
describe("the unmapped items list (GET /api/dictionary/unmapped)", () => {
  const hub = useIngestionService();
  // The days the pushes were received on: one, or two when the run crosses local midnight.
  let firstDay: string;
  let lastDay: string;
  let otherKey: string;
  const tokenWith = async (body: Record<string, unknown>) => {
    const made = await hub.tenant.call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: "Staff", tenant: "h1", ...body },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    return made.body.token as string;
  };
  const list = async (query = "", token = hub.tenant.authorToken) =>
    hub.tenant.call("GET", `/api/dictionary/unmapped${query}`, { token });

  before(async () => {
    firstDay = localDate(new Date());
    otherKey = (
      await hub.tenant.call("POST", "/api/admin/clients", { token: ADMIN, body: { name: "Ward POCT", tenant: "h1" } })
    ).body.key;
    // 李四 of ward B, so that a caller of ward A does not see his results.
    const registered = await hub.tenant.call("PUT", "/api/patients/P002", {
      token: hub.tenant.authorToken,
      body: { ...LI_SI, ward: "B" },
    });
    expect(registered.status).to.equal(200);
    const localUrea = (value: number) => ({ itemCode: "L-UREA", itemName: "本院尿素", value, unit: "mg/dL" });
    // Three reports of the central lab, each with the fixture's local item (阴性) and a local urea.
    for (const [id, value] of [
      ["UM-1", 48.2],
      ["UM-2", 51],
      ["UM-3", 48.2],
    ] as const) {
      const report = labReport(id);
      const pushed = await hub.tenant.push("lab", [{ ...report, items: [...report.items, localUrea(value)] }]);
      expect(pushed.body.data.results[0]).to.include({ status: "CREATED", itemsUnmapped: 2 });
    }
    // The ward's point-of-care device sends the same urea code for 李四: another sender, another line.
    const poct = await hub.tenant.call("POST", "/open/v1/lab/reports", {
      token: otherKey,
      body: {
        reports: [
          labReport("UM-4", {
            patient: { idCard: LI_SI.idCard, name: LI_SI.name },
            items: [localUrea(60.5), { itemCode: "K", value: 4.1, unit: "mmol/L" }],
          }),
        ],
      },
    });
    expect(poct.body.data.results[0]).to.include({ status: "CREATED", itemsMapped: 1, itemsUnmapped: 1 });
    lastDay = localDate(new Date());
    await until(async () => ((await list()).body as unknown[]).length === 3 || null, 8000);
  });

  it("lists each sender's unmapped items with their counts, times and example values, the most frequent first", async () => {
    const answer = await list();
    expect(answer.status).to.equal(200);
    const items = answer.body as Array<Record<string, any>>;
    expect(items.map(({ firstSeen, lastSeen, ...rest }) => rest)).to.deep.equal([
      {
        client: "Central lab LIS",
        itemCode: "L-UREA",
        itemName: "本院尿素",
        unit: "mg/dL",
        results: 3,
        examples: [48.2, 51],
      },
      {
        client: "Central lab LIS",
        itemCode: "X-LOCAL-42",
        itemName: "某本地项目",
        unit: null,
        results: 3,
        examples: ["阴性"],
      },
      { client: "Ward POCT", itemCode: "L-UREA", itemName: "本院尿素", unit: "mg/dL", results: 1, examples: [60.5] },
    ]);
    for (const item of items) {
      expect(item.firstSeen.slice(0, 10)).to.be.oneOf([firstDay, lastDay]);
      expect(item.firstSeen <= item.lastSeen).to.equal(true);
    }
  });

  it("counts only the reports received on the days asked for", async () => {
    const dayBefore = localDate(new Date(Date.parse(`${firstDay}T12:00:00Z`) - 86_400_000));
    expect((await list(`?from=${firstDay}&to=${lastDay}`)).body).to.have.length(3);
    expect((await list(`?to=${dayBefore}`)).body).to.deep.equal([]);
  });

  it("shows a caller with wards only its wards' patients' items", async () => {
    const wardB = await tokenWith({ roles: ["clinician"], wards: ["B"] });
    expect(
      ((await list("", wardB)).body as Array<Record<string, any>>).map((item) => [item.client, item.itemCode]),
    ).to.deep.equal([["Ward POCT", "L-UREA"]]);
    const wardA = await tokenWith({ roles: ["clinician"], wards: ["A"] });
    expect(
      ((await list("", wardA)).body as Array<Record<string, any>>).map((item) => [item.client, item.itemCode]),
    ).to.deep.equal([
      ["Central lab LIS", "L-UREA"],
      ["Central lab LIS", "X-LOCAL-42"],
    ]);
  });

  it("lists nothing once a correction maps what was unmapped", async () => {
    const corrected = labReport("UM-4", {
      patient: { idCard: LI_SI.idCard, name: LI_SI.name },
      items: [{ itemCode: "UREA_PRE", value: 21.6, unit: "mmol/L" }],
    });
    const pushed = await hub.tenant.call("POST", "/open/v1/lab/reports", {
      token: otherKey,
      body: { reports: [corrected] },
    });
    expect(pushed.body.data.results[0]).to.include({ status: "UPDATED", itemsUnmapped: 0 });
    const items = (await until(async () => {
      const listed = (await list()).body as Array<Record<string, any>>;
      return listed.length === 2 ? listed : null;
    }, 8000))!;
    expect(items.map((item) => item.client)).to.deep.equal(["Central lab LIS", "Central lab LIS"]);
  });

  it("refuses a viewer, and days it cannot read, with what to send", async () => {
    const viewer = await list("", await tokenWith({ roles: ["viewer"] }));
    expect(viewer.status).to.equal(403);
    expect(viewer.body.code).to.equal("role-needed");
    const badDay = await list("?from=2026-02-30");
    expect(badDay.status).to.equal(400);
    expect(badDay.body.error).to.match(/from must be a day written yyyy-MM-dd/);
    const backwards = await list("?from=2026-03-02&to=2026-03-01");
    expect(backwards.status).to.equal(400);
    expect(backwards.body).to.deep.include({ code: "unmapped-range-invalid" });
    const tooLong = await list("?from=2024-01-01&to=2026-01-01");
    expect(tooLong.status).to.equal(400);
    expect(tooLong.body.error).to.match(/at most 366 days/);
    const unknown = await list("?since=2026-01-01");
    expect(unknown.status).to.equal(400);
    expect(unknown.body.error).to.match(/The query parameters are from and to/);
  });
});
