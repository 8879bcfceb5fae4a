import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { expect } from "chai";
import pg from "pg";
import pino from "pino";
import { EVENT_HASH_SQL, merkleRoot, sealPending } from "../../db/ledger.ts";
import { LedgerSealer } from "../../projections/runtime/ledgerSealer.ts";
import { localDateTime } from "../../db/localDateTime.ts";
import { SERVER_ENTRY } from "../../src/buildServer.ts";
import { ADMIN } from "../support/http.ts";
import { labReport, useIngestionService } from "../support/ingestion.ts";
import { until, useTestService } from "../support/service.ts";

/* Contract D.2: the event store sealed in blocks, and every later change to it found. */

const sha = (...parts: string[]) =>
  parts.reduce((hash, part) => hash.update(Buffer.from(part, "hex")), createHash("sha256")).digest("hex");

function cliVerify(databaseUrl: string): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [SERVER_ENTRY, "ledger", "verify"], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout }));
  });
}

describe("ledger: merkle roots", () => {
  it("hashes pairs level by level and carries an odd last node up unchanged", () => {
    const [a, b, c] = ["a", "b", "c"].map((x) => createHash("sha256").update(x).digest("hex")) as [
      string,
      string,
      string,
    ];
    expect(merkleRoot([a])).to.equal(a);
    expect(merkleRoot([a, b])).to.equal(sha(a, b));
    expect(merkleRoot([a, b, c])).to.equal(sha(sha(a, b), c));
    expect(() => merkleRoot([])).to.throw();
  });
});

describe("ledger: event hashes", function () {
  this.timeout(60_000);
  const hub = useTestService({ projections: [] });

  it("hash the JSON text of [position, tenant, stream, version, type, data, metadata, recorded time in µs], whatever the payload holds", async () => {
    const awkward = ['a "quoted" \\ back\nslash', "张三 😀 \u2028 \u001f", ""];
    await hub.service.db.query(
      `insert into events (tenant, stream_id, stream_version, type, data, metadata)
       select 'h1', 'lab-report:' || s, 1, 'T"ype',
         jsonb_build_object('s', s, 'n', array[1.50, 1e-7, -0, 12345678901234567890], 'deep', jsonb_build_object('a', array[s, null])),
         jsonb_build_object('actor', s)
       from unnest($1::text[]) s`,
      [awkward],
    );
    const { rows } = await hub.service.db.query(
      `select ${EVENT_HASH_SQL} as ours,
              jsonb_build_array(e.position, e.tenant, e.stream_id, e.stream_version, e.type, e.data, e.metadata,
                (extract(epoch from e.recorded_at) * 1000000)::bigint)::text as text
       from events e`,
    );
    expect(rows).to.have.length.of.at.least(awkward.length);
    for (const row of rows)
      expect(row.ours, row.text).to.equal(createHash("sha256").update(row.text, "utf8").digest("hex"));
  });
});

