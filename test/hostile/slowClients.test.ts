import { expect } from "chai";
import { configSchema } from "../../src/app/config.ts";
import { labReport, useIngestionService } from "../support/ingestion.ts";
import { rawSocket } from "../support/rawHttp.ts";

/**
 * A client that sends its request slowly, or never finishes it, must be cut off after
 * REQUEST_TIMEOUT_MS (src/app/config.ts) with 408 in the interface's shape, not hold a connection and
 * a body read forever (issue #7, point 3).
 */

const TIMEOUT_MS = 1500;
/** Node checks for expired requests every quarter of the timeout (src/app/service.ts), plus slack for a busy machine. */
const CUT_WITHIN_MS = TIMEOUT_MS * 2.5;

describe("hostile input: slow clients", function () {
  this.timeout(30_000);
  const hub = useIngestionService({ env: { REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) } });

  /** Opens a request whose body trickles in a byte at a time, and measures when the server cuts it. */
  async function trickle(path: string, headers: string) {
    const socket = await rawSocket(hub.service.url!);
    const started = Date.now();
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Service-Tenant: h1\r\n${headers}Content-Length: 1000\r\n\r\n{`,
    );
    const dribble = setInterval(() => socket.write(" "), 100);
    try {
      const text = await socket.waitFor(/\r\n\r\n\{.*\}/, CUT_WITHIN_MS + 2000);
      await socket.closed;
      return { text, ms: Date.now() - started };
    } finally {
      clearInterval(dribble);
      socket.destroy();
    }
  }

  it("has a request timeout of 60 s unless configured", () => {
    expect(configSchema.parse({}).REQUEST_TIMEOUT_MS).to.equal(60_000);
  });

  it("cuts a push whose body trickles in with 408 in the envelope, and closes the connection", async () => {
    const { text, ms } = await trickle("/open/v1/lab/reports", `Authorization: Bearer ${hub.tenant.client.key}\r\n`);
    expect(text)
      .to.match(/^HTTP\/1\.1 408 /)
      .and.match(/"code":408/)
      .and.match(/"data":null/);
    expect(ms).to.be.within(TIMEOUT_MS - 50, CUT_WITHIN_MS);
  });

  it("cuts an /api body that trickles in with 408 { error }", async () => {
    const { text, ms } = await trickle("/api/reports/any/data", "");
    expect(text)
      .to.match(/^HTTP\/1\.1 408 /)
      .and.match(/\{"error":"[^"]+"\}/);
    expect(ms).to.be.within(TIMEOUT_MS - 50, CUT_WITHIN_MS);
  });

  it("cuts headers that never end, and a body announced but never sent", async () => {
    const headers = await rawSocket(hub.service.url!);
    headers.write("GET /healthz HTTP/1.1\r\nHost: x\r\n");
    const dribble = setInterval(() => headers.write("X-Slow: 1\r\n"), 100);
    const silent = await rawSocket(hub.service.url!);
    silent.write(
      `POST /open/v1/lab/reports HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ` +
        `${hub.tenant.client.key}\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n`,
    );
    try {
      const started = Date.now();
      await Promise.all([headers.closed, silent.closed]);
      expect(Date.now() - started).to.be.lessThan(CUT_WITHIN_MS);
      expect(headers.received()).to.match(/^HTTP\/1\.1 408 /);
      expect(silent.received())
        .to.match(/^HTTP\/1\.1 408 /)
        .and.match(/"code":408/);
    } finally {
      clearInterval(dribble);
      headers.destroy();
      silent.destroy();
    }
  });

  it("keeps answering others while twenty slow clients hang on, and lets none of them stay", async () => {
    const slow = await Promise.all(Array.from({ length: 20 }, () => rawSocket(hub.service.url!)));
    for (const socket of slow)
      socket.write(
        `POST /open/v1/lab/reports HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${hub.tenant.client.key}\r\nContent-Length: 100\r\n\r\n{`,
      );
    try {
      const started = Date.now();
      expect((await hub.tenant.call("GET", "/healthz")).status).to.equal(200);
      const pushed = await hub.tenant.push("lab", [labReport("WHILE-SLOW")]);
      expect(pushed.body.data.results[0].status).to.equal("CREATED");
      expect(Date.now() - started, "answered without waiting for the slow ones").to.be.lessThan(TIMEOUT_MS);
      await Promise.all(slow.map((socket) => socket.closed));
      expect(slow.every((socket) => /^HTTP\/1\.1 408 /.test(socket.received()))).to.equal(true);
    } finally {
      for (const socket of slow) socket.destroy();
    }
  });
});
