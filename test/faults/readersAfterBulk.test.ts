import { expect } from "chai";
import { localDateTime } from "../../db/localDateTime.ts";
import { labReport, useIngestionService } from "../support/ingestion.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";
import { until } from "../support/service.ts";
import { sampleReaderHolds, type ReaderHold } from "../support/readerHolds.ts";

/*
 * Issue #52 finding 2: after a bulk import the delta checks' batches of 1,000 reports held their
 * transactions open 5-13 s, and every tenant's pushes became visible that much later (a
 * transaction that appends events holds back every reader). What a batch may take is bounded; the
 * push-to-visible figures are `npm run bench -- defence-readers`.
 */
const REPORTS = 3000;
/** No transaction that holds back the readers may run longer than this. */
const BOUND_MS = 2000;

describe("the transactions that hold back readers, while a bulk job's reports are judged", function () {
  this.timeout(300_000);
  const hub = useIngestionService();
  // The reactors' batches as they come by default: whole, until one takes too long.

  it(`stay under ${BOUND_MS / 1000} s each, from the job's end until every reactor has caught up`, async () => {
    // One patient's potassium swinging by 2 mmol/L from one collection to the next, in the last
    // days: every result a delta, every one recent enough to raise an alert.
    const now = Date.now();
    const lines = Array.from({ length: REPORTS }, (_, i) =>
      JSON.stringify(
        labReport(`AB-${i}`, {
          collectedAt: localDateTime(new Date(now - (REPORTS - i) * 60_000)),
          reportedAt: localDateTime(new Date(now - (REPORTS - i) * 60_000 + 30_000)),
          items: [
            { itemCode: "K", itemName: "钾", value: i % 2 ? 3.2 : 5.2, unit: "mmol/L" },
            { itemCode: "HGB", value: i % 2 ? 80 : 120, unit: "g/L" },
          ],
        }),
      ),
    );
    let holds: ReturnType<typeof sampleReaderHolds> | null = null;
    let longest: ReaderHold = { ms: 0, query: "" };
    try {
      const answer = await fetch(`${hub.service.url}/open/v1/lab/reports/bulk`, {
        method: "POST",
        headers: { authorization: `Bearer ${hub.tenant.client.key}`, "content-type": "application/x-ndjson" },
        body: `${lines.join("\n")}\n`,
      });
      expect(answer.status).to.equal(202);
      const { jobId } = ((await answer.json()) as { data: { jobId: string } }).data;
      await until(
        async () => {
          const job = (await (
            await fetch(`${hub.service.url}/open/v1/bulk/${jobId}`, {
              headers: { authorization: `Bearer ${hub.tenant.client.key}` },
            })
          ).json()) as { data: { status: string } };
          return job.data.status === "DONE";
        },
        240_000,
        200,
      );
      // While the job runs its own transactions (a piece of 250 reports each) hold the readers too:
      // the write path's (issue #59). From its end, the read models and reactors catch up.
      holds = sampleReaderHolds(hub.service.db);
      await projectionsCaughtUp(hub.service.url!, 240_000);
    } finally {
      if (holds) longest = await holds.stop();
    }
    const { rows } = await hub.service.db.query(
      "select count(*)::int as n from events where type = 'DeltaAlertRaised'",
    );
    expect(rows[0].n, "the reactor judged them all: a delta alert for nearly every one").to.be.greaterThan(REPORTS / 2);
    expect(longest.ms, `the longest: ${longest.query}`).to.be.below(BOUND_MS);
  });
});
