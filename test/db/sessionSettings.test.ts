import { expect } from "chai";
import { createPool } from "../../db/pool.ts";
import { createTestDatabase } from "../support/database.ts";

/*
 * Issue #35: the planner's JIT compiled the projections' summary update on every batch (15 to
 * 55 ms of 35 to 90 ms). The service's connections run without JIT (report queries have pools
 * of their own, queries/reports/dataSources.ts, and keep the server's setting).
 */
describe("the service's database sessions", () => {
  it("run without JIT and keep the idle-in-transaction limit they are given", async () => {
    const db = createPool(await createTestDatabase(false), { max: 1, idleInTransactionTimeoutMs: 60_000 });
    try {
      const { rows } = await db.query(
        "select current_setting('jit') as jit, current_setting('idle_in_transaction_session_timeout') as idle",
      );
      expect(rows[0]).to.deep.equal({ jit: "off", idle: "1min" });
    } finally {
      await db.end();
    }
  });
});
