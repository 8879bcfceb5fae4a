import net from "node:net";
import { expect } from "chai";
import pino from "pino";
import { allProjections } from "../../src/app/allProjections.ts";
import { STALLED_RESPONSE_SENTENCE } from "../../src/http/stalledResponses.ts";
import { ADMIN, httpClient } from "../support/http.ts";
import { tableReportSpec } from "../support/reports.ts";
import { until, useTestService } from "../support/service.ts";

/*
 * Issue #52, finding 4: xlsx exports asked for without a credential and never read held their
 * tenant's report turns, report connections and transactions for REPORT_EXPORT_MAX_MS (ten
 * minutes): four blocked every report of their tenant, eight (two tenants) the whole report pool,
 * and a third tenant's query failed after 10 s. Here the service's defaults (4 turns a tenant, a
 * pool of 8, 10 s of waiting), a stall deadline of 1.5 s, and clients that send their request and
 * never read a byte of the answer (the socket paused: the kernel's buffers fill, then the
 * service's). Each comes from an address of its own, as a reverse proxy on this host names it.
 */
const STALL_MS = 1500;
/** Two sheets of 100,000 rows that compress poorly: some 14 MB, more than the sockets' buffers hold. */
const FILLER = "md5(g::text) || md5((g * 7)::text) || md5((g * 13)::text)";
const BIG = {
  a: `select g, ${FILLER} as filler from generate_series(1, 100000) g`,
  b: `select g, ${FILLER} as filler from generate_series(1, 100000) g`,
};

interface Stalled {
  socket: net.Socket;
  /** Reads at last: resolves once the connection has ended, with the bytes received and whether the response was whole. */
  readToEnd(): Promise<{ bytes: number; whole: boolean }>;
}

