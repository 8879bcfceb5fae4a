import { expect } from "chai";
import { TenantGate } from "../../queries/reports/tenantGate.ts";

/*
 * Issue #52, finding 4: streaming answers (live xlsx exports, held for as long as their reader
 * takes) never get every turn: at most all but one of a tenant's, and at most `streamsInAll` of
 * every tenant's together; a stream waiting for a turn of its kind holds up no query behind it.
 */
describe("the report gate's turns for streaming answers (queries/reports/tenantGate.ts)", () => {
  const entered = async (gate: TenantGate, tenant: string, kind: "query" | "stream") =>
    gate.enter(tenant, undefined, kind);

  it("lets streams take all but one of a tenant's turns, and queries the last one", async () => {
    const gate = new TenantGate(4, 50, { streamsInAll: 10 });
    const streams = await Promise.all([1, 2, 3].map(() => entered(gate, "north", "stream")));
    expect(streams.every(Boolean)).to.equal(true);
    expect(await entered(gate, "north", "stream"), "a fourth stream waits, then gives up").to.equal(null);
    expect(gate.streamsFull("north")).to.equal(true);
    const query = await entered(gate, "north", "query");
    expect(query, "the last turn is a query's").to.be.a("function");
    expect(gate.runningOf("north")).to.equal(4);
  });

  it("keeps at most streamsInAll streams of every tenant together, and lets another tenant's waiting stream in when one ends", async () => {
    const gate = new TenantGate(4, 2000, { streamsInAll: 4 });
    const north = await Promise.all([1, 2, 3].map(() => entered(gate, "north", "stream")));
    const south = await entered(gate, "south", "stream");
    expect(south).to.be.a("function");
    let waited = false;
    const waiting = entered(gate, "south", "stream").then((leave) => ((waited = true), leave));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(waited, "the pool's streams are all held").to.equal(false);
    expect(await entered(gate, "east", "query"), "a third tenant's query is not held up").to.be.a("function");
    north[0]!();
    expect(await waiting, "south's stream got north's turn for streams").to.be.a("function");
    expect(gate.streamsOf("south")).to.equal(2);
  });

  it("admits a query waiting behind a stream that waits for a turn of its kind", async () => {
    const gate = new TenantGate(2, 2000, { streamsInAll: 4 });
    const stream = await entered(gate, "north", "stream");
    const query = await entered(gate, "north", "query");
    const order: string[] = [];
    const secondStream = entered(gate, "north", "stream").then((leave) => (order.push("stream"), leave));
    const secondQuery = entered(gate, "north", "query").then((leave) => (order.push("query"), leave));
    query!();
    (await secondQuery)!();
    expect(order, "the query went first: the stream still has no turn of its kind").to.deep.equal(["query"]);
    stream!();
    await secondStream;
    expect(order).to.deep.equal(["query", "stream"]);
  });
});
