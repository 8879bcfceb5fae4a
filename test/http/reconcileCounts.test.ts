import { createHash } from "node:crypto";
import { expect } from "chai";
import { examReport, labReport, useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

/** An exam report of 张三 (P001) issued at `reportedAt`. */
const examOn = (externalId: string, reportedAt: string, overrides: Record<string, unknown> = {}) =>
  examReport(externalId, { reportedAt, examinedAt: `${reportedAt.slice(0, 10)} 07:50:00`, ...overrides });

const UNKNOWN_PATIENT = { patient: { hisPatientId: "H-404" } };
/** Code-point order: the order of the UTF-8 bytes (JavaScript's default sort compares UTF-16 units). */
const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
const digestOf = (ids: string[]) => `sha256:${createHash("sha256").update(ids.join("\n"), "utf8").digest("hex")}`;

describe("daily reconciliation: counts and exam ids (GET /open/v1/reconcile/{lab|exam})", () => {
  const hub = useIngestionService();

  const reconcile = async (kind: "lab" | "exam", date: string) =>
    (await hub.tenant.reconcile(kind, `date=${date}`)) as {
      date: string;
      labReportCount: number;
      examReportCount: number;
      unmatchedCount: number;
      externalIdDigest: string;
      externalIds: string[];
      sealed: boolean;
      ledgerRoot: string | null;
    };
  /** The day's reconciliation once the read models hold what the test pushed. */
  const reconcileWhen = (
    kind: "lab" | "exam",
    date: string,
    ready: (data: Awaited<ReturnType<typeof reconcile>>) => boolean,
  ) =>
    until(async () => {
      const data = await reconcile(kind, date);
      return ready(data) ? data : null;
    }, 8000);
  const decide = (kind: "lab" | "exam", externalId: string, action: "claim" | "dismiss") =>
    hub.tenant.call("POST", `/api/unmatched/${kind}/${externalId}/${action}`, {
      token: hub.tenant.authorToken,
      body: action === "claim" ? { patientRef: "P001" } : { reason: "sent to the wrong hospital" },
    });

  it("counts in unmatchedCount the lab and exam reports of the day awaiting claim, leaving out dismissed and claimed ones", async () => {
    const day = "2026-05-03";
    await hub.tenant.push("lab", [
      labReport("RC-L-MATCHED", { reportedAt: `${day} 09:00:00` }),
      ...["RC-L-WAIT", "RC-L-DISMISS", "RC-L-CLAIM"].map((id) =>
        labReport(id, { reportedAt: `${day} 23:59:59`, ...UNKNOWN_PATIENT }),
      ),
      // The next day's report waits too, but is not this day's.
      labReport("RC-L-NEXTDAY", { reportedAt: "2026-05-04 00:00:00", ...UNKNOWN_PATIENT }),
    ]);
    await hub.tenant.push("exam", [
      examOn("RC-E-MATCHED", `${day} 10:00:00`),
      ...["RC-E-WAIT", "RC-E-DISMISS", "RC-E-CLAIM"].map((id) => examOn(id, `${day} 00:00:00`, UNKNOWN_PATIENT)),
      examOn("RC-E-NEXTDAY", "2026-05-04 08:00:00", UNKNOWN_PATIENT),
    ]);
    const waiting = await reconcileWhen("lab", day, (d) => d.labReportCount === 4 && d.examReportCount === 4);
    expect(waiting.unmatchedCount, "all six unmatched reports of the day wait").to.equal(6);

    for (const kind of ["lab", "exam"] as const) {
      const tag = kind === "lab" ? "L" : "E";
      expect((await decide(kind, `RC-${tag}-DISMISS`, "dismiss")).status).to.equal(200);
      expect((await decide(kind, `RC-${tag}-CLAIM`, "claim")).status).to.equal(200);
    }

    const settled = await reconcile("lab", day);
    expect(
      { lab: settled.labReportCount, exam: settled.examReportCount, unmatched: settled.unmatchedCount },
      "dismissed and claimed reports stay counted as the day's reports",
    ).to.deep.equal({
      lab: 4,
      exam: 4,
      unmatched: 2,
    });
    expect((await reconcile("exam", day)).unmatchedCount, "the exam reconciliation counts the same").to.equal(2);
  });

  it("lists the day's exam ids in code-point order with their digest and count", async () => {
    const day = "2026-05-06";
    // "ｚ" (U+FF5A) comes before "😀" (U+1F600) by code point, after it by UTF-16 unit.
    const ids = ["RE-b", "RE-B", "RE-a", "RE-10", "RE-9", "RE-é", "RE-😀", "RE-ｚ"];
    await hub.tenant.push(
      "exam",
      ids.map((id, i) => examOn(id, `${day} ${String(8 + i).padStart(2, "0")}:00:00`)),
    );
    // Examined the evening before, reported this day: it belongs to the day it was reported.
    await hub.tenant.push("exam", [examOn("RE-late", `${day} 07:00:00`, { examinedAt: "2026-05-05 22:30:00" })]);
    // Not this day's exam ids: a lab report of the day, and an exam report of the next day.
    await hub.tenant.push("lab", [labReport("RE-lab", { reportedAt: `${day} 12:00:00` })]);
    await hub.tenant.push("exam", [examOn("RE-tomorrow", "2026-05-07 08:00:00")]);

    const expected = [...ids, "RE-late"].sort(byCodePoint);
    expect(expected.indexOf("RE-ｚ")).to.be.lessThan(expected.indexOf("RE-😀"));
    const data = await reconcileWhen(
      "exam",
      day,
      (d) => d.examReportCount === expected.length && d.labReportCount === 1,
    );
    const { sealed, ledgerRoot, ...b5 } = data;
    expect([typeof sealed, ledgerRoot === null || typeof ledgerRoot === "string"]).to.deep.equal(["boolean", true]);
    expect(b5).to.deep.equal({
      date: day,
      labReportCount: 1,
      examReportCount: expected.length,
      unmatchedCount: 0,
      externalIdDigest: digestOf(expected),
      externalIds: expected,
    });
    expect((await reconcile("lab", day)).externalIds, "the lab list of the day holds only lab ids").to.deep.equal([
      "RE-lab",
    ]);
  });

  it("answers a day without exam reports with an empty list and the digest of the empty text", async () => {
    const data = await reconcile("exam", "2026-05-20");
    expect(data).to.deep.include({ examReportCount: 0, externalIds: [], externalIdDigest: digestOf([]) });
    expect(data.externalIdDigest).to.equal("sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  for (const kind of ["exam", "lab"] as const) {
    it(`moves an updated ${kind} report to the day of its new reportedAt`, async () => {
      const id = `RM-${kind}`;
      const send = (reportedAt: string) =>
        kind === "exam"
          ? hub.tenant.push("exam", [examOn(id, reportedAt)])
          : hub.tenant.push("lab", [labReport(id, { reportedAt })]);
      await send("2026-05-10 16:00:00");
      await reconcileWhen(kind, "2026-05-10", (d) => d.externalIds.includes(id));

      const moved = await send("2026-05-11 09:00:00");
      expect(moved.body.data.results[0].status).to.equal("UPDATED");
      const newDay = await reconcileWhen(kind, "2026-05-11", (d) => d.externalIds.includes(id));
      expect(newDay.externalIds).to.deep.equal([id]);
      const firstDay = await reconcile(kind, "2026-05-10");
      expect(firstDay.externalIds, "the first day's list no longer holds it").to.deep.equal([]);
      expect(firstDay[kind === "exam" ? "examReportCount" : "labReportCount"]).to.equal(0);
      expect(firstDay.externalIdDigest).to.equal(digestOf([]));
    });
  }
});
