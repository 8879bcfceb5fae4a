import { expect } from "chai";
import { createPool, type Db } from "../../db/pool.ts";
import { analyzeChangedTables } from "../../db/tableStatistics.ts";
import { createTestDatabase } from "../support/database.ts";

/*
 * Issue #35: planned without statistics (autovacuum off, or late after a bulk import), the
 * projections' statements picked the wrong index. The service analyzes its tables itself once
 * they have changed by as many rows as they had.
 */
describe("the service's table statistics", () => {
  let db: Db;
  before(async () => {
    db = createPool(await createTestDatabase(false), { max: 1 });
    await db.query(
      "create table grown (id integer primary key, note text); create table steady (id integer primary key)",
    );
  });
  after(() => db.end());

  /** The statistics the server has for a table: its analysis time and the rows the planner believes it has. */
  async function statistics(table: string) {
    // The backend's counts reach pg_stat_user_tables at its next flush; force it, as a busy service's would have happened.
    await db.query("select pg_stat_force_next_flush()");
    const { rows } = await db.query(
      "select s.last_analyze is not null as analyzed, c.reltuples::integer as rows from pg_stat_user_tables s " +
        "join pg_class c on c.oid = s.relid where s.relname = $1",
      [table],
    );
    return rows[0] as { analyzed: boolean; rows: number };
  }

  it("analyzes a table loaded from nothing, and again only once it has doubled", async () => {
    await db.query(
      "insert into grown select i, 'x' from generate_series(1, 5000) i; insert into steady select generate_series(1, 50)",
    );
    await statistics("grown");
    expect(await analyzeChangedTables(db))
      .to.include("public.grown")
      .and.not.include("public.steady");
    expect(await statistics("grown")).to.deep.equal({ analyzed: true, rows: 5000 });
    expect(await statistics("steady")).to.deep.equal({ analyzed: false, rows: -1 });

    await db.query("insert into grown select i, 'y' from generate_series(5001, 8000) i");
    await statistics("grown");
    expect(await analyzeChangedTables(db), "3,000 rows more of 5,000").to.not.include("public.grown");
    await db.query("insert into grown select i, 'z' from generate_series(8001, 12000) i");
    await statistics("grown");
    expect(await analyzeChangedTables(db), "7,000 rows more of 5,000").to.include("public.grown");
    expect((await statistics("grown")).rows).to.equal(12000);
  });
});
