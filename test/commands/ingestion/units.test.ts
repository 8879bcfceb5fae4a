import { expect } from "chai";
import { loadDefaultDictionary } from "../../../db/seed/defaultDictionary.ts";
import { ucumCodeOf, ucumConversion } from "../../../commands/ingestion/units.ts";

describe("units in UCUM", () => {
  it("codes the spellings laboratories use in UCUM", () => {
    expect(ucumCodeOf("10^9/L")).to.equal("10*9/L");
    expect(ucumCodeOf("×10^12/L")).to.equal("10*12/L");
    expect(ucumCodeOf("µmol/L")).to.equal("umol/L");
    expect(ucumCodeOf("mIU/mL")).to.equal("m[IU]/mL");
    expect(ucumCodeOf("µm³")).to.equal("um3");
    expect(ucumCodeOf("%")).to.equal("%");
  });

  it("gives no code to what is no UCUM unit", () => {
    for (const unit of ["", "  ", "克/升", "grams", "sec"]) expect(ucumCodeOf(unit), unit).to.equal(null);
  });

  it("takes the names of JavaScript's object members for no unit, and converts nothing with them", () => {
    // ucum-lhc finds them in its plain-object tables as "valid" units, and throws when converting them.
    for (const unit of ["constructor", "toString", "__proto__", "hasOwnProperty", "constructor/L", "g/L.valueOf"]) {
      expect(ucumCodeOf(unit), unit).to.equal(null);
      expect(ucumConversion(unit, "g/L"), unit).to.equal(null);
      expect(ucumConversion("g/L", unit), unit).to.equal(null);
    }
  });

  it("has a UCUM code for every unit of the default dictionary, so every Observation we serve is coded", () => {
    const units = new Set(
      loadDefaultDictionary()
        .items.map((item) => item.unit)
        .filter((unit) => unit !== ""),
    );
    expect([...units].filter((unit) => ucumCodeOf(unit) === null)).to.deep.equal([]);
  });

  it("converts along a straight line, offsets included, without float noise", () => {
    expect(ucumConversion("ng/mL", "pg/mL")).to.deep.equal({ factor: 1000, offset: 0 });
    expect(ucumConversion("Cel", "[degF]")).to.deep.equal({ factor: 1.8, offset: 32 });
    expect(ucumConversion("mg/dL", "mmol/L")).to.equal(null);
  });
});