describe("ledger (/api/admin/ledger, npm run cli -- ledger verify)", function () {
  this.timeout(60_000);
  // Sealed often, as a worker does it in the background.
  const hub = useIngestionService({ env: { LEDGER_SEAL_SECONDS: "0.2" } });
  const admin = (path: string) => hub.tenant.call("GET", path, { token: ADMIN });

  it("seals what is appended in the background, into blocks each naming the one before", async () => {
    expect((await hub.tenant.push("lab", [labReport("L-1"), labReport("L-2")])).status).to.equal(200);
    const count = async () => (await hub.service.db.query("select count(*)::int as n from events")).rows[0].n as number;
    const first = await until(async () => {
      const summary = (await admin("/api/admin/ledger")).body;
      return summary.events === (await count()) ? summary : null;
    }, 10_000);
    expect((await hub.tenant.push("lab", [labReport("L-3")])).status).to.equal(200);
    const second = await until(async () => {
      const summary = (await admin("/api/admin/ledger")).body;
      return summary.events === (await count()) && summary.blocks > first.blocks ? summary : null;
    }, 10_000);
    expect(second.lastBlock).to.include({
      prev: (await hub.service.db.query("select root from ledger_blocks where no = $1", [second.lastBlock.no - 1]))
        .rows[0].root,
    });
    expect(second.lastBlock.root).to.match(/^[0-9a-f]{64}$/);
    expect(second.lastBlock.sealedAt).to.match(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

    const verified = await admin("/api/admin/ledger/verify");
    expect(verified.body).to.deep.equal({
      ok: true,
      blocksChecked: second.blocks,
      eventsChecked: second.events,
      problems: [],
    });
    const cli = await cliVerify(hub.service.databaseUrl);
    expect(cli.code).to.equal(0);
    expect(JSON.parse(cli.stdout)).to.include({ ok: true });
    expect(
      (await hub.tenant.call("GET", "/api/admin/ledger", { token: hub.tenant.authorToken })).status,
      "an author is no operator",
    ).to.equal(401);
  });

  it("reports an event changed, deleted or written into a sealed stretch with SQL, and a block altered, each where it is", async () => {
    expect((await hub.tenant.push("lab", [labReport("L-4"), labReport("L-5"), labReport("L-6")])).status).to.equal(200);
    await until(
      async () => (
        await sealPending(hub.service.db),
        (
          await hub.service.db.query(
            "select count(*)::int as n from events e where not exists (select 1 from ledger_event_hashes h where h.position = e.position)",
          )
        ).rows[0].n === 0
      ),
      10_000,
    );
    const positionOf = async (externalId: string) =>
      Number(
        (
          await hub.service.db.query("select position from events where stream_id = $1 order by position limit 1", [
            `lab-report:${externalId}`,
          ])
        ).rows[0].position,
      );
    const blockOf = async (position: number) =>
      Number(
        (await hub.service.db.query("select block_no from ledger_event_hashes where position = $1", [position])).rows[0]
          .block_no,
      );
    const [changed, deleted] = [await positionOf("L-4"), await positionOf("L-5")];

    // A superuser with a psql prompt: the append-only triggers do not fire in replica mode.
    const superuser = new pg.Client({ connectionString: hub.service.databaseUrl });
    await superuser.connect();
    try {
      await superuser.query("set session_replication_role = replica");
      await superuser.query(
        `update events set data = jsonb_set(data, '{report,labName}', '"Another lab"') where position = $1`,
        [changed],
      );
      await superuser.query("delete from events where position = $1", [deleted]);
      const { rows } = await superuser.query(
        `insert into events (position, transaction_id, tenant, stream_id, stream_version, type, data, metadata, recorded_at) overriding system value
         select (select max(position) + 1000 from events), '1'::xid8, tenant, 'lab-report:FORGED', 1, type, data, metadata, recorded_at
         from events where position = $1 returning position`,
        [changed],
      );
      const inserted = Number(rows[0].position);
      await superuser.query("update ledger_blocks set root = repeat('0', 64) where no = 1");

      const expected = [
        { block: await blockOf(changed), position: changed, kind: "modified" },
        { block: await blockOf(deleted), position: deleted, kind: "missing" },
        { block: 1, position: inserted, kind: "inserted" },
        { block: 1, kind: "chain" },
        { block: 2, kind: "chain" },
      ];
      const verified = await admin("/api/admin/ledger/verify");
      expect(verified.status).to.equal(200);
      expect(verified.body.ok).to.equal(false);
      expect(verified.body.problems).to.deep.include.members(expected);
      expect(verified.body.problems).to.have.length(expected.length);

      const cli = await cliVerify(hub.service.databaseUrl);
      expect(cli.code, "the command line exits 1").to.equal(1);
      expect(JSON.parse(cli.stdout).problems).to.deep.include.members(expected);
    } finally {
      await superuser.end();
    }
  });
});

describe("ledger: the daily root in the log", function () {
  this.timeout(60_000);
  // The test's sealer alone seals: the service's own would sometimes take a block first.
  const hub = useIngestionService({ env: { LEDGER_SEAL_SECONDS: "3600" } });

  it("logs, with the first block of a new day, the root the day before ended with, once", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const log = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const sealer = new LedgerSealer(hub.service.db, log, 3_600_000);
    const sealedLines = () => lines.filter((line) => line.msg === "ledger block sealed");
    // A push's events are sealed once no older transaction is open: on a busy server, a round later.
    const sealNext = async () => {
      const before = sealedLines().length;
      await until(async () => {
        await sealer.sealNow();
        return sealedLines().length > before;
      }, 10_000);
    };
    expect((await hub.tenant.push("lab", [labReport("D-1")])).status).to.equal(200);
    await sealNext();
    const {
      rows: [yesterdays],
    } = await hub.service.db.query("select no, root from ledger_blocks order by no desc limit 1");
    // As if it had been sealed yesterday: a superuser's edit, the block is append-only.
    const yesterday = localDateTime(new Date(Date.now() - 86_400_000)).slice(0, 10);
    const superuser = new pg.Client({ connectionString: hub.service.databaseUrl });
    await superuser.connect();
    try {
      await superuser.query("set session_replication_role = replica");
      await superuser.query("update ledger_blocks set sealed_at = sealed_at - interval '1 day' where no = $1", [
        yesterdays.no,
      ]);
    } finally {
      await superuser.end();
    }
    const dailyLines = () => lines.filter((line) => line.msg === "ledger root of the day");
    expect(dailyLines()).to.have.length(0);

    expect((await hub.tenant.push("lab", [labReport("D-2")])).status).to.equal(200);
    await sealNext();
    expect(dailyLines().map(({ day, block, root }) => ({ day, block, root }))).to.deep.equal([
      { day: yesterday, block: Number(yesterdays.no), root: yesterdays.root },
    ]);

    expect((await hub.tenant.push("lab", [labReport("D-3")])).status).to.equal(200);
    await sealNext();
    expect(dailyLines(), "today's later blocks close no day").to.have.length(1);
    expect(sealedLines()).to.have.length(3);
  });
});
