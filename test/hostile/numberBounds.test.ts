import { randomUUID } from "node:crypto";
import { expect } from "chai";
import fc from "fast-check";
import { mappingStreamOf } from "../../commands/dictionary/itemMappings.ts";
import { LARGEST_READ_NUMBER } from "../../db/numberBounds.ts";
import { ADMIN, httpClient } from "../support/http.ts";
import { ingestionTenant, labReport, useIngestionService } from "../support/ingestion.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";
import { until } from "../support/service.ts";

/*
 * Contract E.6, issue #52 finding 1: numbers a sender or an author gives are bounded where they
 * enter, and no number stops a projection. An item mapping's factor of 1e308 once overflowed the
 * item rows' arithmetic and stopped them for every hospital.
 */
describe("numbers from senders and authors, at their extremes", function () {
  this.timeout(180_000);
  const hub = useIngestionService();
  const author = (method: string, path: string, body?: unknown) =>
    hub.tenant.call(method, path, { token: hub.tenant.authorToken, ...(body === undefined ? {} : { body }) });
  const heldTenants = async () => {
    const report = (await httpClient(hub.service.url!)("GET", "/api/admin/projections", { token: ADMIN })).body as {
      projections: Array<{ name: string; heldTenants: unknown[]; error: unknown }>;
    };
    return report.projections.filter((p) => p.heldTenants.length > 0 || p.error !== null).map((p) => p.name);
  };

  it("refuses a mapping factor out of bounds with 400 naming the field, and takes one at the bound", async () => {
    for (const factor of [1e308, 1e10, 1e-12, Number.MIN_VALUE]) {
      const refused = await author("POST", "/api/dictionary/mappings", { itemCode: "L-FAC", stdCode: "ALB", factor });
      expect(refused.status, `factor ${factor}`).to.equal(400);
      expect(JSON.stringify(refused.body), `factor ${factor}`).to.match(/factor lies between/);
    }
    expect(
      (await author("POST", "/api/dictionary/mappings", { itemCode: "L-FAC", stdCode: "ALB", factor: 1e9 })).status,
    ).to.equal(201);
  });

  it("keeps every tenant's item rows going when a mapping stored before the bound has a factor of 1e308", async () => {
    // Another hospital pushing on beside it.
    const other = await ingestionTenant(hub.service, "h2");
    // A mapping as the service stored it before factors were bounded: written to the store straight.
    const keys = { client: null, itemCode: "L-OLD", itemName: null, unit: null };
    await hub.tenant.push("lab", [labReport("OLD-1", { items: [{ itemCode: "L-OLD", value: 5, unit: "odd/L" }] })]);
    await hub.service.eventStore.append({
      tenant: "h1",
      streamId: mappingStreamOf(keys),
      expectedVersion: 0,
      events: [
        {
          type: "ItemMappingAdded",
          data: {
            mappingId: randomUUID(),
            ...keys,
            stdCode: "ALB",
            stdName: "白蛋白",
            category: "生化",
            stdUnit: "g/L",
            factor: 1e308,
            reason: null,
            units: [{ unit: "odd/L", unitStatus: "converted", factor: 1e308, offset: 0 }],
            otherUnits: { unitStatus: "converted", factor: 1e308, offset: 0 },
          },
        },
      ],
      metadata: { actor: "test" },
    });
    await hub.tenant.push("lab", [labReport("OLD-2", { items: [{ itemCode: "L-OLD", value: 7, unit: "odd/L" }] })]);
    await other.push("lab", [labReport("OTHER-1")]);
    await projectionsCaughtUp(hub.service.url!);
    expect(await heldTenants()).to.deep.equal([]);
    const { rows } = await hub.service.db.query(
      "select external_id, std_code, std_value from read.lab_results where item_code = 'L-OLD' order by external_id",
    );
    expect(rows, "mapped, but no value past the bound").to.deep.equal([
      { external_id: "OLD-1", std_code: "ALB", std_value: null },
      { external_id: "OLD-2", std_code: "ALB", std_value: null },
    ]);
    const { rows: others } = await hub.service.db.query(
      "select count(*)::int as n from read.lab_results where tenant = 'h2'",
    );
    expect(others[0].n).to.equal(3);
  });

  it("never fails a push, a projection or a reactor on any number a laboratory sends (fuzzed)", async () => {
    // The items whose values feed arithmetic: unit conversions (urea in mg/dL), delta checks (K,
    // HGB), derived values (UREA_PRE/POST for URR, CA × P, CA and ALB), and a mapping's factor.
    expect(
      (await author("POST", "/api/dictionary/mappings", { itemCode: "L-BIG", stdCode: "P", factor: 1e9 })).status,
    ).to.equal(201);
    const extreme = fc.constantFrom(
      0,
      -0,
      1e308,
      -1e308,
      Number.MAX_VALUE,
      Number.MIN_VALUE,
      1e15,
      1e15 + 2,
      -1e15,
      5e-324,
      1e-300,
      Number.MAX_SAFE_INTEGER + 2, // one past the last exact integer: stored as 2^53
    );
    const numeric = fc.oneof(extreme, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer());
    const text = fc.oneof(
      fc.constantFrom(
        "1e400",
        "-1e400",
        "1e-400",
        "0x10",
        "1_000",
        "١٢٣",
        "１２３",
        " 5 ",
        "NaN",
        "Infinity",
        "1e15",
        "1.0000000000000001e15",
      ),
      numeric.map(String),
    );
    const value = fc.oneof(numeric, text);
    // A reference limit now and then: one past the bound refuses the report it is in.
    const limit = fc.oneof({ arbitrary: fc.constant(undefined), weight: 30 }, { arbitrary: numeric, weight: 1 });
    const item = (code: string, unit: string) =>
      fc.record({ itemCode: fc.constant(code), value, unit: fc.constant(unit), refLow: limit, refHigh: limit });
    const items = fc.tuple(
      item("UREA_PRE", "mg/dL"),
      item("UREA_POST", "mmol/L"),
      item("K", "mmol/L"),
      item("HGB", "g/L"),
      item("CA", "mmol/L"),
      item("P", "mmol/L"),
      item("ALB", "g/L"),
      item("L-BIG", "odd/L"),
    );
    let sent = 0;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(items, { minLength: 1, maxLength: 5 }), async (panels) => {
        const day = `2026-04-${String((sent % 27) + 1).padStart(2, "0")}`;
        const reports = panels.map((panelItems, at) =>
          labReport(`FUZZ-${sent}-${at}`, {
            collectedAt: `${day} 07:${String(at).padStart(2, "0")}:00`,
            reportedAt: `${day} 12:00:00`,
            items: panelItems.map((i) => JSON.parse(JSON.stringify(i))),
          }),
        );
        sent += 1;
        const answer = await hub.tenant.push("lab", reports);
        expect([200, 207, 400], JSON.stringify(answer.body).slice(0, 500)).to.include(answer.status);
        for (const result of answer.body.data?.results ?? []) {
          if (result.status === "REJECTED" || result.errors?.length) {
            // Refused only for a reference limit past the bound, or a range upside down: named.
            expect(JSON.stringify(result.errors)).to.match(/"field":"items\[\d\]\.ref(Low|High)"/);
          } else accepted += 1;
        }
      }),
      { numRuns: 40, seed: 52 },
    );
    expect(accepted, "most reports are taken").to.be.greaterThan(40);
    await projectionsCaughtUp(hub.service.url!, 60_000);
    expect(await heldTenants(), "no tenant held back anywhere").to.deep.equal([]);
    const { rows } = await hub.service.db.query(
      `select count(*)::int as n from read.lab_results where external_id like 'FUZZ-%'
         and (abs(value_num) > $1 or abs(std_value) > $1 or abs(ref_low) > $1 or abs(ref_high) > $1)`,
      [LARGEST_READ_NUMBER],
    );
    expect(rows[0].n, "no number past the bound in the item rows").to.equal(0);
    // The chart and its derived values answer over all of them.
    const chart = await until(async () => {
      const answer = await author("GET", "/api/patients/P001/results?from=2026-04-01&to=2026-04-30");
      return answer.status === 200 ? answer : null;
    }, 5000);
    expect(chart.status).to.equal(200);
    const ready = await httpClient(hub.service.url!)("GET", "/readyz");
    expect(ready.body).to.deep.include({ status: "ready" });
  });
});