describe("exports nobody reads (issue #52, finding 4)", function () {
  this.timeout(90_000);
  const warnings: Array<Record<string, unknown>> = [];
  const hub = useTestService({
    projections: allProjections,
    env: { RESPONSE_STALL_MS: String(STALL_MS) },
    log: pino({ level: "warn" }, { write: (line: string) => void warnings.push(JSON.parse(line)) }),
  });
  const open: net.Socket[] = [];

  before(async () => {
    const call = httpClient(hub.service.url!);
    for (const tenant of ["north", "south", "east"]) {
      for (const [reportId, queries] of [
        ["big", BIG],
        ["small", { one: "select 1 as n" }],
      ] as const) {
        const saved = await call("PUT", `/api/reports/${reportId}/draft`, {
          token: ADMIN,
          tenant,
          body: { spec: tableReportSpec(reportId, queries) },
        });
        expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
      }
    }
  });
  afterEach(() => {
    for (const socket of open.splice(0)) socket.destroy();
  });

  /** Asks for the big xlsx export of `tenant` from `address` (X-Forwarded-For, as a proxy on this host writes it) and never reads the answer. */
  async function stalledExport(tenant: string, address: string): Promise<Stalled> {
    const { port } = new URL(hub.service.url!);
    const socket = net.connect(Number(port), "127.0.0.1");
    open.push(socket);
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.on("error", () => {});
    const body = JSON.stringify({ version: "draft" });
    socket.write(
      `POST /api/reports/big/export/xlsx HTTP/1.1\r\nHost: hub\r\nX-Service-Tenant: ${tenant}\r\nX-Forwarded-For: ${address}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    socket.pause();
    const readToEnd = () =>
      new Promise<{ bytes: number; whole: boolean }>((resolve) => {
        let bytes = 0;
        let tail = "";
        socket.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          tail = (tail + chunk.toString("latin1")).slice(-5);
        });
        // A chunked answer is whole when its last chunk (0 CRLF CRLF) came.
        socket.once("close", () => resolve({ bytes, whole: tail === "0\r\n\r\n" }));
        socket.resume();
      });
    return { socket, readToEnd };
  }

  /** Report connections in a transaction now (an export's open cursor among them). */
  const reportTransactions = async () =>
    (
      await hub.service.db.query(
        "select count(*)::int as n from pg_stat_activity where usename = 'dh_report_runner' and datname = current_database() and backend_xmin is not null",
      )
    ).rows[0].n as number;

  /** The one-row data call of `tenant`: how long it took, and its rows or its error. */
  async function smallData(tenant: string): Promise<{ ms: number; rows?: unknown[][]; error?: string }> {
    const started = Date.now();
    const answer = await httpClient(hub.service.url!)("POST", "/api/reports/small/data", {
      tenant,
      body: { version: "draft" },
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return { ms: Date.now() - started, ...answer.body.queries.one };
  }

  it(
    "answers another caller of the same tenant and a third tenant within seconds while eight exports of two " +
      "tenants stall, and cuts every stalled one",
    async () => {
      const stalled = await Promise.all([
        ...["10.1.0.1", "10.1.0.2", "10.1.0.3", "10.1.0.4"].map((address) => stalledExport("north", address)),
        ...["10.2.0.1", "10.2.0.2", "10.2.0.3", "10.2.0.4"].map((address) => stalledExport("south", address)),
      ]);
      // The exports are under way (their cursors open) before the others ask.
      await until(async () => (await reportTransactions()) >= 4, 10_000);

      const [sameTenant, thirdTenant] = await Promise.all([smallData("north"), smallData("east")]);
      expect(sameTenant, "north's own data call").to.deep.include({ rows: [[1]] });
      expect(thirdTenant, "east's data call").to.deep.include({ rows: [[1]] });
      expect(sameTenant.ms, "north's call did not wait for the exports' turns").to.be.below(3000);
      expect(thirdTenant.ms, "east's call did not wait for a report connection").to.be.below(3000);

      // Every export that got a turn is cut once its buffers are full and nothing moves (those that
      // waited get the turns given back, and are cut in their turn): the turns, report connections
      // and transactions are all back long before REPORT_EXPORT_MAX_MS.
      await until(async () => (await reportTransactions()) === 0, 30_000, 200);
      const cut = warnings.filter((line) => line.msg === STALLED_RESPONSE_SENTENCE);
      expect(cut.length, "the cuts, each logged with a fixed sentence").to.be.at.least(4);
      expect(cut[0]).to.include({ request: "POST /api/reports/big/export/xlsx" });
      expect(stalled).to.have.length(8);
      const after = await smallData("north");
      expect(after).to.deep.include({ rows: [[1]] });
      expect(after.ms).to.be.below(2000);
    },
  );

  it("cuts a stalled export a few seconds after its reader stopped taking bytes, and gives its turn and connection back", async () => {
    const cutBefore = warnings.filter((line) => line.msg === STALLED_RESPONSE_SENTENCE).length;
    const started = Date.now();
    const one = await stalledExport("north", "10.3.0.1");
    await until(async () => (await reportTransactions()) === 1, 10_000);
    await until(
      async () => warnings.filter((line) => line.msg === STALLED_RESPONSE_SENTENCE).length > cutBefore,
      15_000,
      50,
    );
    const cut = warnings.filter((line) => line.msg === STALLED_RESPONSE_SENTENCE).at(-1)!;
    expect(cut.stalledMs).to.be.within(STALL_MS, STALL_MS + 1000);
    expect(cut.waitingBytes, "bytes the reader left waiting in the process").to.be.above(0);
    expect(Date.now() - started, "cut once the buffers were full and nothing moved for 1.5 s").to.be.below(15_000);
    await until(async () => (await reportTransactions()) === 0, 2000);
    // The connection is gone: the client, reading at last, gets what the kernel held and then the end, not a whole file.
    const read = await Promise.race([
      one.readToEnd(),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 3000)),
    ]);
    expect(read, "the connection ended").to.not.equal(null);
    expect(read!.whole).to.equal(false);
    // A reader that reads gets the whole file.
    const whole = await fetch(`${hub.service.url}/api/reports/big/export/xlsx`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-tenant": "north" },
      body: JSON.stringify({ version: "draft" }),
    });
    expect(whole.status).to.equal(200);
    expect((await whole.arrayBuffer()).byteLength).to.be.above(10_000_000);
  });

  it("counts exports without a credential per address: a third one from the same address is refused with 429 while two stall", async () => {
    await Promise.all([stalledExport("north", "10.4.0.1"), stalledExport("south", "10.4.0.1")]);
    await until(async () => (await reportTransactions()) === 2, 10_000);
    const call = httpClient(hub.service.url!);
    const refused = await call("POST", "/api/reports/small/export/xlsx", {
      tenant: "east",
      headers: { "x-forwarded-for": "10.4.0.1" },
      body: { version: "draft" },
    });
    expect(refused.status).to.equal(429);
    expect(refused.headers.get("retry-after")).to.equal("5");
    expect(refused.body).to.deep.equal({
      error:
        "This address already has 2 exports under way without a credential; wait for one to finish, or sign in " +
        "(a signed-in person's exports are not counted per address).",
      code: "exports-per-address",
    });
    // docx counts with them; another address, or a credential, is not held up.
    expect(
      (
        await call("POST", "/api/reports/small/export/docx", {
          tenant: "east",
          headers: { "x-forwarded-for": "10.4.0.1" },
          body: { version: "draft" },
        })
      ).status,
    ).to.equal(429);
    expect(
      (
        await call("POST", "/api/reports/small/export/xlsx", {
          tenant: "east",
          headers: { "x-forwarded-for": "10.4.0.2" },
          body: { version: "draft" },
        })
      ).status,
    ).to.equal(200);
    expect(
      (
        await call("POST", "/api/reports/small/export/xlsx", {
          tenant: "east",
          token: ADMIN,
          headers: { "x-forwarded-for": "10.4.0.1" },
          body: { version: "draft" },
        })
      ).status,
    ).to.equal(200);
    // A client cannot pass for another address by writing the header itself: only a trusted proxy's entry counts.
    const spoofed = await call("POST", "/api/reports/small/export/xlsx", {
      tenant: "east",
      headers: { "x-forwarded-for": "10.9.9.9, 10.4.0.1" },
      body: { version: "draft" },
    });
    expect(spoofed.status).to.equal(429);
  });
});
