import { expect } from "chai";
import { sealPending } from "../../db/ledger.ts";
import { localDateTime } from "../../db/localDateTime.ts";
import { ADMIN } from "../support/http.ts";
import { examReport, labReport, LI_SI, useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

/*
 * Contract D.2: reconciliation answers carry a ledger receipt. The service seals every 60 s by
 * default, longer than these tests, so the test seals when it wants a seal to have happened.
 */

const DAY = "2026-04-07";
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("reconciliation: the ledger receipt (sealed, ledgerRoot)", () => {
  const hub = useIngestionService();
  const reconcile = (kind: "lab" | "exam", query: string) => hub.tenant.reconcile(kind, query);
  const newestRoot = async () =>
    (await hub.tenant.call("GET", "/api/admin/ledger", { token: ADMIN })).body.lastBlock.root as string;
  // Seals until every event appended so far is in a block: an event whose writer (a projection
  // appending alerts, say) had not committed yet when one sealing looked is sealed by the next.
  const seal = () =>
    until(async () => {
      await sealPending(hub.service.db);
      const { rows } = await hub.service.db.query(
        "select count(*)::int as n from events e where not exists (select 1 from ledger_event_hashes h where h.position = e.position)",
      );
      return rows[0].n === 0;
    }, 10_000);

  it("is unsealed with no root until the day's reports are sealed, then names the block that holds them", async () => {
    await hub.tenant.push("lab", [
      labReport("R1", { reportedAt: `${DAY} 08:00:00` }),
      labReport("R2", { reportedAt: `${DAY} 09:00:00`, patient: LI_SI }),
    ]);
    const before = await until(async () => {
      const day = await reconcile("lab", `date=${DAY}`);
      return day.labReportCount === 2 ? day : null;
    });
    expect(before).to.include({ sealed: false, ledgerRoot: null });

    await seal();
    const firstRoot = await newestRoot();
    expect(await reconcile("lab", `date=${DAY}`)).to.include({ sealed: true, ledgerRoot: firstRoot });
    const stillEarlier = localDateTime(new Date());
    await pause(1100);

    // A later report of the day: the day is unsealed again, and the receipt still names the newest block holding one of its reports.
    await hub.tenant.push("lab", [labReport("R3", { reportedAt: `${DAY} 10:00:00` })]);
    const grown = await until(async () => {
      const day = await reconcile("lab", `date=${DAY}`);
      return day.labReportCount === 3 ? day : null;
    });
    expect(grown).to.include({ sealed: false, ledgerRoot: firstRoot });
    expect(
      await reconcile("lab", `date=${DAY}&asOf=${encodeURIComponent(stillEarlier)}`),
      "as of before R3: only R1 and R2, sealed",
    ).to.deep.include({
      externalIds: ["R1", "R2"],
      sealed: true,
      ledgerRoot: firstRoot,
    });

    await seal();
    const secondRoot = await newestRoot();
    expect(secondRoot).to.not.equal(firstRoot);
    expect(await reconcile("lab", `date=${DAY}`)).to.include({ sealed: true, ledgerRoot: secondRoot });
    expect(await reconcile("lab", `date=${DAY}&asOf=${encodeURIComponent(stillEarlier)}`)).to.include({
      sealed: true,
      ledgerRoot: firstRoot,
    });

    // A claim is part of what the answer states (unmatchedCount): unsealed until it is sealed too.
    expect(
      (
        await hub.tenant.call("POST", "/api/unmatched/lab/R2/claim", {
          token: hub.tenant.authorToken,
          body: { patientRef: "P001" },
        })
      ).status,
    ).to.equal(200);
    const claimed = await until(async () => {
      const day = await reconcile("lab", `date=${DAY}`);
      return day.unmatchedCount === 0 ? day : null;
    });
    expect(claimed).to.include({ sealed: false, ledgerRoot: secondRoot });
    await seal();
    expect(await reconcile("lab", `date=${DAY}`)).to.include({ sealed: true, ledgerRoot: await newestRoot() });

    // The receipt is a root the ledger holds and proves.
    const verified = await hub.tenant.call("GET", "/api/admin/ledger/verify", { token: ADMIN });
    expect(verified.body).to.include({ ok: true });
    const roots = (await hub.service.db.query("select root from ledger_blocks")).rows.map((row) => row.root);
    expect(roots).to.include.members([firstRoot, secondRoot]);
  });

  it("covers only the kind asked for, and a day without reports is sealed with no root", async () => {
    await hub.tenant.push("exam", [examReport("X1", { reportedAt: `${DAY} 11:00:00` })]);
    await until(async () => (await reconcile("exam", `date=${DAY}`)).examReportCount === 1);
    expect(await reconcile("exam", `date=${DAY}`)).to.include({ sealed: false, ledgerRoot: null });
    expect(await reconcile("lab", `date=${DAY}`), "the lab reports are sealed already").to.include({ sealed: true });
    await seal();
    expect(await reconcile("exam", `date=${DAY}`)).to.include({ sealed: true, ledgerRoot: await newestRoot() });
    expect(await reconcile("lab", "date=2026-01-01")).to.include({ sealed: true, ledgerRoot: null });
    expect(await reconcile("lab", `date=2026-01-01&asOf=${encodeURIComponent(localDateTime(new Date()))}`)).to.include({
      sealed: true,
      ledgerRoot: null,
    });
  });
});
