import { expect } from "chai";
import { createTestDatabase } from "../support/database.ts";
import { recordingProjection } from "../support/projections.ts";
import { startTestService, TEST_ADMIN_TOKEN, until, useTestService } from "../support/service.ts";
import { createBoss, wakeupQueueOf } from "../../projections/runtime/wakeups.ts";
import { silentLogger } from "../../src/logger.ts";

const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

describe("the running service", () => {
  const projection = recordingProjection("served");
  const hub = useTestService({ projections: [projection] });

  it("answers /healthz and /readyz with every readiness check passed", async () => {
    expect((await fetch(`${hub.service.url}/healthz`)).status).to.equal(200);
    const ready = await fetch(`${hub.service.url}/readyz`);
    expect(ready.status).to.equal(200);
    expect(await ready.json()).to.deep.equal({
      status: "ready",
      checks: { database: true, migrations: true, workers: true, projections: true },
      stoppedProjections: [],
      heldBackTenants: [],
    });
  });

  it("projects an appended event by the append's own wake-up, without waiting for a poll or the safety net", async () => {
    // Polls every 60 s and a safety net every 10 minutes: only the wake-up can apply it within the ceiling.
    const watched = recordingProjection("woken");
    const quiet = await startTestService({
      projections: [watched],
      safetyNetMs: 600_000,
      env: { WORKER_POLL_SECONDS: "60" },
    });
    try {
      await until(
        async () =>
          (await quiet.db.query("select 1 from projection_generations where name = 'woken' and state = 'live'"))
            .rowCount === 1,
        30_000,
      );
      await quiet.eventStore.append({
        tenant: "t1",
        streamId: "s1",
        expectedVersion: 0,
        events: [{ type: "Counted", data: { n: 7 } }],
        metadata: { actor: "test" },
      });
      await until(
        async () => (await quiet.db.query("select 1 from read.woken_seen where n = 7")).rowCount === 1,
        30_000,
        5,
      );
    } finally {
      await quiet.stop();
    }
  });

  it("shows each projection's position, the store's head and the lag to an administrator", async () => {
    const response = await fetch(`${hub.service.url}/api/admin/projections`, { headers: admin });
    expect(response.status).to.equal(200);
    const body = await response.json();
    expect(body.head).to.be.greaterThan(0);
    const served = body.projections.find((p: { name: string }) => p.name === "served");
    expect(served).to.include({ state: "live", position: body.head, lagEvents: 0, error: null });
  });

  it("shows the head in the order projections apply events, where a caught-up projection stands", async () => {
    // A writer that took its transaction id first but appends last: its event has the greater
    // position, yet comes before the other writer's in the order of transaction ids.
    let later = 0;
    let earlier = 0;
    await hub.service.eventStore.transaction(async ({ append }, tx) => {
      await tx.query("select pg_current_xact_id()");
      const other = await hub.service.eventStore.append({
        tenant: "t1",
        streamId: "s-other",
        expectedVersion: 0,
        events: [{ type: "Counted", data: { n: 8 } }],
        metadata: { actor: "test" },
      });
      later = other.last.position;
      earlier = (
        await append({
          tenant: "t1",
          streamId: "s-first",
          expectedVersion: 0,
          events: [{ type: "Counted", data: { n: 9 } }],
          metadata: { actor: "test" },
        })
      ).last.position;
    });
    expect(earlier).to.be.greaterThan(later);
    const caughtUp = await until(
      async () => {
        const body = await (await fetch(`${hub.service.url}/api/admin/projections`, { headers: admin })).json();
        const served = body.projections.find((p: { name: string }) => p.name === "served");
        return served.lagEvents === 0 ? { head: body.head, position: served.position } : null;
      },
      5000,
      20,
    );
    expect(caughtUp).to.deep.equal({ head: later, position: later });
  });

  it("refuses the projections report without the administrator token, saying how to send it", async () => {
    const missing = await fetch(`${hub.service.url}/api/admin/projections`);
    expect(missing.status).to.equal(401);
    expect((await missing.json()).error).to.match(/Authorization: Bearer/);
    const wrong = await fetch(`${hub.service.url}/api/admin/projections`, {
      headers: { authorization: "Bearer not-the-token" },
    });
    expect(wrong.status).to.equal(401);
  });

  it("answers an unknown /api path with 404 and a JSON error", async () => {
    const response = await fetch(`${hub.service.url}/api/no-such-thing`);
    expect(response.status).to.equal(404);
    expect(await response.json())
      .to.have.property("error")
      .that.is.a("string");
  });

  it("answers malformed JSON with 400 and a body over 1 MB with 413, neither with internals", async () => {
    const malformed = await fetch(`${hub.service.url}/api/admin/projections`, {
      method: "POST",
      headers: admin,
      body: "{oops",
    });
    expect(malformed.status).to.equal(400);
    const huge = await fetch(`${hub.service.url}/api/admin/projections`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ x: "a".repeat(1024 * 1024) }),
    });
    expect(huge.status).to.equal(413);
    const text = await huge.text();
    expect(text).not.to.match(/at .*\.ts|stack|select /i);
  });

  it("answers with a request id of its own, and echoes a caller's X-Request-Id beside it (a caller's id is never the service's)", async () => {
    const echoed = await fetch(`${hub.service.url}/healthz`, { headers: { "x-request-id": "lab-42" } });
    expect(echoed.headers.get("x-request-id")).to.match(/^[0-9a-f-]{36}$/);
    expect(echoed.headers.get("x-caller-request-id")).to.equal("lab-42");
    const made = await fetch(`${hub.service.url}/healthz`);
    expect(made.headers.get("x-request-id")).to.match(/^[0-9a-f-]{36}$/);
    expect(made.headers.get("x-caller-request-id")).to.equal(null);
  });
});

