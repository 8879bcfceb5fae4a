import { expect } from "chai";
import {
  examReportSchema,
  labReportSchema,
  parseLocalDateTime,
  validateReport,
  type FieldError,
  type LabReport,
  type ReportRejection,
} from "../../../commands/ingestion/reportSchemas.ts";

function labReport(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    externalId: "LIS-20260301-000123",
    reportNo: "R2026030100123",
    patient: { idCard: "11010519491231002X", name: "张伟", hisPatientId: "H0012345" },
    panelName: "透析前血生化",
    specimen: "SERUM",
    collectedAt: "2026-03-01 07:45:00",
    reportedAt: "2026-03-01 10:12:30",
    status: "FINAL",
    labName: "北京市第一医院检验科",
    reporter: "李娜",
    reviewer: "王强",
    items: [
      {
        itemCode: "HGB",
        itemName: "血红蛋白",
        value: 112,
        unit: "g/L",
        refLow: 130,
        refHigh: 175,
        abnormalFlag: "L",
        resultType: "NUMERIC",
      },
      {
        itemCode: "K",
        itemName: "钾",
        value: 5.6,
        unit: "mmol/L",
        refLow: 3.5,
        refHigh: 5.3,
        abnormalFlag: "H",
        resultType: "NUMERIC",
      },
      { itemName: "乙肝表面抗原", value: "阴性", resultType: "QUALITATIVE" },
    ],
    ...overrides,
  };
}

function accepted(input: unknown): LabReport {
  const r = validateReport(labReportSchema, input, 0);
  if (!r.ok) throw new Error(`expected acceptance, got ${JSON.stringify(r.rejection.errors)}`);
  return r.report;
}

function contentHash(input: unknown): string {
  const r = validateReport(labReportSchema, input, 0);
  if (!r.ok) throw new Error(`expected acceptance, got ${JSON.stringify(r.rejection.errors)}`);
  return r.contentHash;
}

function rejected(
  input: unknown,
  index = 0,
  schema: Parameters<typeof validateReport>[0] = labReportSchema,
): ReportRejection {
  const r = validateReport(schema, input, index);
  if (r.ok) throw new Error("expected a rejection");
  return r.rejection;
}

function fieldsOf(errors: FieldError[]): string[] {
  return errors.map((e) => e.field);
}

const EXAM_TYPES = new Set(["ECHO", "CHEST_XRAY", "ECG", "AVF_ULTRASOUND"]);

