import { expect } from "chai";
import { closedMonthDecider } from "../../../commands/quality/closeMonth.ts";
import type { QualityMonthClosed } from "../../../commands/quality/events.ts";
import { CommandError } from "../../../commands/kit/commandError.ts";
import type { StoredEvent } from "../../../db/eventStore.ts";

/** Contract G.2: a month closes once it has ended in TZ, once for each ward and once for the whole tenant. */
describe("closing a quality month (the decider)", () => {
  const command = (month: string, ward: string | null) => ({
    month,
    ward,
    closedBy: "Dr Li",
    currentMonth: "2026-11",
    position: 42,
    indicators: [],
  });
  const stored = (ward: string | null): StoredEvent<QualityMonthClosed> => ({
    type: "QualityMonthClosed",
    data: { month: "2026-10", ward, closedBy: "Dr Wang", position: 7, indicators: [] },
    position: 8,
    transactionId: "1",
    tenant: "h1",
    streamId: "quality-month:2026-10",
    streamVersion: 1,
    metadata: { actor: "Dr Wang" },
    recordedAt: new Date(),
  });
  const refusal = (decide: () => unknown) => {
    try {
      decide();
    } catch (error) {
      expect(error).to.be.instanceOf(CommandError);
      return { kind: (error as CommandError).kind, code: (error as CommandError).code };
    }
    return null;
  };
  const stateWith = (...wards: Array<string | null>) =>
    wards.map(stored).reduce(closedMonthDecider.evolve, closedMonthDecider.initialState());

  it("closes a month that has ended, freezing what it was given", () => {
    const [event] = closedMonthDecider.decide(command("2026-10", null), stateWith());
    expect(event).to.deep.equal({
      type: "QualityMonthClosed",
      data: { month: "2026-10", ward: null, closedBy: "Dr Li", position: 42, indicators: [] },
    });
  });

  it("refuses the current month and a later one", () => {
    for (const month of ["2026-11", "2026-12"])
      expect(refusal(() => closedMonthDecider.decide(command(month, null), stateWith()))).to.deep.equal({
        kind: "conflict",
        code: "month-not-ended",
      });
  });

  it("refuses a second close of the same ward or of the whole tenant, and closes another ward", () => {
    const closed = stateWith(null, "A");
    expect(refusal(() => closedMonthDecider.decide(command("2026-10", null), closed))).to.deep.include({
      code: "month-closed",
    });
    expect(refusal(() => closedMonthDecider.decide(command("2026-10", "A"), closed))).to.deep.include({
      code: "month-closed",
    });
    expect(closedMonthDecider.decide(command("2026-10", "B"), closed)).to.have.length(1);
  });
});
