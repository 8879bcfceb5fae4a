import { expect } from "chai";
import {
  decideCriticalResults,
  evolveCriticalResults,
  initialCriticalResultsState,
} from "../../../commands/alerts/criticalResults.ts";
import {
  decideDeltaAlerts,
  deltaAlertsDecider,
  deltaLimitedItems,
  evolveDeltaAlerts,
  initialDeltaAlertsState,
  deltaHandling,
  judgeResult,
  type JudgedReport,
} from "../../../commands/alerts/deltaChecks.ts";
import { deltaBeyondLimit } from "../../../commands/alerts/deltaRule.ts";
import type { CriticalResultEvent } from "../../../commands/alerts/events.ts";
import type { StoredEvent } from "../../../db/eventStore.ts";
import { loadDefaultDictionary } from "../../../db/seed/defaultDictionary.ts";

const dictionary = loadDefaultDictionary();
const items = deltaLimitedItems(dictionary);
const potassium = items.get("K")!;
const ipth = items.get("IPTH")!;
const absolute = { limit: 1.5, percent: false, days: 30 };

let position = 100;
function stored(
  events: CriticalResultEvent[],
  cause: number,
  actor = "delta-checks",
): StoredEvent<CriticalResultEvent>[] {
  return events.map((event) => ({
    ...event,
    position: ++position,
    transactionId: "1",
    tenant: "h1",
    streamId: "critical-results:R2",
    streamVersion: 1,
    metadata: { actor, causationId: String(cause) },
    recordedAt: new Date(),
  }));
}
const result = (
  value: number,
  at: string,
  itemIndex = 0,
  { inRange = null, critical = false }: { inRange?: boolean | null; critical?: boolean } = {},
) => ({ externalId: "R2", itemIndex, value, at, flag: null, inRange, critical });
const previous = (value: number, at: string, inRange: boolean | null = null) => ({
  value,
  at,
  externalId: "R1",
  inRange,
});
const judged = (findings: JudgedReport["findings"], overrides: Partial<JudgedReport> = {}): JudgedReport => ({
  externalId: "R2",
  patientRef: "P001",
  collectedAt: "2026-11-25 07:00:00",
  reportedAt: "2026-11-25 09:00:00",
  codes: null,
  findings,
  mayRaise: true,
  ...overrides,
});
let ids = 0;
const newId = () => `D${++ids}`;