describe("ingestion report validation", () => {
  describe("lab reports", () => {
    it("accepts a complete valid lab report and keeps its values", () => {
      const report = accepted(labReport());
      expect(report.externalId).to.equal("LIS-20260301-000123");
      expect(report.patient).to.deep.equal({ idCard: "11010519491231002X", name: "张伟", hisPatientId: "H0012345" });
      expect(report.items).to.have.length(3);
      expect(report.items[0]).to.include({ itemCode: "HGB", value: 112, unit: "g/L" });
      expect(report.items[1]).to.include({ itemCode: "K", value: 5.6, unit: "mmol/L", abnormalFlag: "H" });
      expect(report.items[2]!.value).to.equal("阴性");
    });

    it("strips unknown fields at every level instead of rejecting them", () => {
      const input = labReport({ sourceSystem: "LIS-3", patient: { hisPatientId: "H1", bedNo: "12" } });
      (input.items as Record<string, unknown>[])[0]!.instrument = "Sysmex XN";
      const report = accepted(input);
      expect(report).not.to.have.property("sourceSystem");
      expect(report.patient).to.deep.equal({ hisPatientId: "H1" });
      expect(report.items[0]).not.to.have.property("instrument");
    });

    it("trims strings and treats a blank optional string as not sent", () => {
      const report = accepted(labReport({ externalId: "  LIS-1  ", reporter: "   ", labName: " 检验科 " }));
      expect(report.externalId).to.equal("LIS-1");
      expect(report.reporter).to.equal(undefined);
      expect(report.labName).to.equal("检验科");
    });

    it("accepts a patient identified only by hisPatientId, and an invalid id card check digit", () => {
      accepted(labReport({ patient: { hisPatientId: "H0012345" } }));
      accepted(labReport({ patient: { idCard: "110105194912310021", name: "张伟" } }));
    });

    it("rejects a report without reportedAt at the path reportedAt", () => {
      const { reportedAt: _omit, ...input } = labReport();
      const rejection = rejected(input);
      expect(rejection.errors).to.have.length(1);
      expect(rejection.errors[0]!.field).to.equal("reportedAt");
      expect(rejection.errors[0]!.message).to.match(/^reportedAt is required/);
    });

    for (const bad of [
      "2026-02-30 10:00:00",
      "2026-13-01 00:00:00",
      "2026-03-01 24:00:00",
      "2026-01-01T10:00:00",
      "2026-3-1 8:30:00",
    ]) {
      it(`rejects the impossible or badly written reportedAt "${bad}" at the path reportedAt`, () => {
        const rejection = rejected(labReport({ reportedAt: bad }));
        expect(rejection.errors).to.deep.equal([
          {
            field: "reportedAt",
            message: "reportedAt must be a real date-time written as yyyy-MM-dd HH:mm:ss, e.g. 2026-03-01 08:30:00",
            code: "date-time",
          },
        ]);
      });
    }

    it("rejects an impossible collectedAt at the path collectedAt", () => {
      expect(fieldsOf(rejected(labReport({ collectedAt: "2025-02-29 07:00:00" })).errors)).to.deep.equal([
        "collectedAt",
      ]);
    });

    it("rejects an item without value at items[1].value", () => {
      const input = labReport();
      delete (input.items as Record<string, unknown>[])[1]!.value;
      const rejection = rejected(input);
      expect(rejection.errors).to.deep.equal([
        {
          field: "items[1].value",
          message: "value is required: send the result as a number, or as text for a qualitative result",
          code: "required",
        },
      ]);
    });

    it("rejects an item with neither itemCode nor itemName at items[i]", () => {
      const rejection = rejected(labReport({ items: [{ value: 1 }, { itemCode: " ", value: 2 }] }));
      expect(fieldsOf(rejection.errors)).to.deep.equal(["items[0]", "items[1]"]);
      // Issue #54: each problem's code, for pages to say it in their language.
      expect(rejection.errors.map((error) => error.code)).to.deep.equal(["item-unidentified", "item-unidentified"]);
    });

    it("rejects refLow greater than refHigh at items[i].refLow", () => {
      const rejection = rejected(labReport({ items: [{ itemCode: "K", value: 4.1, refLow: 5.3, refHigh: 3.5 }] }));
      expect(fieldsOf(rejection.errors)).to.deep.equal(["items[0].refLow"]);
      expect(rejection.errors[0]!.message).to.contain("refHigh");
      expect(rejection.errors[0]!.code).to.equal("reference-range");
    });

    it("rejects an unknown status with a message listing the allowed ones", () => {
      for (const status of ["DONE", "final"]) {
        const rejection = rejected(labReport({ status }));
        expect(rejection.errors).to.deep.equal([
          {
            field: "status",
            message: "status must be one of FINAL, PRELIMINARY, CORRECTED, CANCELLED",
            code: "not-allowed",
          },
        ]);
      }
    });

    it("rejects an abnormalFlag outside L, H, LL, HH, N, A", () => {
      const rejection = rejected(labReport({ items: [{ itemCode: "K", value: 5.6, abnormalFlag: "HIGH" }] }));
      expect(rejection.errors).to.deep.equal([
        {
          field: "items[0].abnormalFlag",
          message: "abnormalFlag must be one of L, H, LL, HH, N, A",
          code: "not-allowed",
        },
      ]);
    });

    it("rejects a lower-case specimen but accepts WHOLE_BLOOD", () => {
      expect(rejected(labReport({ specimen: "serum" })).errors.map(({ field, code }) => [field, code])).to.deep.equal([
        ["specimen", "format"],
      ]);
      expect(accepted(labReport({ specimen: "WHOLE_BLOOD" })).specimen).to.equal("WHOLE_BLOOD");
    });

    it("rejects 501 items with one error at items, and an empty items array", () => {
      const many = Array.from({ length: 501 }, (_, i) => ({ itemCode: `X${i}`, value: i }));
      expect(rejected(labReport({ items: many })).errors).to.deep.equal([
        {
          field: "items",
          message: "items must hold at most 500 entries; split the results over several reports",
          code: "too-many",
        },
      ]);
      expect(fieldsOf(rejected(labReport({ items: [] })).errors)).to.deep.equal(["items"]);
      accepted(labReport({ items: many.slice(0, 500) }));
    });

    it("rejects a patient with neither idCard nor hisPatientId at patient", () => {
      const rejection = rejected(labReport({ patient: { name: "张伟", idCard: "" } }));
      expect(rejection.errors).to.have.length(1);
      expect(rejection.errors[0]!.field).to.equal("patient");
      expect(rejection.errors[0]!.message).to.match(/send idCard or hisPatientId/);
    });

    it("lists every problem of a report at once, each with an explicit message", () => {
      const rejection = rejected(
        labReport({
          patient: { name: 42 },
          reportedAt: "2026-02-30 10:00:00",
          status: "DONE",
          items: [{ value: true, refLow: "3.5" }, "HGB"],
        }),
        7,
      );
      expect(rejection.index).to.equal(7);
      expect(fieldsOf(rejection.errors)).to.have.members([
        "patient.name",
        "patient",
        "reportedAt",
        "status",
        "items[0].value",
        "items[0].refLow",
        "items[0]",
        "items[1]",
      ]);
      for (const e of rejection.errors) expect(e.message).not.to.match(/^Invalid|expected/);
    });

    it("lists at most 50 errors for one report", () => {
      const items = Array.from({ length: 80 }, () => ({ itemCode: "K" }));
      expect(rejected(labReport({ items })).errors).to.have.length(50);
    });

    it("returns the sent externalId, trimmed and cut to 128 characters, on a rejected report", () => {
      expect(rejected(labReport({ externalId: " LIS-9 ", items: [] })).externalId).to.equal("LIS-9");
      const long = "A".repeat(200);
      const rejection = rejected(labReport({ externalId: long }));
      expect(rejection.externalId).to.equal("A".repeat(128));
      expect(fieldsOf(rejection.errors)).to.deep.equal(["externalId"]);
    });

    it("returns externalId null when the sent externalId is not a string", () => {
      const rejection = rejected(labReport({ externalId: 123456 }), 3);
      expect(rejection).to.include({ index: 3, externalId: null, status: "REJECTED" });
      expect(fieldsOf(rejection.errors)).to.deep.equal(["externalId"]);
    });

    it("rejects an entry that is not a JSON object with one error at (report)", () => {
      for (const input of [null, "LIS-1", 42, [labReport()]]) {
        expect(rejected(input, 2)).to.deep.equal({
          index: 2,
          externalId: null,
          status: "REJECTED",
          errors: [{ field: "(report)", message: "each entry of reports must be a JSON object", code: "not-object" }],
        });
      }
    });
  });

  describe("exam reports", () => {
    const echo = {
      externalId: "PACS-ECHO-7788",
      patient: { idCard: "11010519491231002X", name: "张伟" },
      examType: "ECHO",
      examName: "超声心动图",
      examinedAt: "2026-03-02 09:00:00",
      reportedAt: "2026-03-02 11:20:00",
      findings: "左心室壁增厚，室壁运动协调。",
      conclusion: "左室舒张功能减低。",
      items: [{ itemCode: "LVEF", itemName: "左室射血分数", value: 58, unit: "%" }],
    };

    it("accepts a valid exam report with items", () => {
      const r = validateReport(examReportSchema(EXAM_TYPES), echo, 0);
      expect(r.ok).to.equal(true);
      if (r.ok) expect(r.report.items?.[0]).to.include({ itemCode: "LVEF", value: 58 });
    });

    it("accepts an exam report without items", () => {
      const { items: _omit, ...withoutItems } = echo;
      const r = validateReport(examReportSchema(EXAM_TYPES), withoutItems, 0);
      expect(r.ok).to.equal(true);
    });

    it("rejects an unknown examType with a message listing the valid codes", () => {
      const rejection = rejected({ ...echo, examType: "MRI" }, 0, examReportSchema(EXAM_TYPES));
      expect(fieldsOf(rejection.errors)).to.deep.equal(["examType"]);
      expect(rejection.errors[0]!.message).to.contain("ECHO, CHEST_XRAY, ECG, AVF_ULTRASOUND");
    });

    it("lists at most 20 exam type codes and says how many more exist", () => {
      const codes = new Set(Array.from({ length: 25 }, (_, i) => `T${i}`));
      const message = rejected({ ...echo, examType: "ECHO" }, 0, examReportSchema(codes)).errors[0]!.message;
      expect(message).to.contain("T19").and.contain("5 more");
      expect(message).not.to.contain("T20");
    });

    it("rejects a missing examType and an exam item without value", () => {
      const { examType: _omit, ...input } = { ...echo, items: [{ itemCode: "LVEF" }] };
      const rejection = rejected(input, 0, examReportSchema(EXAM_TYPES));
      expect(fieldsOf(rejection.errors)).to.have.members(["examType", "items[0].value"]);
    });
  });

  describe("content hash", () => {
    it("ignores key order and unknown fields but changes when a value changes", () => {
      const base = contentHash(labReport());
      const reordered = Object.fromEntries(Object.entries(labReport({ extra: "ignored" })).reverse());
      (reordered.items as Record<string, unknown>[])[1] = {
        unit: "mmol/L",
        value: 5.6,
        itemName: "钾",
        itemCode: "K",
        refHigh: 5.3,
        refLow: 3.5,
        resultType: "NUMERIC",
        abnormalFlag: "H",
        note: "x",
      };
      expect(contentHash(reordered)).to.equal(base);
      expect(base).to.match(/^[0-9a-f]{64}$/);

      const changed = labReport();
      (changed.items as Record<string, unknown>[])[1]!.value = 5.7;
      expect(contentHash(changed)).not.to.equal(base);
    });
  });

  describe("parseLocalDateTime", () => {
    it("gives the date part of a real date-time and null otherwise", () => {
      expect(parseLocalDateTime("2024-02-29 23:59:59")).to.deep.equal({ date: "2024-02-29" });
      expect(parseLocalDateTime("2000-02-29 00:00:00")).to.deep.equal({ date: "2000-02-29" });
      expect(parseLocalDateTime("1900-02-29 00:00:00")).to.equal(null);
      expect(parseLocalDateTime("2026-04-31 00:00:00")).to.equal(null);
      expect(parseLocalDateTime("2026-04-30 12:60:00")).to.equal(null);
      expect(parseLocalDateTime(" 2026-04-30 12:00:00")).to.equal(null);
    });
  });
});
