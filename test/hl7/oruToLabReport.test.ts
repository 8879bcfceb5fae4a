import { expect } from "chai";
import { Er7Message } from "../../src/ingestion/hl7/er7Reader.ts";
import { er7Messages } from "../../src/ingestion/hl7/er7Messages.ts";
import {
  hl7LocalDateTime,
  locationText,
  oruToLabReport,
  referenceRange,
} from "../../src/ingestion/hl7/oruToLabReport.ts";
import { oruR01, oruR01AsJson, oruR01v23, ZHANG_SAN_ID } from "../support/hl7Messages.ts";

const mapped = (er7: string) => oruToLabReport(new Er7Message(er7));

describe("an ORU^R01 message as a lab report (contract D.5)", () => {
  it("maps a Chinese LIS's message field by field", () => {
    const { controlId, report } = mapped(oruR01());
    expect(controlId).to.equal("LIS20260301001");
    expect(report).to.deep.equal(oruR01AsJson());
  });

  it("reads a corrected report (OBR-25 C) as CORRECTED", () => {
    expect(mapped(oruR01({ status: "C" })).report.status).to.equal("CORRECTED");
  });

  it("takes an older message's national id from PID-19, its time from MSH-7, and decodes escape sequences", () => {
    const { report } = mapped(oruR01v23());
    expect(report.patient).to.deep.equal({ idCard: ZHANG_SAN_ID, hisPatientId: "H-9", name: "王五" });
    expect(report.reportedAt).to.equal("2026-03-02 08:30:00");
    expect(report.collectedAt).to.equal("2026-03-02 07:00:00");
    expect((report.items as Array<{ value: unknown }>)[1]!.value).to.equal("样本轻度溶血&复查|已通知^张医生\\");
  });

  it("falls back to OBR-2, then MSH-10, for the externalId", () => {
    const withoutFiller = oruR01().replace("OBR|1|ORD-88231|L20260301-0001|", "OBR|1|ORD-88231||");
    expect(mapped(withoutFiller).report.externalId).to.equal("ORD-88231");
    const withoutEither = oruR01().replace("OBR|1|ORD-88231|L20260301-0001|", "OBR|1|||");
    expect(mapped(withoutEither).report.externalId).to.equal("LIS20260301001");
  });

  it("names the HL7 field each report field came from", () => {
    const { sourceOf } = mapped(oruR01());
    const source = (path: string) => locationText(sourceOf(path)!);
    expect(source("reportedAt")).to.equal("OBR-22");
    expect(source("patient.idCard")).to.equal("PID-3");
    expect(source("panelName")).to.equal("OBR-4.2");
    expect(source("items[4].value")).to.equal("OBX-5 of OBX 5");
    expect(source("items[1].refLow")).to.equal("OBX-7 of OBX 2");
    expect(source("items[0].value.unit")).to.equal("OBX-5 of OBX 1");
    expect(sourceOf("items[4].value")).to.deep.equal({ segment: "OBX", sequence: 5, field: 5 });
  });

  it("reads HL7 timestamps as local time, of any precision, zone dropped", () => {
    expect(hl7LocalDateTime("20260301101545+0800")).to.equal("2026-03-01 10:15:45");
    expect(hl7LocalDateTime("202603011015")).to.equal("2026-03-01 10:15:00");
    expect(hl7LocalDateTime("20260301")).to.equal("2026-03-01 00:00:00");
    expect(hl7LocalDateTime("20260301101545.123-0500")).to.equal("2026-03-01 10:15:45");
    expect(hl7LocalDateTime("yesterday"), "left for the push's validation to refuse").to.equal("yesterday");
  });

  it("reads reference ranges as bounds", () => {
    expect(referenceRange("3.5-5.5")).to.deep.equal({ refLow: 3.5, refHigh: 5.5 });
    expect(referenceRange("<5")).to.deep.equal({ refHigh: 5 });
    expect(referenceRange(">1")).to.deep.equal({ refLow: 1 });
    expect(referenceRange("阴性")).to.deep.equal({});
  });
});

describe("an ER7 body as messages", () => {
  it("splits a batch (FHS/BHS … BTS/FTS) with \\n, \\r\\n or \\r segment ends into its messages", () => {
    for (const end of ["\n", "\r\n", "\r"]) {
      const body = ["FHS|^~\\&|LIS", "BHS|^~\\&|LIS", oruR01({ controlId: "A" }), oruR01v23(), "BTS|2", "FTS|1", ""]
        .join("\r")
        .replace(/\r/g, end);
      const { messages, stray } = er7Messages(body);
      expect(messages.map((text) => mapped(text).controlId)).to.deep.equal(["A", "OLD20260302083000"]);
      expect(stray).to.deep.equal([]);
    }
  });

  it("keeps segments before any MSH apart", () => {
    expect(er7Messages("PID|1||X\rMSH|^~\\&|A|||||20260301||ORU^R01|C1|P|2.5\r")).to.deep.equal({
      messages: ["MSH|^~\\&|A|||||20260301||ORU^R01|C1|P|2.5"],
      stray: ["PID|1||X"],
    });
  });
});
