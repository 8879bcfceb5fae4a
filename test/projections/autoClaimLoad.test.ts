import { expect } from "chai";
import { NAME_DIFFERS, NO_PATIENT } from "../../commands/ingestion/patientMatching.ts";
import { appendToStream } from "../../db/eventStore.ts";
import { findLive } from "../../projections/runtime/generations.ts";
import { prepareProjections, rebuildProjection } from "../../projections/runtime/rebuild.ts";
import { autoClaimReactor } from "../../reactors/autoClaim.ts";
import { silentLogger } from "../../src/logger.ts";
import { useTestDatabase } from "../support/database.ts";

/*
 * The auto-claim reactor's load by set (loadWaiting) decides which reports still wait for a
 * patient from the reports' last events and the patients' events, where its batches follow every
 * event in order. A store the live reactor wrote always holds the claims it made; these histories
 * hold none (written before the reactor ran, or while it was stopped), so the rules the set load
 * restates must give what the batches give on their own: the same known patients and waiting reports.
 */

const ID_A = "11010519491231002X";
const ID_B = "11010119900307651X";

describe("auto-claim's load by set", () => {
  const database = useTestDatabase({ max: 10 });

  const received = (
    externalId: string,
    type: "LabReportReceived" | "ExamReportReceived",
    patient: { name?: string; idCard: string },
    pendingReason = NO_PATIENT,
  ) => ({
    streamId: `${type === "LabReportReceived" ? "lab-report:" : "exam-report:"}${externalId}`,
    event: {
      type,
      data: {
        externalId,
        report: { patient },
        match: { matched: false, idCard: patient.idCard, pendingReason },
        items: [],
        client: { clientId: "c", name: "c" },
      },
    },
  });
  const patient = (ref: string, name: string, idCard: string) => ({
    streamId: `patient:${ref}`,
    event: { type: "PatientRegistered", data: { name, idCard, hisPatientId: null, ward: null, active: true } },
  });
  const versions = new Map<string, number>();
  async function append(...writes: Array<{ streamId: string; event: { type: string; data: object } }>) {
    for (const { streamId, event } of writes) {
      const version = versions.get(streamId) ?? 0;
      const type = streamId.startsWith("patient:") && version > 0 ? "PatientUpdated" : event.type;
      await appendToStream(database.db, {
        tenant: "t1",
        streamId,
        expectedVersion: version,
        events: [{ ...event, type }],
        metadata: { actor: "test" },
      });
      versions.set(streamId, version + 1);
    }
  }

  async function ownTables(): Promise<{ known: unknown[]; pending: unknown[] }> {
    const schema = (await findLive(database.db, "auto_claim"))!.schemaName;
    const known = await database.db.query(`select * from ${schema}.known_patients order by 1, 2`);
    const pending = await database.db.query(`select * from ${schema}.pending_reports order by 1, 2, 3`);
    return { known: known.rows, pending: pending.rows };
  }

  it("leaves the same reports waiting as applying every event does, and loads by set", async function () {
    this.timeout(60_000);
    await append(
      // Known on arrival with a name that agrees (the push raced the registration): taken.
      patient("P1", "张三", ID_A),
      received("KNOWN", "LabReportReceived", { name: "张 三", idCard: ID_A }),
      // Known on arrival under another name: waits.
      received("OTHER-NAME", "LabReportReceived", { name: "李四", idCard: ID_A }, NAME_DIFFERS),
      // Nobody yet; then a patient registered with the id card and a name that agrees: taken.
      received("LATER", "ExamReportReceived", { name: "ＷＡＮＧ Wu", idCard: ID_B }),
      // No name: any holder of the id card takes it.
      received("NAMELESS", "LabReportReceived", { idCard: ID_B }),
      // Waits for a name that never comes.
      received("NEVER", "LabReportReceived", { name: "赵六", idCard: ID_B }),
      patient("P2", "wang wu", ID_B),
      // The holder of ID_A moves to ID_B before this report: nobody holds ID_A when it arrives, it waits.
      patient("P1", "张三", ID_B),
      received("MOVED-AWAY", "LabReportReceived", { name: "张三", idCard: ID_A }),
      // A report sent again after it waited: its last version decides.
      received("RESENT", "LabReportReceived", { name: "钱七", idCard: ID_A }),
      received("RESENT", "LabReportReceived", { name: "钱七", idCard: "110101199003076515" }),
    );

    const batches = { ...autoClaimReactor, loadThrough: undefined };
    await prepareProjections(database.db, [batches], silentLogger);
    const byBatches = await rebuildProjection(database.db, batches, silentLogger);
    expect(byBatches).to.include({ status: "rebuilt", loadedAtOnce: 0 });
    const applied = await ownTables();
    expect(
      applied.pending.map((row) => (row as { external_id: string }).external_id).sort(),
      "the batches' answer",
    ).to.deep.equal(["MOVED-AWAY", "NEVER", "OTHER-NAME", "RESENT"]);

    const bySet = await rebuildProjection(database.db, autoClaimReactor, silentLogger);
    expect(bySet.status).to.equal("rebuilt");
    expect(bySet.status === "rebuilt" && bySet.loadedAtOnce).to.be.greaterThan(0);
    expect(await ownTables()).to.deep.equal(applied);
  });
});
