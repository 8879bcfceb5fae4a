import { expect } from "chai";
import { Client, Message } from "node-hl7-client";
import pino from "pino";
import { allProjections } from "../../src/app/allProjections.ts";
import type { RunningService } from "../../src/app/service.ts";
import { oruR01, withSecurity } from "../support/hl7Messages.ts";
import { closedWithin, connectRaw, mllpFrame, START, type RawPeer } from "../support/mllpPeer.ts";
import { ingestionTenant, type IngestionTenant } from "../support/ingestion.ts";
import { startTestService, until } from "../support/service.ts";

/*
 * The MLLP listener's limits (docs/operations.md), against a real listener and real sockets: the
 * connection cap, the whole-frame deadline and the bytes a connection may send before it has shown
 * a valid key. The limits are small here so that each is reached in a second or two.
 */

const MAX_CONNECTIONS = 4;
const FRAME_DEADLINE_MS = 1000;
const UNAUTHENTICATED_FRAME_BYTES = 4096;
/** Well above the frame deadline: a trickle that keeps a connection from being idle outlives it. */
const REQUEST_TIMEOUT_MS = 5000;
const METRICS_TOKEN = "metrics-token-0123456789";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("HL7 v2 over MLLP: limits", function () {
  this.timeout(60_000);
  let service: RunningService;
  let tenant: IngestionTenant;
  const warnings: Array<{ msg: string }> = [];
  const peers: RawPeer[] = [];
  const connect = async () => {
    const peer = await connectRaw(service.mllpPort!);
    peers.push(peer);
    return peer;
  };
  /** A message of the tenant's client, framed. */
  const signed = (controlId: string, extra: string[] = []) =>
    mllpFrame(
      [withSecurity(oruR01({ controlId, externalId: `LIMITS-${controlId}` }), tenant.client.key), ...extra].join("\r"),
    );
  const metric = async (name: string) => {
    const text = await (
      await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    return Number(new RegExp(`^${name.replace(/[{}"]/g, "\\$&")} (\\d+)$`, "m").exec(text)?.[1] ?? NaN);
  };

  before(async () => {
    service = await startTestService({
      projections: allProjections,
      log: pino({ level: "warn" }, { write: (line: string) => void warnings.push(JSON.parse(line)) }),
      env: {
        HL7_MLLP_PORT: "0",
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        HL7_MLLP_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
        HL7_MLLP_FRAME_DEADLINE_MS: String(FRAME_DEADLINE_MS),
        HL7_MLLP_UNAUTHENTICATED_FRAME_BYTES: String(UNAUTHENTICATED_FRAME_BYTES),
        METRICS_TOKEN,
      },
    });
    tenant = await ingestionTenant(service, "h1");
  });
  afterEach(async () => {
    for (const peer of peers.splice(0)) peer.socket.destroy();
    // The listener counts a connection until its own side has closed.
    await until(async () => !((await metric("dialysis_hub_mllp_connections")) > 0), 5000);
  });
  after(() => service?.stop());

  it(
    "closes connections past HL7_MLLP_MAX_CONNECTIONS at once, logging the burst once; the open ones keep " +
      "working, and a sender is taken again once one goes",
    async () => {
      const open = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, () => connect()));
      open.forEach((peer, i) => peer.socket.write(signed(`CAP-${i}-1`)));
      await until(async () => open.every((peer) => peer.acks.length === 1), 10_000);

      const refused = await Promise.all(Array.from({ length: 3 }, () => connect()));
      const closedAfter = await Promise.all(refused.map((peer) => closedWithin(peer, 2000)));
      expect(
        closedAfter.every((ms) => ms !== null),
        `closed by the service: ${closedAfter.join(", ")}`,
      ).to.equal(true);
      expect(refused.map((peer) => peer.received())).to.deep.equal(["", "", ""]);

      open.forEach((peer, i) => peer.socket.write(signed(`CAP-${i}-2`)));
      await until(async () => open.every((peer) => peer.acks.length === 2), 10_000);
      expect(open.map((peer) => peer.acks)).to.deep.equal(open.map((_, i) => [`AA CAP-${i}-1`, `AA CAP-${i}-2`]));
      expect(await metric('dialysis_hub_mllp_connections_closed_total{reason="cap"}')).to.equal(3);
      expect(await metric("dialysis_hub_mllp_connections")).to.equal(MAX_CONNECTIONS);
      expect(
        warnings.filter(({ msg }) => /HL7_MLLP_MAX_CONNECTIONS/.test(msg)),
        "one line for the burst",
      ).to.have.length(1);

      // One goes: a laboratory system (node-hl7-client, a client this project did not write) connects and is served.
      open[0]!.socket.destroy();
      await until(async () => (await metric("dialysis_hub_mllp_connections")) === MAX_CONNECTIONS - 1, 5000);
      const client = new Client({ host: "127.0.0.1", version: "2.5.1" } as ConstructorParameters<typeof Client>[0]);
      const acks: string[] = [];
      const connection = client.createConnection(
        { port: service.mllpPort! } as Parameters<typeof client.createConnection>[0],
        async (res) => {
          acks.push(res.getMessage().get("MSA.1").toString());
        },
      );
      try {
        // Sent before its connection is up, node-hl7-client opens a second one: it would be over the cap.
        await new Promise((resolve) => connection.once("connect", resolve));
        await connection.sendMessage(
          new Message({
            text: withSecurity(oruR01({ controlId: "CAP-AGAIN", externalId: "LIMITS-CAP-AGAIN" }), tenant.client.key),
          }),
        );
        await until(async () => acks.length === 1, 10_000);
      } finally {
        await connection.close();
      }
      expect(acks).to.deep.equal(["AA"]);
    },
  );

  it(
    "cuts a frame not whole within HL7_MLLP_FRAME_DEADLINE_MS of its start, its bytes trickled under the idle " +
      "timeout; an authenticated sender gets AR",
    async () => {
      const peer = await connect();
      peer.socket.write(signed("TRICKLE-0"));
      await until(async () => peer.acks.length === 1, 10_000);

      const message = Buffer.from(withSecurity(oruR01({ controlId: "TRICKLE-1" }), tenant.client.key), "utf8");
      const started = Date.now();
      // The MSH segment at once (the AR names its control id), then the rest a byte every 100 ms.
      let sent = message.indexOf("\r") + 1;
      peer.socket.write(Buffer.concat([START, message.subarray(0, sent)]));
      const trickle = setInterval(() => peer.socket.write(message.subarray(sent, ++sent)), 100);
      try {
        const closed = await closedWithin(peer, FRAME_DEADLINE_MS * 4);
        expect(closed, "closed by the service").to.not.equal(null);
      } finally {
        clearInterval(trickle);
      }
      expect(Date.now() - started).to.be.within(FRAME_DEADLINE_MS * 0.9, FRAME_DEADLINE_MS * 2.5);
      expect(peer.acks).to.deep.equal(["AA TRICKLE-0", "AR TRICKLE-1"]);
      expect(peer.received()).to.match(/\rMSA\|AR\|TRICKLE-1\|The frame did not arrive whole within 1 s/);
      expect(await metric('dialysis_hub_mllp_connections_closed_total{reason="frame_deadline"}')).to.equal(1);
    },
  );

  it("cuts a trickled frame of a connection that has shown no key at the deadline, without an answer", async () => {
    const peer = await connect();
    peer.socket.write(START);
    const trickle = setInterval(() => peer.socket.write("A"), 100);
    try {
      expect(await closedWithin(peer, FRAME_DEADLINE_MS * 4), "closed by the service")
        .to.be.a("number")
        .within(FRAME_DEADLINE_MS * 0.9, FRAME_DEADLINE_MS * 2.5);
    } finally {
      clearInterval(trickle);
    }
    expect(peer.received()).to.equal("");
  });

  it("closes a connection without a valid key once its unfinished frame passes HL7_MLLP_UNAUTHENTICATED_FRAME_BYTES, answering AR", async () => {
    const unknownKey = await connect();
    const noKey = await connect();
    unknownKey.socket.write(
      Buffer.concat([START, Buffer.from(withSecurity(oruR01({ controlId: "BUDGET-1" }), "not-a-key"), "utf8")]),
    );
    noKey.socket.write(START);
    // 1 MB each, in 64 KiB writes, never finished: before the limits, each was kept whole until the idle timeout.
    const piece = Buffer.alloc(64 * 1024, "A");
    for (let i = 0; i < 16; i++) for (const peer of [unknownKey, noKey]) peer.socket.write(piece);
    const closed = await Promise.all([unknownKey, noKey].map((peer) => closedWithin(peer, 2000)));
    expect(
      closed.every((ms) => ms !== null),
      `closed by the service: ${closed.join(", ")}`,
    ).to.equal(true);
    expect(unknownKey.received()).to.match(/\rMSA\|AR\|BUDGET-1\|The key in MSH-8 is unknown or revoked/);
    expect(noKey.received()).to.match(/\rMSA\|AR\|\|Send your client key in MSH-8/);
    expect(await metric('dialysis_hub_mllp_connections_closed_total{reason="unauthenticated_bytes"}')).to.equal(2);
  });

  it("takes a frame past HL7_MLLP_UNAUTHENTICATED_FRAME_BYTES as the first of a connection when its MSH-8 holds a valid key", async () => {
    const peer = await connect();
    const results = Array.from({ length: 200 }, (_, i) => `OBX|${i + 7}|NM|X${i}^项目${i}||${i}|g/L|1-500|N|||F`);
    const large = signed("LARGE-1", results);
    expect(large.length).to.be.above(UNAUTHENTICATED_FRAME_BYTES * 2);
    // In pieces, so that the frame passes the limit unfinished.
    for (let at = 0; at < large.length; at += 1024) {
      peer.socket.write(large.subarray(at, at + 1024));
      await sleep(1);
    }
    await until(async () => peer.acks.length === 1, 10_000);
    expect(peer.acks).to.deep.equal(["AA LARGE-1"]);
  });
});
