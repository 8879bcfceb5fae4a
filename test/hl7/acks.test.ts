import { expect } from "chai";
import { HL7Message } from "hl7v2";
import { ackOf, libraryAck, plainAck, type AckCode } from "../../src/ingestion/hl7/acks.ts";
import { mshFields } from "../../src/ingestion/hl7/er7Messages.ts";

/*
 * An ACK without ERR segments is written from a header hl7v2 wrote once for the sender (acks.ts):
 * it must be the very text hl7v2 writes for it, whatever the message's header and the answer's words.
 */

const HEADERS = [
  "MSH|^~\\&|LIS|医院|DIALYSIS-HUB||20260301101500|key|ORU^R01|HL7B-0-1|P|2.5.1|||||CHN|UNICODE UTF-8",
  "MSH|^~\\&|LIS||||20260301101500||ORU^R01|X1|T|2.3",
  "MSH|^~\\&|LIS^1.2.3^ISO|FAC&SUB|||20260301101500||ORU^R01^ORU_R01|C\\F\\1|D^T|2.8",
  "MSH|^~\\&|||||20260301101500||ORU|||",
  "MSH|^~\\&|LIS||||20260301101500||ORU^R01|X2|P|2.0",
  "MSH|^~\\&|LIS||||20260301101500||ORU^R01|X3|P|3.1",
  "MSH|^~\\&|LIS||||20260301101500||ORU^R01|X4|P|2.9",
  "MSH#^~\\&#LIS#WARD|1#||20260301101500##ORU^R01#X5#P#2.4",
];

const WORDS = [
  "CREATED HL7B-0-1",
  "UPDATED R|1^2~3\\4&5",
  "CREATED 报告; awaiting a patient (unmatched)",
  "",
  "control\u0007chars\u0085",
];
const CODES: AckCode[] = ["AA", "AE", "AR"];

describe("HL7 ACKs", () => {
  it("writes an ACK without ERR segments exactly as hl7v2 writes it, for any header and words", () => {
    let compared = 0;
    for (const header of HEADERS) {
      const fields = mshFields(`${header}\rPID|1`);
      for (const [i, text] of WORDS.entries()) {
        for (const code of CODES) {
          // Times with and without milliseconds, seconds and time of day: hl7v2 shortens each.
          for (const at of [
            new Date(2026, 10, 27, 10, 25, 52, 567),
            new Date(2026, 10, 27, 10, 25, 52),
            new Date(2026, 10, 27, 10, 25),
            new Date(2026, 10, 27),
          ]) {
            const stamp = { at, controlId: `17957751525${i}` };
            expect(plainAck(fields, code, text, stamp), `${header} / ${code} ${text}`).to.equal(
              libraryAck(fields, code, text, [], stamp),
            );
            compared++;
          }
        }
      }
    }
    expect(compared).to.equal(HEADERS.length * WORDS.length * CODES.length * 4);
  });

  it("answers a message a parser this project did not write reads as an ACK of that message", () => {
    const ack = new HL7Message();
    ack.parse(ackOf(`${HEADERS[0]}\rPID|1`, "AA", "CREATED HL7B-0-1"));
    expect(ack.header.field(9).toHL7String()).to.equal("ACK^R01");
    expect(ack.header.field(12).getValue()).to.equal("2.5.1");
    expect(ack.getSegment("MSA")!.field(1).getValue()).to.equal("AA");
    expect(ack.getSegment("MSA")!.field(2).getValue()).to.equal("HL7B-0-1");
    expect(ack.getSegment("MSA")!.field(3).getValue()).to.equal("CREATED HL7B-0-1");
    const today = new Date();
    expect(ack.header.field(7).toHL7String().slice(0, 8)).to.equal(
      `${today.getFullYear()}${String(today.getMonth() + 1).padStart(2, "0")}${String(today.getDate()).padStart(2, "0")}`,
    );
  });
});
