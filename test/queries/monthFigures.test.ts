import { expect } from "chai";
import {
  countIndicators,
  monthBefore,
  type CountedIndicator,
  type MonthValue,
} from "../../queries/quality/monthFigures.ts";

/** Contract G.2's counting rules, as plain functions of a month's facts. */
describe("counting a month's quality indicators", () => {
  const value = (patientRef: string, stdCode: string, month: string, v: number | null, at: string): MonthValue => ({
    patientRef,
    stdCode,
    month,
    value: v,
    valueText: v === null ? "阴性" : null,
    at,
    externalIds: ["R"],
    formulaVersion: null,
  });
  const target = (items: string[], low: number | null, high: number | null): CountedIndicator => ({
    code: "T",
    version: 3,
    kind: "target",
    items,
    band: { low, high },
    windowMonths: 1,
  });

  it("counts months back across a year", () => {
    expect(monthBefore("2026-02", 0)).to.equal("2026-02");
    expect(monthBefore("2026-02", 2)).to.equal("2025-12");
    expect(monthBefore("2026-01", 13)).to.equal("2024-12");
  });

  it("counts a band's edges inside it, rounds the rate to 4 decimals, and leaves it null with nobody measured", () => {
    const facts = {
      month: "2026-10",
      underCare: ["A", "B", "C", "D"],
      values: [
        value("A", "HGB", "2026-10", 110, "2026-10-01T07:00:00"),
        value("B", "HGB", "2026-10", 130, "2026-10-01T07:00:00"),
        value("C", "HGB", "2026-10", 130.1, "2026-10-01T07:00:00"),
      ],
    };
    const [hgb, none] = countIndicators(
      [target(["HGB"], 110, 130), { ...target(["ALB"], 35, null), code: "N" }],
      facts,
    );
    expect(hgb).to.deep.equal({
      code: "T",
      version: 3,
      numerator: 2,
      denominator: 3,
      rate: 0.6667,
      patients: { met: ["A", "B"], notMet: ["C"], untested: ["D"] },
    });
    expect(none).to.deep.include({ numerator: 0, denominator: 0, rate: null });
  });

  it("counts a target by the later of its item and its stand-in, the item on a tie", () => {
    const facts = {
      month: "2026-10",
      underCare: ["A", "B"],
      values: [
        value("A", "CA_CORR", "2026-10", 2.3, "2026-10-05T07:00:00"),
        value("A", "CA", "2026-10", 2.0, "2026-10-20T07:00:00"),
        value("B", "CA_CORR", "2026-10", 2.3, "2026-10-05T07:00:00"),
        value("B", "CA", "2026-10", 2.0, "2026-10-05T07:00:00"),
      ],
    };
    const [ca] = countIndicators([target(["CA_CORR", "CA"], 2.1, 2.5)], facts);
    expect(ca!.patients).to.deep.equal({ met: ["B"], notMet: ["A"], untested: [] });
  });

  it("counts a tested indicator over its window, every item needed, qualitative results included", () => {
    const infection: CountedIndicator = {
      code: "INFECTION_TESTED",
      version: 1,
      kind: "tested",
      items: ["HBSAG", "HIV"],
      band: null,
      windowMonths: 6,
    };
    const facts = {
      month: "2026-10",
      underCare: ["A", "B", "C"],
      values: [
        value("A", "HBSAG", "2026-05", null, "2026-05-01T07:00:00"),
        value("A", "HIV", "2026-10", null, "2026-10-01T07:00:00"),
        // Seven months before: outside the window.
        value("B", "HBSAG", "2026-04", null, "2026-04-01T07:00:00"),
        value("B", "HIV", "2026-10", null, "2026-10-01T07:00:00"),
        value("C", "HBSAG", "2026-10", null, "2026-10-01T07:00:00"),
      ],
    };
    const [tested] = countIndicators([infection], facts);
    expect(tested).to.deep.include({ numerator: 1, denominator: 3, rate: 0.3333 });
    expect(tested!.patients).to.deep.equal({ met: ["A"], notMet: [], untested: ["B", "C"] });
  });

  it("counts nobody for a timeliness indicator until critical values' acknowledgements are counted (G.3)", () => {
    const [timeliness] = countIndicators(
      [
        {
          code: "CRITICAL_ACK_30MIN",
          version: 1,
          kind: "timeliness",
          items: [],
          band: { low: null, high: 30 },
          windowMonths: 1,
        },
      ],
      { month: "2026-10", underCare: ["A"], values: [] },
    );
    expect(timeliness).to.deep.include({ numerator: 0, denominator: 0, rate: null });
    expect(timeliness!.patients).to.deep.equal({ met: [], notMet: [], untested: [] });
  });
});
