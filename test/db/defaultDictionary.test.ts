import { expect } from "chai";
import {
  dictionarySchema,
  isValidLoinc,
  loadDefaultDictionary,
  normaliseItemKey,
  type Dictionary,
  type DictionaryItem,
} from "../../db/seed/defaultDictionary.ts";
import { serveDictionary } from "../../queries/dictionary/dictionary.ts";

const FACT_CODES = [
  "HGB",
  "HCT",
  "RBC",
  "WBC",
  "PLT",
  "RET",
  "MCV",
  "UREA_PRE",
  "UREA_POST",
  "CREA",
  "UA",
  "K",
  "NA",
  "CL",
  "CA",
  "P",
  "MG",
  "CO2",
  "HCO3",
  "IPTH",
  "ALP",
  "VITD25",
  "ALB",
  "TP",
  "PA",
  "FER",
  "FE",
  "TIBC",
  "TSAT",
  "CRP",
  "HSCRP",
  "B2MG",
  "HBSAG",
  "HBSAB",
  "HBCAB",
  "HCVAB",
  "HIV",
  "TPAB",
  "RPR",
  "GLU",
  "HBA1C",
  "TC",
  "TG",
  "LDL",
  "HDL",
  "ALT",
  "AST",
  "GGT",
  "TBIL",
  "NTBNP",
  "PT",
  "INR",
  "APTT",
  "FIB",
  "KTV",
  "URR",
];
/** The items contract F.2 has the service derive where the laboratory does not send them. */
const DERIVED_CODES = ["CA_CORR", "TSAT_CALC", "CAXP"];

