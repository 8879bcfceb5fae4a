import { expect } from "chai";
import { loadDefaultDictionary } from "../../../db/seed/defaultDictionary.ts";
import type { Dictionary } from "../../../db/seed/defaultDictionary.ts";
import {
  createItemMapper,
  parseClientCodeMap,
  parseNumericValue,
  summarise,
} from "../../../commands/ingestion/itemMapping.ts";
import type { MappedItem } from "../../../commands/ingestion/itemMapping.ts";
import { normaliseUnitKey } from "../../../commands/ingestion/units.ts";

describe("item mapping (contract B.2)", () => {
  const dictionary = loadDefaultDictionary();
  const mapper = createItemMapper(dictionary);

  describe("mapping to the standard dictionary", () => {
    it("maps by exact standard code, case-insensitively and trimmed", () => {
      const m = mapper.map({ itemCode: " hgb ", value: 118, unit: "g/L" });
      expect(m.stdCode).to.equal("HGB");
      expect(m.stdName).to.equal("血红蛋白");
      expect(m.category).to.equal("blood_routine");
      expect(m.mappedBy).to.equal("code");
    });

    it("maps by the Chinese alias 血红蛋白 sent as itemName with an unknown sender code", () => {
      const m = mapper.map({ itemCode: "LIS-00017", itemName: "血红蛋白", value: 110 });
      expect(m.stdCode).to.equal("HGB");
      expect(m.mappedBy).to.equal("alias");
    });

    it("maps a full-width name (Ｈｂ) and a spaced name ( K + ) to their aliases", () => {
      expect(mapper.map({ itemName: "Ｈｂ", value: 100 }).stdCode).to.equal("HGB");
      const k = mapper.map({ itemName: " K + ", value: "4.6", unit: "mmol/L" });
      expect(k.stdCode).to.equal("K");
      expect(k.mappedBy).to.equal("alias");
      expect(mapper.map({ itemName: "ＨＢＳＡＧ", value: "阴性" }).stdCode).to.equal("HBSAG");
    });

    it("tries itemName before itemCode for aliases, then falls back to itemCode", () => {
      // "Cr" is an alias of CREA, "K+" one of K; neither is a standard code.
      expect(mapper.map({ itemCode: "K+", itemName: "Cr", value: 1 }).stdCode).to.equal("CREA");
      const byCode = mapper.map({ itemCode: "Cr", itemName: "某未知项目", value: 1 });
      expect(byCode.stdCode).to.equal("CREA");
      expect(byCode.mappedBy).to.equal("alias");
    });

    it("prefers a standard code over an alias match of the name", () => {
      const m = mapper.map({ itemCode: "HCT", itemName: "血红蛋白", value: 33 });
      expect(m.stdCode).to.equal("HCT");
      expect(m.mappedBy).to.equal("code");
    });

    it("lets the client code map win over a standard code (HGB mapped to HCT)", () => {
      const codeMap = parseClientCodeMap({ HGB: "HCT" });
      const m = mapper.map({ itemCode: "HGB", itemName: "血红蛋白", value: 33, unit: "%" }, codeMap);
      expect(m.stdCode).to.equal("HCT");
      expect(m.mappedBy).to.equal("clientCodeMap");
      expect(m.stdUnit).to.equal("%");
      expect(m.stdValue).to.equal(33);
    });

    it("looks the client code map up by the trimmed sender code, exactly", () => {
      const codeMap = parseClientCodeMap({ " 0101 ": "HGB" });
      expect(mapper.map({ itemCode: "0101", value: 120 }, codeMap).mappedBy).to.equal("clientCodeMap");
      expect(mapper.map({ itemCode: "  0101\t", value: 120 }, codeMap).stdCode).to.equal("HGB");
      expect(mapper.map({ itemCode: "0102", value: 120 }, codeMap).stdCode).to.equal(null);
    });

    it("ignores a client code map entry pointing at an unknown standard code", () => {
      const codeMap = parseClientCodeMap({ HGB: "NOT_A_CODE", "0101": "NOPE" });
      const m = mapper.map({ itemCode: "HGB", value: 120 }, codeMap);
      expect(m.stdCode).to.equal("HGB");
      expect(m.mappedBy).to.equal("code");
      const unmapped = mapper.map({ itemCode: "0101", value: 120 }, codeMap);
      expect(unmapped.stdCode).to.equal(null);
    });

    it("keeps an unknown item unmapped with its value", () => {
      const m = mapper.map({ itemCode: "ZZ9", itemName: "某未知项目", value: "12.5", unit: "mg/L" });
      expect(m).to.deep.equal({
        stdCode: null,
        stdName: null,
        category: null,
        mappedBy: null,
        valueNum: 12.5,
        valueText: "12.5",
        stdValue: null,
        stdUnit: null,
        unitStatus: "not-applicable",
      } satisfies MappedItem);
    });

    it("does not map an item whose code and name are blank", () => {
      expect(mapper.map({ itemCode: "  ", itemName: " ", value: 1 }).stdCode).to.equal(null);
    });

    it("indexes an item's own name and code even when its aliases leave them out", () => {
      const hgb = dictionary.items.find((i) => i.code === "HGB")!;
      const custom: Dictionary = {
        ...dictionary,
        items: [{ ...hgb, code: "HB_CUSTOM", name: "血红素", aliases: ["Hb"] }],
      };
      const custMapper = createItemMapper(custom);
      expect(custMapper.dictionary).to.equal(custom);
      expect(custMapper.map({ itemName: "血红素", value: 1 }).stdCode).to.equal("HB_CUSTOM");
      expect(custMapper.map({ itemName: "hb_custom", value: 1 }).stdCode).to.equal("HB_CUSTOM");
      expect(custMapper.map({ itemName: "血红蛋白", value: 1 }).stdCode).to.equal(null);
    });
  });

  describe("unit conversion", () => {
    it("converts 11.5 g/dL hemoglobin to 115 g/L", () => {
      const m = mapper.map({ itemCode: "HGB", value: 11.5, unit: "g/dL" });
      expect(m.stdValue).to.equal(115);
      expect(m.stdUnit).to.equal("g/L");
      expect(m.unitStatus).to.equal("converted");
      expect(m.valueNum).to.equal(11.5);
    });

    it("converts creatinine 1.2 mg/dL to 106.08 µmol/L", () => {
      const m = mapper.map({ itemCode: "CREA", value: "1.2", unit: "mg/dL" });
      expect(m.stdValue).to.equal(106.08);
      expect(m.stdUnit).to.equal("µmol/L");
      expect(m.unitStatus).to.equal("converted");
    });

    it("rounds converted values to 6 significant digits (0.29 L/L → 29 %, not 28.999999999999996)", () => {
      const m = mapper.map({ itemCode: "HCT", value: 0.29, unit: "L/L" });
      expect(m.stdValue).to.equal(29);
      expect(m.unitStatus).to.equal("converted");
      expect(mapper.map({ itemCode: "HGB", value: 1.1, unit: "g/dL" }).stdValue).to.equal(11);
      expect(mapper.map({ itemCode: "CREA", value: 5.2, unit: "mg/dL" }).stdValue).to.equal(459.68);
    });

    it("applies the conversion offset (HbA1c 53 mmol/mol → 7.00044 %)", () => {
      const m = mapper.map({ itemCode: "HBA1C", value: 53, unit: "mmol/mol" });
      expect(m.stdValue).to.equal(7.00044);
      expect(m.unitStatus).to.equal("converted");
    });

    it("keeps identity conversions exact (mEq/L → mmol/L)", () => {
      const m = mapper.map({ itemCode: "K", value: "4.123456789", unit: "mEq/L" });
      expect(m.stdValue).to.equal(4.123456789);
      expect(m.unitStatus).to.equal("converted");
    });

    it("accepts umol/L as µmol/L without conversion", () => {
      const m = mapper.map({ itemCode: "CREA", value: 820, unit: "umol/L" });
      expect(m.stdValue).to.equal(820);
      expect(m.unitStatus).to.equal("standard");
    });

    it("treats the sent standard unit as standard regardless of case, spaces and micro sign", () => {
      expect(mapper.map({ itemCode: "HGB", value: 120, unit: " G / l " }).unitStatus).to.equal("standard");
      expect(mapper.map({ itemCode: "CREA", value: 820, unit: "μmol/L" }).unitStatus).to.equal("standard");
      expect(mapper.map({ itemCode: "CREA", value: 820, unit: "µmol/L" }).unitStatus).to.equal("standard");
      for (const unit of ["10^9/L", "10*9/L", "10E9/L", "×10^9/L", "x10^9/L", "10⁹/L"]) {
        const m = mapper.map({ itemCode: "WBC", value: "6.2", unit });
        expect(m.unitStatus, unit).to.equal("standard");
        expect(m.stdValue, unit).to.equal(6.2);
      }
    });

    it("leaves a value in an unknown unit unconverted with stdValue null", () => {
      const m = mapper.map({ itemCode: "HGB", value: 7.1, unit: "mmol/L" });
      expect(m.stdCode).to.equal("HGB");
      expect(m.valueNum).to.equal(7.1);
      expect(m.stdValue).to.equal(null);
      expect(m.stdUnit).to.equal("g/L");
      expect(m.unitStatus).to.equal("unknown");
    });

    it("does not take a power-of-ten unit for another power: 6200 × 10^6/L is 6.2 × 10^9/L", () => {
      const m = mapper.map({ itemCode: "WBC", value: 6200, unit: "10^6/L" });
      expect(m.unitStatus).to.equal("converted");
      expect(m.stdValue).to.equal(6.2);
    });

    describe("by UCUM, where the dictionary lists no conversion for the sent unit", () => {
      it("converts within a dimension: β2-microglobulin in µg/mL and creatinine in mmol/L", () => {
        expect(mapper.map({ itemCode: "B2MG", value: 28.4, unit: "µg/mL" })).to.include({
          stdValue: 28.4,
          stdUnit: "mg/L",
          unitStatus: "converted",
        });
        expect(mapper.map({ itemCode: "CREA", value: 0.82, unit: "mmol/L" })).to.include({
          stdValue: 820,
          unitStatus: "converted",
        });
        expect(mapper.map({ itemCode: "IPTH", value: 0.3, unit: "ng/mL" })).to.include({
          stdValue: 300,
          unitStatus: "converted",
        });
        expect(mapper.map({ itemCode: "MCV", value: 91, unit: "µm³" })).to.include({
          stdValue: 91,
          unitStatus: "converted",
        });
      });

      it("keeps the dictionary's factor where it has one (urea 60 mg/dL is 21.4 mmol/L of urea, a molar factor UCUM cannot know)", () => {
        const m = mapper.map({ itemCode: "UREA_PRE", value: 60, unit: "mg/dL" });
        expect(m.unitStatus).to.equal("converted");
        expect(m.stdValue).to.be.closeTo(21.4, 0.05);
      });

      it("never converts between mass and amount of substance on its own (potassium in mg/dL)", () => {
        expect(mapper.map({ itemCode: "K", value: 15.6, unit: "mg/dL" })).to.include({
          stdValue: null,
          unitStatus: "unknown",
        });
      });

      it("does not convert between ratios: HbA1c in mmol/mol is not a tenth of a per cent", () => {
        const hba1c = dictionary.items.find((item) => item.code === "HBA1C")!;
        const withoutFactor = createItemMapper({ ...dictionary, items: [{ ...hba1c, conversions: [] }] });
        expect(withoutFactor.map({ itemCode: "HBA1C", value: 48, unit: "mmol/mol" })).to.include({
          stdValue: null,
          unitStatus: "unknown",
        });
        expect(mapper.map({ itemCode: "HCT", value: 0.31, unit: "1" })).to.include({
          stdValue: null,
          unitStatus: "unknown",
        });
      });

      it("refuses a unit whose capitals UCUM would read as mega (ng/ML), and reads one UCUM reads the same either way", () => {
        expect(mapper.map({ itemCode: "IPTH", value: 0.3, unit: "ng/ML" })).to.include({
          stdValue: null,
          unitStatus: "unknown",
        });
        expect(mapper.map({ itemCode: "IPTH", value: 0.3, unit: "ng/mL" }).unitStatus).to.equal("converted");
        expect(mapper.map({ itemCode: "PA", value: 0.3, unit: "g/L" })).to.include({
          stdValue: 300,
          unitStatus: "converted",
        });
      });

      it("leaves words that are no unit unknown", () => {
        expect(mapper.map({ itemCode: "HGB", value: 120, unit: "grams" })).to.include({
          stdValue: null,
          unitStatus: "unknown",
        });
        expect(mapper.map({ itemCode: "HGB", value: 120, unit: "克/升" })).to.include({
          stdValue: null,
          unitStatus: "unknown",
        });
      });
    });

    it("assumes the standard unit when no unit is sent", () => {
      for (const unit of [undefined, "", "   "]) {
        const m = mapper.map({ itemCode: "K", value: "4.6", unit });
        expect(m.stdValue).to.equal(4.6);
        expect(m.stdUnit).to.equal("mmol/L");
        expect(m.unitStatus).to.equal("assumed");
      }
    });

    it("passes unit-less numeric items (Kt/V, INR) through as not-applicable", () => {
      const ktv = mapper.map({ itemName: "Kt/V", value: "1.32" });
      expect(ktv.stdCode).to.equal("KTV");
      expect(ktv.stdUnit).to.equal("");
      expect(ktv.stdValue).to.equal(1.32);
      expect(ktv.unitStatus).to.equal("not-applicable");
      const inr = mapper.map({ itemCode: "INR", value: 1.1, unit: "ratio" });
      expect(inr.stdValue).to.equal(1.1);
      expect(inr.unitStatus).to.equal("not-applicable");
    });

    it("keeps '<0.5' as text with valueNum null", () => {
      const m = mapper.map({ itemCode: "CRP", value: "<0.5", unit: "mg/L" });
      expect(m.stdCode).to.equal("CRP");
      expect(m.valueNum).to.equal(null);
      expect(m.valueText).to.equal("<0.5");
      expect(m.stdValue).to.equal(null);
      expect(m.stdUnit).to.equal("mg/L");
      expect(m.unitStatus).to.equal("not-applicable");
    });

    it("maps qualitative HBsAg '阴性' as not-applicable", () => {
      const m = mapper.map({ itemCode: "HBsAg", itemName: "乙肝表面抗原", value: "阴性", resultType: "QUALITATIVE" });
      expect(m.stdCode).to.equal("HBSAG");
      expect(m.category).to.be.a("string");
      expect(m.valueNum).to.equal(null);
      expect(m.valueText).to.equal("阴性");
      expect(m.stdValue).to.equal(null);
      expect(m.stdUnit).to.equal("");
      expect(m.unitStatus).to.equal("not-applicable");
    });

    it("does not convert a numeric-looking value the sender marked as TEXT", () => {
      const m = mapper.map({ itemCode: "HGB", value: "11.5", unit: "g/dL", resultType: "TEXT" });
      expect(m.valueNum).to.equal(11.5);
      expect(m.stdValue).to.equal(null);
      expect(m.unitStatus).to.equal("not-applicable");
    });
  });

  describe("values", () => {
    it("reads plain numeric strings, keeping the original text", () => {
      const m = mapper.map({ itemCode: "HGB", value: " 12.50 ", unit: "g/dL" });
      expect(m.valueNum).to.equal(12.5);
      expect(m.valueText).to.equal(" 12.50 ");
      expect(m.stdValue).to.equal(125);
    });

    it("leaves valueText null when the value was sent as a number", () => {
      expect(mapper.map({ itemCode: "HGB", value: 120 }).valueText).to.equal(null);
    });

    it("accepts only plain decimals as numbers", () => {
      expect(parseNumericValue("12.5")).to.equal(12.5);
      expect(parseNumericValue("-2.5")).to.equal(-2.5);
      expect(parseNumericValue(".5")).to.equal(0.5);
      expect(parseNumericValue("１２.５")).to.equal(12.5);
      for (const text of ["<0.5", ">1000", "阴性", "1:8", "", " ", "1e3", "+5", "1,200", "12.5.1", "NaN", "Infinity"]) {
        expect(parseNumericValue(text), text).to.equal(null);
      }
      expect(parseNumericValue(Number.NaN)).to.equal(null);
      expect(parseNumericValue("9".repeat(400))).to.equal(null);
    });
  });

  describe("unit keys", () => {
    it("unifies micro prefixes, case, spaces, full-width forms and power-of-ten spellings", () => {
      expect(normaliseUnitKey("µmol/L")).to.equal(normaliseUnitKey("umol/L"));
      expect(normaliseUnitKey("μmol/L")).to.equal(normaliseUnitKey("umol/L"));
      expect(normaliseUnitKey("ｍｍｏｌ／Ｌ")).to.equal(normaliseUnitKey("mmol/L"));
      expect(normaliseUnitKey(" 10 ^ 12 / L ")).to.equal(normaliseUnitKey("10E12/L"));
      expect(normaliseUnitKey("10^9/L")).to.not.equal(normaliseUnitKey("10^12/L"));
      expect(normaliseUnitKey("mg/dL")).to.not.equal(normaliseUnitKey("mg/L"));
    });
  });

  describe("client code maps and summaries", () => {
    it("parses a client code map, trimming keys and targets and dropping empty ones", () => {
      const map = parseClientCodeMap({ " A1 ": " HGB ", "": "HCT", B2: "  ", C3: "K" });
      expect([...map]).to.deep.equal([
        ["A1", "HGB"],
        ["C3", "K"],
      ]);
    });

    it("lets an already-trimmed key win over a padded duplicate", () => {
      expect(parseClientCodeMap({ " A1": "HCT", A1: "HGB" }).get("A1")).to.equal("HGB");
      expect(parseClientCodeMap({ A1: "HGB", " A1": "HCT" }).get("A1")).to.equal("HGB");
    });

    it("summarise counts mapped and unmapped items", () => {
      const mapped = [
        mapper.map({ itemCode: "HGB", value: 120 }),
        mapper.map({ itemName: "钾", value: 4.5 }),
        mapper.map({ itemCode: "ZZ1", value: "x" }),
      ];
      expect(summarise(mapped)).to.deep.equal({ itemsMapped: 2, itemsUnmapped: 1 });
      expect(summarise([])).to.deep.equal({ itemsMapped: 0, itemsUnmapped: 0 });
    });
  });
});
