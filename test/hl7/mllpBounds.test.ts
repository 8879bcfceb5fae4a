import net from "node:net";
import { expect } from "chai";
import { oruR01, withSecurity } from "../support/hl7Messages.ts";
import { ingestionTenant, type IngestionTenant } from "../support/ingestion.ts";
import { closedWithin, connectRaw, mllpFrame, type RawPeer } from "../support/mllpPeer.ts";
import { startTestService, until } from "../support/service.ts";
import type { RunningService } from "../../src/app/service.ts";
import { allProjections } from "../../src/app/allProjections.ts";

/*
 * Issue #52, finding 5: the MLLP listener bounded against connections that never show a key and
 * senders that never read their ACKs, with the limits at their defaults (docs/operations.md, "MLLP
 * limits"), against a real listener and raw sockets. Every socket here comes from 127.0.0.1, the
 * laboratory's too: a limit per address must not lock out the laboratory beside its attacker.
 */

const IDLE_SOCKETS = 1000;
const UNREAD_MESSAGES = 8000;
/**
 * A sending facility (MSH-4) the ACK addresses back (MSH-6): ACKs of some 5 KB, so that the
 * kernel's socket buffers (some 4 MB on loopback) hold under a thousand of them, not all 8,000.
 */
const LONG_FACILITY = "检验科".repeat(600);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A socket that connects and never sends a byte; resolves once connected, or closed by the service first. */
async function idleSocket(port: number): Promise<net.Socket> {
  const socket = net.connect(port, "127.0.0.1");
  socket.on("error", () => {});
  await new Promise((resolve) => {
    socket.once("connect", resolve);
    socket.once("close", resolve);
  });
  return socket;
}

describe("HL7 v2 over MLLP: bounded against idle sockets and unread ACKs", function () {
  this.timeout(240_000);
  let service: RunningService;
  let tenant: IngestionTenant;
  const sockets: net.Socket[] = [];
  const frame = (controlId: string, externalId = `BOUNDS-${controlId}`) =>
    mllpFrame(withSecurity(oruR01({ controlId, externalId }), tenant.client.key));
  const stored = async (prefix: string) =>
    (
      await service.db.query(
        "select count(distinct stream_id)::int as n from events where tenant = 'h1' and stream_id like $1",
        [`lab-report:${prefix}%`],
      )
    ).rows[0].n as number;

  before(async () => {
    service = await startTestService({ projections: allProjections, env: { HL7_MLLP_PORT: "0" } });
    tenant = await ingestionTenant(service, "h1");
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.destroy();
  });
  after(() => service?.stop());

  it("lets a laboratory with a key connect and get its ACK at once while 1,000 idle sockets are held from its own address", async () => {
    for (let i = 0; i < IDLE_SOCKETS; i++) sockets.push(await idleSocket(service.mllpPort!));
    const lab: RawPeer = await connectRaw(service.mllpPort!);
    sockets.push(lab.socket);
    const started = Date.now();
    lab.socket.write(frame("LOCKOUT-1"));
    await until(async () => lab.acks.length === 1 || (await closedWithin(lab, 0)) !== null, 5000).catch(() => null);
    expect(lab.acks, "the laboratory's ACK").to.deep.equal(["AA LOCKOUT-1"]);
    expect(Date.now() - started).to.be.below(2000);
    // Its connection, authenticated now, is not the one the next idle sockets push out.
    for (let i = 0; i < 50; i++) sockets.push(await idleSocket(service.mllpPort!));
    lab.socket.write(frame("LOCKOUT-2"));
    await until(async () => lab.acks.length === 2, 5000);
    expect(lab.acks).to.deep.equal(["AA LOCKOUT-1", "AA LOCKOUT-2"]);
  });

  it("closes a socket that shows no key within seconds, and keeps one that showed a valid key", async () => {
    const keyless = await connectRaw(service.mllpPort!);
    const keyed = await connectRaw(service.mllpPort!);
    sockets.push(keyless.socket, keyed.socket);
    keyed.socket.write(frame("KEYED-1"));
    const closedAfter = await closedWithin(keyless, 10_000);
    expect(closedAfter, "the keyless socket closed by the service").to.be.a("number").below(8000);
    expect(keyless.received()).to.equal("");
    expect(await closedWithin(keyed, 0), "the keyed one still open").to.equal(null);
    keyed.socket.write(frame("KEYED-2"));
    await until(async () => keyed.acks.length === 2, 5000);
    expect(keyed.acks).to.deep.equal(["AA KEYED-1", "AA KEYED-2"]);
  });

  it("stops reading from a sender that does not read its ACKs, and takes the rest once it reads them", async () => {
    // No 'data' listener: the ACKs stay unread, in the kernel's buffers.
    const sender = net.connect(service.mllpPort!, "127.0.0.1");
    sockets.push(sender);
    sender.on("error", () => {});
    await new Promise((resolve) => sender.once("connect", resolve));
    const frames = Array.from({ length: UNREAD_MESSAGES }, (_, i) =>
      mllpFrame(
        withSecurity(oruR01({ controlId: `U${i}`, externalId: `UNREAD-${i}` }), tenant.client.key).replace(
          "|协和医院检验科|",
          `|${LONG_FACILITY}|`,
        ),
      ),
    );
    for (const one of frames) sender.write(one);

    // Stored until the service stops reading: then nothing more for 3 s.
    let last = -1;
    let now: number;
    const deadline = Date.now() + 40_000;
    while ((now = await stored("UNREAD-")) !== last && Date.now() < deadline) {
      last = now;
      await sleep(3000);
    }
    const whileUnread = now;
    expect(whileUnread, `stored while the ACKs were unread, of ${UNREAD_MESSAGES} sent`).to.be.below(
      UNREAD_MESSAGES / 4,
    );
    expect(sender.writableLength, "what the service did not read stays with the sender").to.be.above(0);

    // The sender reads its ACKs: the service reads on, and answers every message, in order.
    let acks = 0;
    let text = "";
    sender.on("data", (data: Buffer) => {
      text += data.toString("latin1");
      for (let end = text.indexOf("\x1c\r"); end >= 0; end = text.indexOf("\x1c\r")) {
        acks++;
        text = text.slice(end + 2);
      }
    });
    await until(async () => acks === UNREAD_MESSAGES, 150_000, 200);
    expect(await stored("UNREAD-")).to.equal(UNREAD_MESSAGES);
  });
});