describe("default hemodialysis dictionary", () => {
  let dict: Dictionary;
  before(() => {
    dict = loadDefaultDictionary();
  });

  function item(code: string): DictionaryItem {
    const found = dict.items.find((i) => i.code === code);
    if (!found) throw new Error(`no item ${code}`);
    return found;
  }

  /** Converts `value` sent in `unit` to the item's standard unit, as the mapper will. */
  function toStandard(code: string, value: number, unit: string): number {
    const conv = item(code).conversions.find((c) => c.unit.toLowerCase() === unit.toLowerCase());
    if (!conv) throw new Error(`${code} has no conversion from ${unit}`);
    return value * conv.toStandard.factor + (conv.toStandard.offset ?? 0);
  }

  /** Resolves a sent name the way contract B.2 does after the code lookup: by normalised alias. */
  function byAlias(sent: string): string | undefined {
    const key = normaliseItemKey(sent);
    return dict.items.find((i) => i.aliases.some((a) => normaliseItemKey(a) === key))?.code;
  }

  it("ships at least 50 laboratory items and 10 exam types", () => {
    expect(dict.items.length).to.be.at.least(50);
    expect(dict.examTypes.length).to.be.at.least(10);
  });

  it("contains exactly the items of the reference facts table and the derived items of contract F.2", () => {
    expect(dict.items.map((i) => i.code)).to.have.members([...FACT_CODES, ...DERIVED_CODES]);
  });

  it("ships all eleven exam types with upper-case codes", () => {
    expect(dict.examTypes.map((e) => e.code)).to.have.members([
      "ECG",
      "ECHO",
      "CXR",
      "CHEST_CT",
      "AVF_US",
      "PVUS",
      "CAROTID_US",
      "ABD_US",
      "ABD_LAT_XR",
      "BMD",
      "PTH_US",
    ]);
    for (const exam of dict.examTypes) expect(exam.code).to.match(/^[A-Z][A-Z0-9_]*$/);
  });

  it("gives every item a unique code and unique normalised aliases", () => {
    const codes = dict.items.map((i) => i.code);
    expect(new Set(codes).size).to.equal(codes.length);
    const owners = new Map<string, string[]>();
    for (const i of dict.items) {
      for (const a of i.aliases) {
        const key = normaliseItemKey(a);
        owners.set(key, [...(owners.get(key) ?? []), i.code]);
      }
    }
    const clashes = [...owners].filter(([, who]) => who.length > 1);
    expect(clashes, JSON.stringify(clashes)).to.be.empty;
  });

  it("lists each item's code, Chinese name and English name among its aliases", () => {
    for (const i of dict.items) {
      const keys = i.aliases.map(normaliseItemKey);
      expect(keys, i.code).to.include.members([i.code, i.name, i.nameEn].map(normaliseItemKey));
    }
  });

  it("marks pre/post-dependent items as timing", () => {
    const timing = dict.items.filter((i) => i.timing).map((i) => i.code);
    expect(timing).to.have.members(["UREA_PRE", "UREA_POST", "CREA", "K", "CO2", "HCO3", "KTV", "URR"]);
  });

  // Corrected calcium too: the calcium targets below are for it, and the chart shows it by default.
  it("marks the hemodialysis quality indicators as core", () => {
    const core = dict.items.filter((i) => i.core).map((i) => i.code);
    expect(core).to.have.members([
      "HGB",
      "UREA_PRE",
      "UREA_POST",
      "CA",
      "P",
      "IPTH",
      "ALB",
      "FER",
      "TSAT",
      "HSCRP",
      "HBSAG",
      "HCVAB",
      "HIV",
      "TPAB",
      "KTV",
      "URR",
      "CA_CORR",
    ]);
  });

  it("sends unqualified urea names to pre-dialysis urea and explicit post names to post-dialysis urea", () => {
    for (const sent of ["Urea", "BUN", "尿素氮", "尿素", "urea"]) expect(byAlias(sent), sent).to.equal("UREA_PRE");
    for (const sent of ["透析后尿素", "透析后尿素氮", "Urea post", "BUN post", "Post BUN"]) {
      expect(byAlias(sent), sent).to.equal("UREA_POST");
    }
  });

  it("reads TP as total protein, PA as prealbumin and TP-Ab as the syphilis antibody", () => {
    expect(byAlias("TP")).to.equal("TP");
    expect(byAlias("PA")).to.equal("PA");
    for (const sent of ["TP-Ab", "TPPA", "梅毒抗体"]) expect(byAlias(sent), sent).to.equal("TPAB");
  });

  it("converts haemoglobin in g/dL to g/L", () => {
    expect(item("HGB").unit).to.equal("g/L");
    expect(toStandard("HGB", 11.5, "g/dL")).to.be.closeTo(115, 1e-9);
  });

  it("converts creatinine in mg/dL to µmol/L", () => {
    expect(item("CREA").unit).to.equal("µmol/L");
    expect(toStandard("CREA", 1.2, "mg/dL")).to.be.closeTo(106.08, 1e-9);
  });

  it("converts BUN in mg/dL to urea in mmol/L", () => {
    expect(toStandard("UREA_PRE", 28.01, "mg/dL")).to.be.closeTo(10, 1e-4);
    expect(toStandard("UREA_POST", 28.01, "mg/dL")).to.be.closeTo(10, 1e-4);
  });

  it("converts phosphorus, calcium and iPTH from the alternative units", () => {
    expect(toStandard("P", 3.097, "mg/dL")).to.be.closeTo(1, 1e-5);
    expect(toStandard("CA", 8.016, "mg/dL")).to.be.closeTo(2, 1e-5);
    expect(toStandard("IPTH", 10, "pmol/L")).to.be.closeTo(94.25, 1e-9);
    expect(toStandard("FIB", 300, "mg/dL")).to.be.closeTo(3, 1e-9);
  });

  it("converts HbA1c from mmol/mol to % with the offset", () => {
    expect(toStandard("HBA1C", 48, "mmol/mol")).to.be.closeTo(6.54304, 1e-9);
  });

  it("accepts ASCII and Greek-mu spellings of µmol/L unchanged", () => {
    for (const spelling of ["umol/L", "\u03bcmol/L"]) {
      expect(toStandard("CREA", 88, spelling), spelling).to.equal(88);
    }
  });

  it("keeps qualitative and text items unit-less and unconverted", () => {
    for (const code of ["HBSAG", "HBCAB", "HCVAB", "HIV", "TPAB"])
      expect(item(code).valueType, code).to.equal("qualitative");
    expect(item("RPR").valueType).to.equal("text");
    for (const i of dict.items.filter((x) => x.valueType !== "numeric")) {
      expect(i.unit, i.code).to.equal("");
      expect(i.conversions, i.code).to.be.empty;
    }
    expect(item("KTV").unit).to.equal("");
    expect(item("INR").unit).to.equal("");
  });

  it("gives LOINC codes with valid check digits and none to Kt/V and URR", () => {
    for (const i of dict.items)
      if (i.loinc !== null) expect(isValidLoinc(i.loinc), `${i.code} ${i.loinc}`).to.equal(true);
    expect(item("KTV").loinc).to.equal(null);
    expect(item("URR").loinc).to.equal(null);
    expect(isValidLoinc("718-7")).to.equal(true);
    expect(isValidLoinc("718-6")).to.equal(false);
  });

  it("folds full-width and spaced aliases", () => {
    expect(normaliseItemKey("ＨＧＢ")).to.equal(normaliseItemKey("hgb"));
    expect(normaliseItemKey(" K + ")).to.equal(normaliseItemKey("K+"));
    expect(normaliseItemKey("血\u3000钾")).to.equal("血钾");
    expect(byAlias("ｈｓ－ＣＲＰ")).to.equal("HSCRP");
  });

  it("rejects a dictionary in which two items share an alias", () => {
    const copy = structuredClone(dict);
    copy.items.find((i) => i.code === "HCT")!.aliases.push(" hb ");
    const result = dictionarySchema.safeParse(copy);
    expect(result.success).to.equal(false);
    expect(JSON.stringify(result.error?.issues)).to.contain("collides");
  });

  it("gives every item the short clinical label staff know it by, one item's label only (#34 item 5)", () => {
    const labels = Object.fromEntries(dict.items.map((i) => [i.code, i.label]));
    expect(labels).to.include({
      KTV: "spKt/V",
      URR: "URR",
      HGB: "Hb",
      K: "K",
      P: "P",
      CA: "Ca",
      IPTH: "iPTH",
      ALB: "Alb",
      FER: "Ferritin",
      TSAT: "TSAT",
      UREA_PRE: "Urea (pre)",
      UREA_POST: "Urea (post)",
    });
    expect(new Set(dict.items.map((i) => i.label.toLowerCase())).size).to.equal(dict.items.length);
    const twice = structuredClone(dict);
    twice.items.find((i) => i.code === "HCT")!.label = "HB";
    expect(JSON.stringify(dictionarySchema.safeParse(twice).error?.issues ?? [])).to.contain(
      'label \\"HB\\" of HCT is the label of HGB',
    );
    const missing = structuredClone(dict) as unknown as { items: Array<Record<string, unknown>> };
    delete missing.items[0]!.label;
    expect(dictionarySchema.safeParse(missing).success).to.equal(false);
  });

  it("holds the KDIGO / KDOQI targets of the core dialysis items, each citing its guideline", () => {
    const targeted = dict.items.filter((item) => item.target).map((item) => item.code);
    expect(targeted).to.have.members([
      "KTV",
      "URR",
      "HGB",
      "ALB",
      "P",
      "CA",
      "IPTH",
      "K",
      "HCO3",
      "FER",
      "TSAT",
      "CA_CORR",
      "TSAT_CALC",
      "CAXP",
    ]);
    expect(item("KTV").target).to.deep.include({ low: 1.2, high: null });
    expect(item("HGB").target).to.deep.include({ low: 110, high: 130 });
    for (const code of targeted) expect(item(code).target!.source, code).to.match(/KDIGO|KDOQI/);
  });

  it("holds critical limits where laboratories commonly set them, outside each item's target", () => {
    const critical = dict.items.filter((item) => item.critical);
    expect(critical.map((item) => item.code)).to.have.members(["K", "NA", "CA", "GLU", "HGB"]);
    expect(item("K").critical).to.deep.include({ low: 2.8, high: 6.2 });
    for (const { code, critical: limits, target } of critical) {
      if (!target) continue;
      expect(
        limits!.low === null || target.low === null || limits!.low < target.low,
        `${code} critical low below its target`,
      ).to.equal(true);
      expect(
        limits!.high === null || target.high === null || limits!.high > target.high,
        `${code} critical high above its target`,
      ).to.equal(true);
    }
  });

  it("derives URR, corrected calcium, TSAT and Ca × P by formulas over other numeric items, each citing its source", () => {
    const formulas = Object.fromEntries(
      dict.items.filter((i) => i.formula).map((i) => [i.code, i.formula!.expression]),
    );
    expect(formulas).to.deep.equal({
      URR: "100 * (1 - UREA_POST / UREA_PRE)",
      CA_CORR: "CA + 0.02 * (40 - ALB)",
      TSAT_CALC: "FE / TIBC * 100",
      CAXP: "CA * P",
    });
    expect(item("TSAT_CALC").formula!.sentAs).to.have.members(["TSAT", "TSAT_CALC"]);
    for (const code of Object.keys(formulas)) expect(item(code).formula!.source, code).to.have.length.above(20);
  });

  it("refuses a formula that is not arithmetic over numeric items that are not derived themselves", () => {
    const withFormula = (expression: string) => {
      const copy = structuredClone(dict);
      copy.items.find((i) => i.code === "CAXP")!.formula!.expression = expression;
      const result = dictionarySchema.safeParse(copy);
      return result.success ? null : result.error.issues[0]!.message;
    };
    expect(withFormula("CA * P * 1.5")).to.equal(null);
    expect(withFormula("process.exit(1)")).to.match(/may hold only numbers, item codes/);
    expect(withFormula("CA * NOPE")).to.equal("NOPE is not a numeric item of the dictionary");
    expect(withFormula("CA * HBSAG")).to.equal("HBSAG is not a numeric item of the dictionary");
    expect(withFormula("CA * URR")).to.equal("URR is derived itself: a formula reads results as sent");
    expect(withFormula("CA *")).to.match(/does not parse/);
  });

  it("holds the delta limits of contract F.3, each within 30 days and citing its practice; numeric items only", () => {
    const limited = Object.fromEntries(
      dict.items
        .filter((item) => item.delta)
        .map((item) => [item.code, [item.delta!.limit, item.delta!.percent, item.delta!.days]]),
    );
    expect(limited).to.deep.equal({
      K: [1.5, false, 30],
      HGB: [20, false, 30],
      CA: [0.5, false, 30],
      P: [0.8, false, 30],
      ALB: [8, false, 30],
      IPTH: [50, true, 30],
    });
    for (const item of dict.items.filter((candidate) => candidate.delta))
      expect(item.delta!.source, item.code).to.match(/CLSI EP33/);
    const copy = structuredClone(dict);
    copy.items.find((i) => i.code === "HBSAG")!.delta = { limit: 1, percent: false, days: 30, source: "x" };
    expect(JSON.stringify(dictionarySchema.safeParse(copy).error?.issues ?? [])).to.contain(
      "only numeric items have a delta",
    );
  });

  it("refuses a band upside down, an empty one, or one on a qualitative item", () => {
    const broken = (change: (copy: Dictionary) => void) => {
      const copy = structuredClone(dict);
      change(copy);
      return JSON.stringify(dictionarySchema.safeParse(copy).error?.issues ?? []);
    };
    expect(
      broken((d) => (d.items.find((i) => i.code === "K")!.critical = { low: 6.2, high: 2.8, source: "x" })),
    ).to.contain("low must be below high");
    expect(
      broken((d) => (d.items.find((i) => i.code === "K")!.target = { low: null, high: null, source: "x" })),
    ).to.contain("give low, high or both");
    expect(
      broken((d) => (d.items.find((i) => i.code === "HBSAG")!.critical = { low: 1, high: null, source: "x" })),
    ).to.contain("only numeric items have a critical");
  });

  it("changes the served version exactly when the content changes, a unit conversion factor included", () => {
    const version = (d: Dictionary) => serveDictionary(d).version;
    const copy = () => structuredClone(dict);
    expect(version(copy())).to.equal(version(dict));
    const hgb = copy();
    hgb.items.find((i) => i.code === "HGB")!.conversions[0]!.toStandard.factor = 10.5;
    expect(version(hgb), "a conversion factor, though not served").not.to.equal(version(dict));
    const renamed = copy();
    renamed.examTypes[0]!.name += "（新）";
    expect(version(renamed)).not.to.equal(version(dict));
    const relabelled = copy();
    relabelled.items.find((i) => i.code === "KTV")!.label = "Kt/V";
    expect(version(relabelled), "a label").not.to.equal(version(dict));
    const stricter = copy();
    stricter.items.find((i) => i.code === "K")!.critical!.high = 6.0;
    expect(version(stricter), "a critical limit, though not served").not.to.equal(version(dict));
  });
});
