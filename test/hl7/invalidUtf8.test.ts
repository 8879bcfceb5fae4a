import { expect } from "chai";
import { Message } from "node-hl7-client";
import { oruR01, withSecurity } from "../support/hl7Messages.ts";
import { useIngestionService } from "../support/ingestion.ts";
import { END, START, connectRaw } from "../support/mllpPeer.ts";
import { until } from "../support/service.ts";

/*
 * Issue #52, finding 7: HL7 v2 whose bytes are not UTF-8 was stored with U+FFFD in its values, the
 * sender told AA. A laboratory system that writes GB 18030 (and says so in MSH-18) is the usual
 * case: its message is refused, over HTTP as the other 400s, over MLLP with AR, naming the byte.
 */

/** 张 and 三 as GB 18030 writes them: not UTF-8 (0xD5 leads two bytes, 0xC5 cannot follow it). */
const ZHANG_SAN_GB18030 = Buffer.from([0xd5, 0xc5, 0x5e, 0xc8, 0xfd]);

/** oruR01() as a GB 18030 laboratory system sends it: MSH-18 says so, PID-5 in its bytes. */
function gb18030Message(controlId: string, key = ""): { bytes: Buffer; badByte: number } {
  const er7 = withSecurity(oruR01({ controlId, externalId: `GB-${controlId}` }), key).replace(
    "|UNICODE UTF-8",
    "|GB 18030-2000",
  );
  const [before, after] = er7.split("|张^三|");
  const head = Buffer.from(`${before}|`, "utf8");
  return { bytes: Buffer.concat([head, ZHANG_SAN_GB18030, Buffer.from(`|${after}`, "utf8")]), badByte: head.length };
}

describe("HL7 v2 that is not UTF-8", function () {
  this.timeout(60_000);
  const hub = useIngestionService({ env: { HL7_MLLP_PORT: "0" } });
  const storedReports = async (externalId: string) =>
    (
      await hub.service.db.query("select count(*)::int as n from events where tenant = 'h1' and stream_id = $1", [
        `lab-report:${externalId}`,
      ])
    ).rows[0].n as number;

  it("is refused over HTTP with a 400 naming the byte, the field and MSH-18, nothing stored", async () => {
    const { bytes, badByte } = gb18030Message("GB-HTTP");
    const answer = await fetch(`${hub.service.url}/open/v1/hl7`, {
      method: "POST",
      headers: { authorization: `Bearer ${hub.tenant.client.key}`, "content-type": "x-application/hl7-v2+er7" },
      body: new Uint8Array(bytes),
    });
    const body = (await answer.json()) as { code: number; msg: string; data: unknown };
    expect(answer.status, JSON.stringify(body)).to.equal(400);
    expect(body.code).to.equal(400);
    expect(body.msg).to.include(`not valid UTF-8 at byte ${badByte}`);
    expect(body.msg).to.include("PID-5");
    expect(body.msg).to.include("MSH-18 says GB 18030-2000");
    expect(body.msg).to.include("UTF-8");
    expect(await storedReports("GB-GB-HTTP")).to.equal(0);
  });

  it("is answered AR over MLLP naming the byte and the field, nothing stored; the connection goes on", async () => {
    const peer = await connectRaw(hub.service.mllpPort!);
    try {
      const { bytes, badByte } = gb18030Message("GB-MLLP", hub.tenant.client.key);
      peer.socket.write(Buffer.concat([START, bytes, END]));
      peer.socket.write(
        Buffer.concat([
          START,
          Buffer.from(
            withSecurity(oruR01({ controlId: "UTF8-OK", externalId: "UTF8-OK" }), hub.tenant.client.key),
            "utf8",
          ),
          END,
        ]),
      );
      await until(async () => peer.acks.length === 2, 10_000);
      expect(peer.acks).to.deep.equal(["AR GB-MLLP", "AA UTF8-OK"]);
      const ack = new Message({ text: peer.received().split("\x1c\r")[0]!.slice(1) });
      expect(ack.get("MSA.3").toString()).to.include(`not valid UTF-8 at byte ${badByte}`);
      expect(ack.get("MSA.3").toString()).to.include("PID-5");
      expect(peer.received(), "ERR-2 names the field").to.match(/\rERR\|\|PID\^1\^5\|102\|E\|/);
      expect(await storedReports("GB-GB-MLLP")).to.equal(0);
      expect(await storedReports("UTF8-OK")).to.equal(1);
    } finally {
      peer.socket.destroy();
    }
  });

  it("still takes a message whose MSH-18 names another character set when its bytes are UTF-8", async () => {
    const er7 = oruR01({ controlId: "ASCII-8859", externalId: "ASCII-8859" }).replace("|UNICODE UTF-8", "|8859/1");
    const answer = await fetch(`${hub.service.url}/open/v1/hl7`, {
      method: "POST",
      headers: { authorization: `Bearer ${hub.tenant.client.key}`, "content-type": "x-application/hl7-v2+er7" },
      body: er7,
    });
    expect(answer.status).to.equal(200);
    expect(await answer.text()).to.include("\rMSA|AA|ASCII-8859|");
  });
});