describe("delta checks: the rule, and what a judgement does to a report's delta alerts", () => {
  it("exceeds an absolute limit only beyond it, either way, within the days", () => {
    expect(
      deltaBeyondLimit({ value: 5.4, at: "2026-11-25T07:00:00" }, { value: 3.6, at: "2026-11-23T07:00:00" }, absolute),
    ).to.deep.equal({ change: 1.8 });
    expect(
      deltaBeyondLimit({ value: 3.6, at: "2026-11-25T07:00:00" }, { value: 5.4, at: "2026-11-23T07:00:00" }, absolute),
    ).to.deep.equal({ change: -1.8 });
    expect(
      deltaBeyondLimit({ value: 5.1, at: "2026-11-25T07:00:00" }, { value: 3.6, at: "2026-11-23T07:00:00" }, absolute),
      "a change equal to the limit is within it",
    ).to.equal(null);
    expect(
      deltaBeyondLimit({ value: 5.4, at: "2026-11-25T07:00:00" }, { value: 3.6, at: "2026-10-26T07:00:00" }, absolute),
      "exactly 30 days before",
    ).to.deep.equal({ change: 1.8 });
    expect(
      deltaBeyondLimit({ value: 5.4, at: "2026-11-25T07:00:00" }, { value: 3.6, at: "2026-10-26T06:59:59" }, absolute),
      "more than 30 days before",
    ).to.equal(null);
  });

  it("exceeds a percent limit relative to the previous value, and cannot judge a move from zero", () => {
    const percent = { limit: 50, percent: true, days: 30 };
    expect(
      deltaBeyondLimit({ value: 451, at: "2026-11-25 07:00:00" }, { value: 300, at: "2026-11-20 07:00:00" }, percent),
    ).to.deep.equal({ change: 151 });
    expect(
      deltaBeyondLimit({ value: 450, at: "2026-11-25 07:00:00" }, { value: 300, at: "2026-11-20 07:00:00" }, percent),
      "50 % is within",
    ).to.equal(null);
    expect(
      deltaBeyondLimit({ value: 140, at: "2026-11-25 07:00:00" }, { value: 300, at: "2026-11-20 07:00:00" }, percent),
    ).to.deep.equal({ change: -160 });
    expect(
      deltaBeyondLimit({ value: 5, at: "2026-11-25 07:00:00" }, { value: 0, at: "2026-11-20 07:00:00" }, percent),
    ).to.equal(null);
  });

  it("says in words how far the result moved, from what and when, and which limit it passed", () => {
    const finding = judgeResult(potassium, result(5.4, "2026-11-25T07:00:00", 3), previous(3.6, "2026-11-23T07:00:00"));
    expect(finding).to.deep.include({
      code: "K",
      name: "钾",
      value: 5.4,
      unit: "mmol/L",
      itemIndex: 3,
      previous: 3.6,
      previousAt: "2026-11-23T07:00:00",
      previousExternalId: "R1",
      change: 1.8,
    });
    expect(finding!.limit).to.deep.equal(absolute);
    expect(finding!.reason).to.equal(
      "changed by +1.8 mmol/L from 3.6 mmol/L on 2026-11-23, beyond the delta limit 1.5 mmol/L within 30 days",
    );
    expect(
      judgeResult(ipth, result(100, "2026-11-25T07:00:00"), previous(400, "2026-11-01T07:00:00"))!.reason,
    ).to.contain("beyond the delta limit 50 % within 30 days");
    expect(judgeResult(potassium, result(5.4, "2026-11-25T07:00:00"), null), "no previous result").to.equal(null);
  });

  it("raises one alert a code, keeps it while the result stays beyond, and closes it when a judgement no longer finds it", () => {
    const finding = judgeResult(potassium, result(5.4, "2026-11-25T07:00:00"), previous(3.6, "2026-11-23T07:00:00"))!;
    const raised = decideDeltaAlerts(initialDeltaAlertsState(), judged([finding]), newId);
    expect(raised.map((event) => event.type)).to.deep.equal(["DeltaAlertRaised"]);
    expect(raised[0]!.data).to.deep.include({
      externalId: "R2",
      patientRef: "P001",
      code: "K",
      change: 1.8,
      previousExternalId: "R1",
    });
    const state = stored(raised, 200).reduce(evolveDeltaAlerts, initialDeltaAlertsState());
    expect(decideDeltaAlerts(state, judged([finding]), newId), "still beyond: the alert stands").to.deep.equal([]);
    expect(
      decideDeltaAlerts(state, judged([], { codes: ["HGB"] }), newId),
      "another item judged: left alone",
    ).to.deep.equal([]);
    const closed = decideDeltaAlerts(state, judged([], { codes: ["K"] }), newId);
    expect(closed).to.deep.equal([
      {
        type: "DeltaAlertClosed",
        data: {
          alertId: raised[0]!.data.alertId,
          reason: "the result no longer differs from the previous one by more than the delta limit",
        },
      },
    ]);
  });

  it("raises nothing for a result too old at receipt, but still closes; an unmatched report's alerts close", () => {
    const finding = judgeResult(potassium, result(5.4, "2026-11-25T07:00:00"), previous(3.6, "2026-11-23T07:00:00"))!;
    expect(decideDeltaAlerts(initialDeltaAlertsState(), judged([finding], { mayRaise: false }), newId)).to.deep.equal(
      [],
    );
    const state = stored(decideDeltaAlerts(initialDeltaAlertsState(), judged([finding]), newId), 300).reduce(
      evolveDeltaAlerts,
      initialDeltaAlertsState(),
    );
    expect(decideDeltaAlerts(state, judged([], { mayRaise: false }), newId).map((event) => event.type)).to.deep.equal([
      "DeltaAlertClosed",
    ]);
    expect(
      decideDeltaAlerts(state, judged([finding], { patientRef: null }), newId).map((event) => event.type),
    ).to.deep.equal(["DeltaAlertClosed"]);
  });

  it("reacts once to an event, whatever order the events of other reports reach it in", () => {
    const finding = judgeResult(potassium, result(5.4, "2026-11-25T07:00:00"), previous(3.6, "2026-11-23T07:00:00"))!;
    const decider = deltaAlertsDecider(newId);
    const state = stored(decider.decide({ cause: 500, report: judged([finding]) }, decider.initialState()), 500).reduce(
      decider.evolve,
      decider.initialState(),
    );
    expect(
      decider.decide({ cause: 500, report: judged([], { codes: ["K"] }) }, state),
      "the same event again",
    ).to.deep.equal([]);
    expect(
      decider.decide({ cause: 450, report: judged([], { codes: ["K"] }) }, state),
      "an earlier position, met later",
    ).to.have.length(1);
  });

  it("keeps the two kinds apart: the critical decider never closes a delta alert; either kind can be acknowledged", () => {
    const finding = judgeResult(potassium, result(5.4, "2026-11-25T07:00:00"), previous(3.6, "2026-11-23T07:00:00"))!;
    const events = stored(decideDeltaAlerts(initialDeltaAlertsState(), judged([finding]), newId), 600);
    const critical = events.reduce(evolveCriticalResults, initialCriticalResultsState());
    expect(critical.alerts.map((alert) => alert.kind)).to.deep.equal(["DELTA"]);
    expect(critical.lastCause, "the delta reactor's causes are not the critical reactor's").to.equal(0);
    expect(
      decideCriticalResults(
        critical,
        { externalId: "R2", patientRef: "P001", collectedAt: null, reportedAt: "2026-11-25 09:00:00", findings: [] },
        newId,
      ),
    ).to.deep.equal([]);
    const criticalRaised = stored(
      [
        {
          type: "CriticalResultRaised",
          data: {
            alertId: "C1",
            externalId: "R2",
            itemIndex: 0,
            patientRef: "P001",
            code: "K",
            name: "钾",
            value: 6.9,
            unit: "mmol/L",
            flag: null,
            reason: "x",
            collectedAt: null,
            reportedAt: "2026-11-25 09:00:00",
          },
        },
      ],
      601,
      "critical-results",
    );
    const delta = [...events, ...criticalRaised].reduce(evolveDeltaAlerts, initialDeltaAlertsState());
    expect(delta.alerts).to.have.length(1);
    expect(delta.reactedTo).to.deep.equal([600]);
  });

  it("hands the change of a critical result to its critical alert, and shows a return inside the reference range as information (decision 0073)", () => {
    const at = "2026-11-25T07:00:00";
    const before = "2026-11-23T07:00:00";
    expect(judgeResult(potassium, result(6.9, at, 0, { critical: true }), previous(5.0, before, true))).to.deep.include(
      {
        handledAs: "critical",
      },
    );
    expect(
      judgeResult(potassium, result(5.1, at, 0, { inRange: true }), previous(6.9, before, false)),
      "6.9 (outside) then 5.1 (inside): back to normal",
    ).to.deep.include({ handledAs: "info" });
    for (const [now, then, why] of [
      [false, true, "inside then outside: an alert"],
      [true, true, "inside both times: an alert"],
      [true, null, "the previous range not known: an alert"],
      [null, false, "this range not known: an alert"],
    ] as const)
      expect(
        judgeResult(potassium, result(5.1, at, 0, { inRange: now }), previous(3.0, before, then)),
        why,
      ).to.not.have.property("handledAs");
    expect(deltaHandling(true, true, false), "a critical result is carried, whatever its range").to.equal("critical");
  });

  it("closes a standing change whose handling changed, saying why, and raises it handled anew", () => {
    const at = "2026-11-25T07:00:00";
    const before = "2026-11-23T07:00:00";
    const alert = judgeResult(potassium, result(5.4, at, 0, { inRange: true }), previous(3.0, before, null))!;
    const raised = stored(decideDeltaAlerts(initialDeltaAlertsState(), judged([alert]), newId), 700);
    const state = raised.reduce(evolveDeltaAlerts, initialDeltaAlertsState());
    const info = judgeResult(potassium, result(5.4, at, 0, { inRange: true }), previous(3.0, before, false))!;
    const anew = decideDeltaAlerts(state, judged([info]), newId);
    expect(
      anew.map((event) => [event.type, event.type === "DeltaAlertRaised" ? event.data.handledAs : event.data]),
    ).to.deep.equal([
      [
        "DeltaAlertClosed",
        {
          alertId: raised[0]!.data.alertId,
          reason: "the value is back inside the reference range: the change is shown as information",
        },
      ],
      ["DeltaAlertRaised", "info"],
    ]);
    const infoState = stored(anew, 701).reduce(evolveDeltaAlerts, state);
    expect(decideDeltaAlerts(infoState, judged([info]), newId), "handled the same: it stands").to.deep.equal([]);
    expect(
      decideDeltaAlerts(infoState, judged([alert], { mayRaise: false }), newId),
      "nothing raised anew where nothing may be raised",
    ).to.deep.equal([]);
  });

  it("knows, in the state acknowledgements are decided on, a change that is no alert of its own", () => {
    const critical = judgeResult(
      potassium,
      result(6.9, "2026-11-25T07:00:00", 0, { critical: true }),
      previous(5.0, "2026-11-23T07:00:00"),
    )!;
    const events = stored(decideDeltaAlerts(initialDeltaAlertsState(), judged([critical]), newId), 800);
    const state = events.reduce(evolveCriticalResults, initialCriticalResultsState());
    expect(state.alerts.map((alert) => [alert.kind, alert.handledAs])).to.deep.equal([["DELTA", "critical"]]);
  });
});
