import { expect } from "chai";
import {
  birthDateOf,
  explainIdCard,
  idCardProblem,
  maskIdCard,
  normaliseIdCard,
  sameName,
  sexOf,
} from "../../../commands/patients/nationalId.ts";

// Check digits below were verified by hand with the GB 11643-1999 weights.
const BORN_1949 = "11010519491231002X";
const BORN_1880 = "440524188001010014";
const BORN_LEAP_DAY_2000 = "110105200002290013"; // S = 130, 130 mod 11 = 9 → "3"
const BORN_1799 = "110105179912310016"; // S = 193, 193 mod 11 = 6 → "6"

describe("national identity number (GB 11643-1999)", () => {
  describe("validation", () => {
    it("accepts both examples from the standard", () => {
      expect(idCardProblem(BORN_1949)).to.equal(null);
      expect(idCardProblem(BORN_1880)).to.equal(null);
    });

    it("accepts a lower-case trailing x after normalising it to X", () => {
      expect(normaliseIdCard("11010519491231002x")).to.equal(BORN_1949);
      expect(explainIdCard("11010519491231002x")).to.deep.equal({ valid: true, normalised: BORN_1949 });
    });

    it("normalises full-width digits and a full-width X and accepts the result", () => {
      expect(normaliseIdCard("１１０１０５１９４９１２３１００２Ｘ")).to.equal(BORN_1949);
      expect(normaliseIdCard("１１０１０５１９４９１２３１００２ｘ")).to.equal(BORN_1949);
      expect(idCardProblem("１１０１０５１９４９１２３１００２Ｘ")).to.equal(null);
    });

    it("trims surrounding spaces, including full-width ones", () => {
      expect(normaliseIdCard("  11010519491231002X\t")).to.equal(BORN_1949);
      expect(idCardProblem("\u3000440524188001010014 ")).to.equal(null);
    });

    it("says the idCard is missing when it is absent or blank", () => {
      expect(idCardProblem(undefined)).to.equal("idCard is missing");
      expect(idCardProblem(null)).to.equal("idCard is missing");
      expect(idCardProblem("   ")).to.equal("idCard is missing");
    });

    it("rejects a wrong check digit and says the number was probably mistyped", () => {
      expect(idCardProblem("110105194912310021")).to.equal("idCard is not a valid national identity number");
      expect(explainIdCard("110105194912310021").reason).to.equal(
        "idCard check digit should be X, not 1 — the number was probably mistyped",
      );
    });

    it("rejects 17 or 19 characters and says how many were sent", () => {
      expect(idCardProblem("11010519491231002")).to.equal("idCard is not a valid national identity number");
      expect(explainIdCard("11010519491231002").reason).to.equal(
        "idCard must have 18 characters (17 digits and a check digit 0-9 or X); got 17",
      );
      expect(explainIdCard("11010519491231002X0").reason).to.contain("got 19");
    });

    it("rejects an X anywhere but the last position", () => {
      const result = explainIdCard("1101051949123100X2");
      expect(result.valid).to.equal(false);
      expect(result.reason).to.equal(
        "idCard may have X only as its last character (the check digit); found X at position 17",
      );
    });

    it("rejects letters among the first 17 characters and names the position", () => {
      expect(explainIdCard("11010A19491231002X").reason).to.equal(
        'idCard must have digits in its first 17 positions; position 6 is "A"',
      );
    });

    it("rejects 29 February 1949 because 1949 is not a leap year", () => {
      expect(explainIdCard("110105194902290010").reason).to.equal("idCard has an impossible birth date 19490229");
    });

    it("rejects impossible months and days", () => {
      expect(explainIdCard("110105194902310010").reason).to.contain("impossible birth date 19490231");
      expect(explainIdCard("110105194913010010").reason).to.contain("impossible birth date 19491301");
      expect(explainIdCard("110105194901000010").reason).to.contain("impossible birth date 19490100");
    });

    it("accepts 29 February 2000 because 2000 is a leap year", () => {
      expect(explainIdCard(BORN_LEAP_DAY_2000)).to.deep.equal({ valid: true, normalised: BORN_LEAP_DAY_2000 });
    });

    it("rejects a birth date in the future but accepts one born today", () => {
      const dayBefore = new Date(2000, 1, 28, 23, 59);
      const sameDay = new Date(2000, 1, 29, 0, 1);
      expect(idCardProblem(BORN_LEAP_DAY_2000, dayBefore)).to.equal("idCard is not a valid national identity number");
      expect(explainIdCard(BORN_LEAP_DAY_2000, dayBefore).reason).to.equal(
        "idCard has a birth date 20000229 in the future; check positions 7-14",
      );
      expect(idCardProblem(BORN_LEAP_DAY_2000, sameDay)).to.equal(null);
    });

    it("rejects a birth date before 1800 even when the check digit is right", () => {
      expect(explainIdCard(BORN_1799).reason).to.equal(
        "idCard has a birth date 17991231 before 1800; check positions 7-14",
      );
    });
  });

  describe("masking", () => {
    it("keeps the first 6 and last 4 characters of an 18-character number", () => {
      expect(maskIdCard(BORN_1949)).to.equal("110105********002X");
    });

    it("never reveals more than half of a shorter string", () => {
      for (let n = 0; n <= 30; n++) {
        if (n === 18) continue;
        const value = "1234567890ABCDEFGHIJKLMNOPQRST".slice(0, n);
        const masked = maskIdCard(value);
        const revealed = [...masked].filter((c) => c !== "*").length;
        expect(masked, `length ${n}`).to.have.length(n);
        expect(revealed, `length ${n}: ${masked}`).to.be.at.most(Math.floor(n / 2));
      }
    });

    it("keeps at most 2 characters at each end of a string of 10 or fewer, and none of 4 or fewer", () => {
      expect(maskIdCard("1234567890")).to.equal("12******90");
      expect(maskIdCard("12345")).to.equal("1***5");
      expect(maskIdCard("1234")).to.equal("****");
    });

    it("masks a 15-character old-style number without showing 10 of its digits", () => {
      expect(maskIdCard("110105491231002")).to.equal("1101********002");
    });
  });

  describe("name comparison", () => {
    it("ignores whitespace inside a Chinese name", () => {
      expect(sameName("张 三", "张三")).to.equal(true);
      expect(sameName("张\u3000三\u00a0", " 张三")).to.equal(true);
    });

    it("tells different Chinese names apart", () => {
      expect(sameName("张三", "张四")).to.equal(false);
    });

    it("folds full-width Latin letters and ignores their case", () => {
      expect(sameName("ＪＯＨＮ smith", "john Smith")).to.equal(true);
      expect(sameName("John Smith", "Jon Smith")).to.equal(false);
    });
  });

  describe("birth date and sex", () => {
    it("reads the birth date as yyyy-MM-dd", () => {
      expect(birthDateOf(BORN_1949)).to.equal("1949-12-31");
      expect(birthDateOf(BORN_LEAP_DAY_2000)).to.equal("2000-02-29");
    });

    it("reads an odd sequence code as male and an even one as female", () => {
      expect(sexOf(BORN_1880)).to.equal("M");
      expect(sexOf(BORN_1949)).to.equal("F");
    });

    it("refuses to read an invalid number", () => {
      expect(() => birthDateOf("110105194912310021")).to.throw(RangeError, /probably mistyped/);
    });
  });
});
