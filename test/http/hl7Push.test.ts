import { expect } from "chai";
import { Message } from "node-hl7-client";
import { oruR01, oruR01AsJson, oruR01v23 } from "../support/hl7Messages.ts";
import { useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

/*
 * POST /open/v1/hl7 (contract D.5). The ACKs are read with node-hl7-client's parser, a peer this
 * project did not write; what is stored is compared with a JSON push of the same report.
 */

const ER7 = "x-application/hl7-v2+er7";

/** The ACK messages of an answer, in order, as node-hl7-client reads them. */
function acksOf(body: string): Message[] {
  const messages: string[][] = [];
  for (const segment of body.split("\r").filter(Boolean)) {
    if (segment.startsWith("MSH|")) messages.push([segment]);
    else messages.at(-1)!.push(segment);
  }
  return messages.map((segments) => new Message({ text: segments.join("\r") }));
}

function errorsOf(ack: Message): Array<{ location: string; message: string }> {
  const found: Array<{ location: string; message: string }> = [];
  ack.get("ERR").forEach((err: { get(path: string): { toString(): string } }) =>
    // A segment's paths are its own: "2.1" is ERR-2.1.
    found.push({
      location: [1, 2, 3].map((c) => err.get(`2.${c}`).toString()).join("^"),
      message: err.get("8").toString(),
    }),
  );
  return found;
}

describe("HL7 v2 over HTTP: POST /open/v1/hl7", function () {
  this.timeout(60_000);
  const hub = useIngestionService();
  const send = (body: string, contentType = ER7, key = hub.tenant.client.key) =>
    fetch(`${hub.service.url}/open/v1/hl7`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": contentType },
      body,
    });

  it("answers one ACK per message of a batch, in order: AA stored, AE naming the HL7 field, AR unreadable or not ORU^R01", async () => {
    const badTime = oruR01({ controlId: "MSG-BAD", externalId: "HL7-BAD" }).replace(
      "|||20260301100000+0800|||F",
      "|||2026030|||F",
    );
    const adt = "MSH|^~\\&|HIS|HOSP|DH||20260301101500||ADT^A01|MSG-ADT|P|2.5.1\rPID|1||X";
    const batch = [
      "FHS|^~\\&|LIS",
      "BHS|^~\\&|LIS",
      oruR01({ controlId: "MSG-OK", externalId: "HL7-OK" }),
      badTime,
      "MSH|^~\\&|LIS|HOSP|DH||20260301",
      "MSH",
      adt,
      oruR01v23("HL7-OLD"),
      "BTS|5",
      "FTS|1",
    ].join("\n");
    const answer = await send(batch);
    expect(answer.status).to.equal(200);
    expect(answer.headers.get("content-type")).to.match(/^x-application\/hl7-v2\+er7/);
    const acks = acksOf(await answer.text());
    expect(acks.map((ack) => [ack.get("MSA.1").toString(), ack.get("MSA.2").toString()])).to.deep.equal([
      ["AA", "MSG-OK"],
      ["AE", "MSG-BAD"],
      ["AR", ""],
      ["AR", ""],
      ["AR", "MSG-ADT"],
      ["AA", "OLD20260302083000"],
    ]);
    expect(acks[0]!.get("MSH.9.1").toString()).to.equal("ACK");
    expect(acks[0]!.get("MSH.5").toString(), "addressed back to the sending application").to.equal("LIS");
    expect(acks[0]!.get("MSA.3").toString()).to.equal("CREATED HL7-OK");
    expect(errorsOf(acks[1]!)).to.deep.equal([{ location: "OBR^1^22", message: errorsOf(acks[1]!)[0]!.message }]);
    expect(errorsOf(acks[1]!)[0]!.message).to.match(/^reportedAt: /);
    expect(errorsOf(acks[2]!)[0]!.location, "MSH-9 missing").to.equal("MSH^1^9");
    expect(acks[3]!.get("MSA.3").toString(), "not even an MSH").to.match(/must begin MSH/);
    expect(errorsOf(acks[4]!)[0]!.location).to.equal("MSH^1^9");
  });

  it("stores exactly what a JSON push of the mapped report stores, recording the message it came in", async () => {
    const answer = await send(oruR01({ controlId: "MSG-SAME", externalId: "HL7-SAME" }));
    expect(
      acksOf(await answer.text())[0]!
        .get("MSA.1")
        .toString(),
    ).to.equal("AA");
    const { rows } = await hub.service.db.query(
      "select metadata from events where tenant = 'h1' and stream_id = 'lab-report:HL7-SAME'",
    );
    expect(rows.map((row) => row.metadata.origin)).to.deep.equal([{ format: "hl7v2", controlId: "MSG-SAME" }]);

    // The same report as JSON: nothing new to store.
    const pushed = await hub.tenant.push("lab", [oruR01AsJson("HL7-SAME")]);
    expect(pushed.body.data.results[0], JSON.stringify(pushed.body.data.results[0])).to.include({
      status: "UNCHANGED",
      matched: true,
    });

    // Reconciled as any push: the day lists it once the read model holds it.
    await until(
      async () =>
        (
          await hub.tenant.call("GET", "/open/v1/reconcile/lab?date=2026-03-01", { token: hub.tenant.client.key })
        ).body.data.externalIds.includes("HL7-SAME"),
      10_000,
    );
    const corrected = acksOf(
      await (await send(oruR01({ controlId: "MSG-FIX", externalId: "HL7-SAME", status: "C", hgb: "118" }))).text(),
    )[0]!;
    expect(corrected.get("MSA.3").toString()).to.equal("UPDATED HL7-SAME");
  });

  it("refuses what is not HL7 in the open API's envelope, saying what to send", async () => {
    const asJson = await send(oruR01(), "application/json");
    expect(asJson.status).to.equal(415);
    expect(((await asJson.json()) as { msg: string }).msg).to.include("x-application/hl7-v2+er7");
    const empty = await send("\r\n", "text/plain");
    expect(empty.status).to.equal(400);
    expect(((await empty.json()) as { msg: string }).msg).to.include("MSH");
    expect((await send(oruR01(), ER7, `${hub.tenant.client.key}x`)).status).to.equal(401);
  });
});
