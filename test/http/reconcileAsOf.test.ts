import { expect } from "chai";
import { examReportsProjection } from "../../projections/ingestion/examReports.ts";
import { labReportsProjection } from "../../projections/ingestion/labReports.ts";
import { rebuildProjection } from "../../projections/runtime/rebuild.ts";
import { localDateTime } from "../../db/localDateTime.ts";
import { silentLogger } from "../../src/logger.ts";
import { examReport, labReport, LI_SI, useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

/* Contract D.3: reconciliation as of a moment, from the events' own times. */

const DAY = "2026-03-05";
const NEXT_DAY = "2026-03-06";
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("reconciliation as of a moment (?asOf=)", () => {
  const hub = useIngestionService();
  let earlier: string;
  const reconcile = (kind: "lab" | "exam", query: string) => hub.tenant.reconcile(kind, query);

  before(async () => {
    // Before: A1 (matched) and A2 (李四, unknown to the centre) on DAY, and an exam report.
    await hub.tenant.push("lab", [
      labReport("A1", { reportedAt: `${DAY} 09:00:00` }),
      labReport("A2", { reportedAt: `${DAY} 10:00:00`, patient: LI_SI }),
    ]);
    await hub.tenant.push("exam", [examReport("E1", { reportedAt: `${DAY} 11:00:00` })]);
    await until(
      async () =>
        (await reconcile("lab", `date=${DAY}`)).labReportCount === 2 &&
        (await reconcile("exam", `date=${DAY}`)).examReportCount === 1,
    );
    await pause(1100);
    earlier = localDateTime(new Date());
    await pause(1100);
    // After: A1 moves to the next day, A3 arrives, A2 is claimed.
    await hub.tenant.push("lab", [
      labReport("A1", { reportedAt: `${NEXT_DAY} 09:00:00` }),
      labReport("A3", { reportedAt: `${DAY} 12:00:00` }),
    ]);
    expect(
      (
        await hub.tenant.call("POST", "/api/unmatched/lab/A2/claim", {
          token: hub.tenant.authorToken,
          body: { patientRef: "P001" },
        })
      ).status,
    ).to.equal(200);
    await until(async () => {
      const now = await reconcile(
        "lab",
        `date=${DAY}&asOf=${encodeURIComponent(localDateTime(new Date(Date.now() + 60_000)))}`,
      );
      return now.externalIds.join() === "A2,A3" && now.unmatchedCount === 0;
    });
  });

  it("answers what the call would have answered then: the reports stored by then, on the day they then had", async () => {
    const then = await reconcile("lab", `date=${DAY}&asOf=${encodeURIComponent(earlier)}`);
    expect(then).to.deep.include({
      date: DAY,
      asOf: earlier,
      labReportCount: 2,
      examReportCount: 1,
      unmatchedCount: 1,
      externalIds: ["A1", "A2"],
    });
    expect(then.externalIdDigest).to.match(/^sha256:[0-9a-f]{64}$/);
    expect((await reconcile("lab", `date=${NEXT_DAY}&asOf=${encodeURIComponent(earlier)}`)).externalIds).to.deep.equal(
      [],
    );
    expect(await reconcile("exam", `date=${DAY}&asOf=${encodeURIComponent(earlier)}`)).to.deep.include({
      externalIds: ["E1"],
      examReportCount: 1,
      labReportCount: 2,
    });
  });

  it("matches the answer without asOf for the present, its digest included, and answers a future moment as now", async () => {
    const plain = await reconcile("lab", `date=${DAY}`);
    const future = await reconcile("lab", `date=${DAY}&asOf=2999-01-01%2000:00:00`);
    const { asOf, ...rest } = future;
    expect(rest).to.deep.equal(plain);
    expect(plain).to.deep.include({ externalIds: ["A2", "A3"], unmatchedCount: 0 });
    expect(asOf)
      .to.match(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
      .and.not.equal("2999-01-01 00:00:00");
    expect(plain).not.to.have.property("asOf");
    expect((await reconcile("lab", `date=${NEXT_DAY}`)).externalIds).to.deep.equal(["A1"]);
  });

  it("gives the same answers after its read model is rebuilt by replay", async () => {
    const query = `date=${DAY}&asOf=${encodeURIComponent(earlier)}`;
    const first = await reconcile("lab", query);
    for (const projection of [labReportsProjection, examReportsProjection])
      expect((await rebuildProjection(hub.service.db, projection, silentLogger)).status).to.equal("rebuilt");
    expect(await reconcile("lab", query)).to.deep.equal(first);
  });

  it("refuses an asOf that is no local moment, in the envelope, saying how to write it", async () => {
    for (const asOf of [
      "2026-03-05",
      "2026-02-30 10:00:00",
      "2026-03-05T10:00:00",
      "2026-03-05 24:00:00",
      "yesterday",
    ]) {
      const answer = await hub.tenant.call(
        "GET",
        `/open/v1/reconcile/lab?date=${DAY}&asOf=${encodeURIComponent(asOf)}`,
        { token: hub.tenant.client.key },
      );
      expect(answer.status, asOf).to.equal(400);
      expect(answer.body).to.include({ code: 400, data: null });
      expect(answer.body.msg, asOf).to.match(/asOf must be a real local moment written yyyy-MM-dd HH:mm:ss/);
    }
    const badDate = await hub.tenant.call(
      "GET",
      `/open/v1/reconcile/lab?date=2026-13-01&asOf=${encodeURIComponent(earlier)}`,
      { token: hub.tenant.client.key },
    );
    expect(badDate.body.msg).to.match(/^date is required/);
  });
});
