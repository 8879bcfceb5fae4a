import { expect } from "chai";
import {
  decideCriticalResults,
  evolveCriticalResults,
  findCritical,
  initialCriticalResultsState,
  isRecentEnough,
  mayRaiseAlert,
  type ReportItem,
} from "../../commands/alerts/criticalResults.ts";
import type { CriticalResultEvent } from "../../commands/alerts/events.ts";
import type { StoredEvent } from "../../db/eventStore.ts";
import { loadDefaultDictionary } from "../../db/seed/defaultDictionary.ts";

const dictionary = loadDefaultDictionary();
const item = (index: number, sent: ReportItem["sent"], mapped: Partial<ReportItem["mapped"]> = {}): ReportItem => ({
  index,
  sent,
  mapped: { stdCode: null, stdName: null, stdValue: null, stdUnit: null, ...mapped },
});
const potassium = (value: number, flag?: string) =>
  item(
    1,
    { itemCode: "K", value, unit: "mmol/L", abnormalFlag: flag },
    { stdCode: "K", stdName: "钾", stdValue: value, stdUnit: "mmol/L" },
  );

let position = 100;
function stored(events: CriticalResultEvent[], cause: number): StoredEvent<CriticalResultEvent>[] {
  return events.map((event) => ({
    ...event,
    position: ++position,
    transactionId: "1",
    tenant: "h1",
    streamId: "critical-results:R1",
    streamVersion: 1,
    metadata: { actor: "critical-results", causationId: String(cause) },
    recordedAt: new Date(),
  }));
}
const report = (findings: ReturnType<typeof findCritical>, patientRef: string | null = "P001") => ({
  externalId: "R1",
  patientRef,
  collectedAt: "2026-11-25 07:00:00",
  reportedAt: "2026-11-25 09:00:00",
  findings,
});
let ids = 0;
const newId = () => `A${++ids}`;

