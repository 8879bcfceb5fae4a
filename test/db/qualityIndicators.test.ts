import { expect } from "chai";
import { dictionarySchema, loadDefaultDictionary, type Dictionary } from "../../db/seed/defaultDictionary.ts";

/** Contract G.2: the dictionary's quality indicators are checked with it, as its formulas are. */
describe("the dictionary's quality indicators", () => {
  const issuesOf = (change: (dictionary: Dictionary) => void) => {
    const copy = structuredClone(loadDefaultDictionary());
    change(copy);
    return JSON.stringify(dictionarySchema.safeParse(copy).error?.issues ?? []);
  };
  const indicator = (dictionary: Dictionary, code: string) =>
    dictionary.indicators.find((entry) => entry.code === code)!;

  it("holds the defaults of G.2, each target inside its item's own chart target", () => {
    const dictionary = loadDefaultDictionary();
    const targets = dictionary.indicators.filter((entry) => entry.kind === "target");
    expect(targets.map((entry) => [entry.code, entry.items, entry.band])).to.deep.equal([
      ["KTV_TARGET", ["KTV"], { low: 1.2, high: null }],
      ["URR_TARGET", ["URR"], { low: 65, high: null }],
      ["HGB_TARGET", ["HGB"], { low: 110, high: 130 }],
      ["ALB_TARGET", ["ALB"], { low: 35, high: null }],
      ["P_TARGET", ["P"], { low: 1.13, high: 1.78 }],
      ["CA_TARGET", ["CA_CORR", "CA"], { low: 2.1, high: 2.5 }],
      ["IPTH_TARGET", ["IPTH"], { low: 150, high: 600 }],
    ]);
    // The charts draw the same band as the month counts (HGB: "the dictionary's chart target").
    for (const entry of targets) {
      const item = dictionary.items.find((candidate) => candidate.code === entry.items[0])!;
      expect([item.target?.low, item.target?.high], entry.code).to.deep.equal([entry.band!.low, entry.band!.high]);
    }
    expect(indicator(dictionary, "INFECTION_TESTED")).to.deep.include({ windowMonths: 6 });
    expect(indicator(dictionary, "IPTH_TESTED")).to.deep.include({ windowMonths: 3 });
  });

  it("refuses a code twice, an item the dictionary lacks, a target read from a qualitative item", () => {
    expect(issuesOf((d) => d.indicators.push({ ...indicator(d, "HGB_TARGET") }))).to.contain(
      "duplicate indicator code HGB_TARGET",
    );
    expect(issuesOf((d) => (indicator(d, "HGB_TARGET").items = ["HB"]))).to.contain(
      "HB is not an item of the dictionary",
    );
    expect(issuesOf((d) => (indicator(d, "HGB_TARGET").items = ["HBSAG"]))).to.contain(
      "a target is read from numeric items; HBSAG is not one",
    );
  });

  it("refuses a band on a tested indicator, none on a target, and a target over more than its month", () => {
    expect(issuesOf((d) => (indicator(d, "HGB_TESTED").band = { low: 1, high: null }))).to.contain(
      "a tested indicator has no band",
    );
    expect(issuesOf((d) => (indicator(d, "HGB_TARGET").band = null))).to.contain("a target indicator has a band");
    expect(issuesOf((d) => (indicator(d, "HGB_TARGET").windowMonths = 3))).to.contain(
      "a target indicator reads its month alone",
    );
  });
});