describe("an API process and a worker process sharing one database", () => {
  it("wakes the worker through pg-boss when the API process appends", async function () {
    this.timeout(30_000);
    const databaseUrl = await createTestDatabase(false);
    const projection = recordingProjection("split");
    // A long safety net, so that only a wake-up job can bring the event in time.
    const worker = await startTestService({
      databaseUrl,
      role: "worker",
      projections: [projection],
      safetyNetMs: 60_000,
    });
    const api = await startTestService({ databaseUrl, role: "api", projections: [projection] });
    try {
      expect(api.worker).to.equal(null);
      expect(worker.url).to.equal(null);
      await api.eventStore.append({
        tenant: "t1",
        streamId: "s",
        expectedVersion: 0,
        events: [{ type: "Counted", data: { n: 1 } }],
        metadata: { actor: "test" },
      });
      await until(async () => (await api.db.query("select 1 from read.split_seen")).rowCount === 1, 5000);
      const jobs = await api.db.query("select count(*)::int as n from pgboss.job where name = 'projection.split'");
      expect(jobs.rows[0].n).to.be.greaterThan(0);
    } finally {
      await api.stop();
      await worker.stop();
    }
  });

  it("lets wake-ups through again seconds after a wake-up job was left active by a lost connection", async function () {
    this.timeout(60_000);
    const databaseUrl = await createTestDatabase(false);
    const projection = recordingProjection("stuck");
    const queue = wakeupQueueOf(projection);
    const first = await startTestService({
      databaseUrl,
      role: "worker",
      projections: [projection],
      safetyNetMs: 60_000,
    });
    await first.stop();
    // What PostgreSQL stopping between pg-boss's fetch and its completion leaves: a job active for good.
    // 20 s old: past the worker's patience, short of pg-boss's own expiry (60 s) at its start-up maintenance.
    const boss = createBoss(databaseUrl, silentLogger);
    await boss.start();
    await boss.send(queue, {});
    const [lost] = await boss.fetch(queue);
    await boss
      .getDb()
      .executeSql("update pgboss.job set started_on = now() - interval '20 seconds' where id = $1", [lost!.id]);
    await boss.stop({ graceful: false, wait: true });

    const worker = await startTestService({
      databaseUrl,
      role: "worker",
      projections: [projection],
      safetyNetMs: 60_000,
    });
    const api = await startTestService({ databaseUrl, role: "api", projections: [projection] });
    try {
      await api.eventStore.append({
        tenant: "t1",
        streamId: "s",
        expectedVersion: 0,
        events: [{ type: "Counted", data: { n: 1 } }],
        metadata: { actor: "test" },
      });
      // Without the release, nothing but pg-boss's maintenance (every 2 minutes) or the safety net (a minute) would bring it.
      await until(async () => (await api.db.query("select 1 from read.stuck_seen")).rowCount === 1, 15_000, 100);
      const { rows } = await api.db.query("select state from pgboss.job where id = $1", [lost!.id]);
      expect(rows[0]?.state ?? "archived").not.to.equal("active");
    } finally {
      await api.stop();
      await worker.stop();
    }
  });
});