describe("critical results: what is critical, and what a report's new version does to its alerts", () => {
  it("finds a value beyond the dictionary's critical limits, in the standard unit, saying which limit", () => {
    const [found] = findCritical([potassium(6.8)], dictionary);
    expect(found).to.deep.include({
      code: "K",
      name: "钾",
      value: 6.8,
      unit: "mmol/L",
      reason: "above the critical limit 6.2 mmol/L",
      itemIndex: 1,
    });
    expect(findCritical([potassium(2.5)], dictionary)[0]!.reason).to.equal("below the critical limit 2.8 mmol/L");
    expect(
      findCritical([potassium(6.2), potassium(2.8)], dictionary),
      "the limits themselves are not beyond",
    ).to.deep.equal([]);
  });

  it("takes the laboratory's LL or HH as critical whatever the item, mapped or not", () => {
    const troponin = item(4, {
      itemCode: "TNI-LOCAL",
      itemName: "肌钙蛋白I",
      value: "2.35",
      unit: "ng/mL",
      abnormalFlag: "hh",
    });
    const [found] = findCritical([troponin], dictionary);
    expect(found).to.deep.include({
      code: "TNI-LOCAL",
      name: "肌钙蛋白I",
      value: "2.35",
      unit: "ng/mL",
      flag: "HH",
      reason: "flagged HH by the laboratory",
    });
    expect(findCritical([item(0, { itemCode: "X", value: 1, abnormalFlag: "H" })], dictionary)).to.deep.equal([]);
  });

  it("raises one alert for a critical item, and none again while an update keeps it critical", () => {
    const first = decideCriticalResults(
      initialCriticalResultsState(),
      report(findCritical([potassium(6.8)], dictionary)),
      newId,
    );
    expect(first.map((event) => event.type)).to.deep.equal(["CriticalResultRaised"]);
    const state = stored(first, 10).reduce(evolveCriticalResults, initialCriticalResultsState());
    expect(decideCriticalResults(state, report(findCritical([potassium(7.1)], dictionary)), newId)).to.deep.equal([]);
  });

  it("closes a standing alert, acknowledged or not, when an update no longer holds the value", () => {
    const raised = stored(
      decideCriticalResults(initialCriticalResultsState(), report(findCritical([potassium(6.8)], dictionary)), newId),
      10,
    );
    const alertId = (raised[0]!.data as { alertId: string }).alertId;
    const acknowledged = stored(
      [{ type: "CriticalResultAcknowledged", data: { alertId, note: "Dr. Li told", by: "Nurse Chen" } }],
      0,
    );
    const state = [...raised, ...acknowledged].reduce(evolveCriticalResults, initialCriticalResultsState());
    const closing = decideCriticalResults(state, report(findCritical([potassium(5.1)], dictionary)), newId);
    expect(closing).to.deep.equal([
      {
        type: "CriticalResultClosed",
        data: { alertId, reason: "an update of the report no longer holds this critical value" },
      },
    ]);
    const closed = [...raised, ...acknowledged, ...stored(closing, 11)].reduce(
      evolveCriticalResults,
      initialCriticalResultsState(),
    );
    expect(
      decideCriticalResults(closed, report(findCritical([potassium(6.9)], dictionary)), newId).map(
        (event) => event.type,
      ),
      "critical again: a new alert",
    ).to.deep.equal(["CriticalResultRaised"]);
  });

  it("raises nothing for a report of no patient, and remembers the last event it reacted to", () => {
    expect(
      decideCriticalResults(
        initialCriticalResultsState(),
        report(findCritical([potassium(6.8)], dictionary), null),
        newId,
      ),
    ).to.deep.equal([]);
    const state = stored(
      decideCriticalResults(initialCriticalResultsState(), report(findCritical([potassium(6.8)], dictionary)), newId),
      42,
    ).reduce(evolveCriticalResults, initialCriticalResultsState());
    expect(state.lastCause).to.equal(42);
  });

  it("counts a result as news for three days after the sample was taken", () => {
    const received = new Date(2026, 10, 25, 9, 0, 0);
    expect(isRecentEnough("2026-11-22 09:30:00", "2026-11-22 12:00:00", received)).to.equal(true);
    expect(isRecentEnough("2026-11-21 09:00:00", "2026-11-25 08:00:00", received)).to.equal(false);
    expect(isRecentEnough(null, "2026-11-24 08:00:00", received)).to.equal(true);
  });

  it("tells ingestion whether a report may raise an alert, never no where the reactor could say yes", () => {
    const received = new Date(2026, 10, 25, 9, 0, 0);
    const sent = (value: number, collectedAt: string) => ({
      collectedAt,
      reportedAt: "2026-11-25 08:00:00",
      items: [{ itemCode: "K", value, unit: "mmol/L" }],
    });
    const mapped = (value: number) => [{ stdCode: "K", stdName: "钾", stdValue: value, stdUnit: "mmol/L" }];
    expect(mayRaiseAlert(sent(6.9, "2026-11-25 07:00:00"), mapped(6.9), received)).to.equal(true);
    expect(mayRaiseAlert(sent(4.2, "2026-11-25 07:00:00"), mapped(4.2), received), "nothing critical").to.equal(false);
    expect(mayRaiseAlert(sent(6.9, "2026-11-20 07:00:00"), mapped(6.9), received), "taken five days before").to.equal(
      false,
    );
    // 72 h 30 min before: too old for the reactor on this clock, but the database's clock may run behind ours.
    expect(isRecentEnough("2026-11-22 08:30:00", "2026-11-25 08:00:00", received)).to.equal(false);
    expect(mayRaiseAlert(sent(6.9, "2026-11-22 08:30:00"), mapped(6.9), received)).to.equal(true);
    expect(
      mayRaiseAlert({ items: [{ itemCode: "K", value: 6.9 }] }, mapped(6.9), received),
      "no report time: the reactor decides",
    ).to.equal(true);
  });
});
