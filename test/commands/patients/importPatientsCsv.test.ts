import { commandContext } from "../../../src/app/commandContexts.ts";
import { expect } from "chai";
import { importPatientsCsv } from "../../../commands/patients/importPatientsCsv.ts";
import { readAsTenant } from "../../../db/tenantScope.ts";
import { allProjections } from "../../../src/app/allProjections.ts";
import { listPatients } from "../../../queries/patients/patients.ts";
import { idCardRegister } from "../../../src/patients/registeredPatients.ts";
import { loadIdentifierHasher } from "../../../src/secrets/identifierKey.ts";
import { useTestService } from "../../support/service.ts";

const WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
/** A valid identity number from its first 17 digits (GB 11643-1999 check digit). */
function idCard(first17: string): string {
  const sum = [...first17].reduce((total, digit, i) => total + Number(digit) * WEIGHTS[i]!, 0);
  return first17 + "10X98765432"[sum % 11];
}
const ID_A = idCard("11010519800101001");
const ID_B = idCard("11010519800101002");
const ID_C = idCard("11010519800101003");
const ID_D = idCard("11010519800101004");
/** A number whose check digit is X, typed with 1 instead. */
const MISTYPED = "110105194912310021";

describe("importPatientsCsv", () => {
  const hub = useTestService({ projections: allProjections });
  let tenantCount = 0;
  const freshTenant = () => `csv${process.pid}_${tenantCount++}`;

  const run = async (tenant: string, csv: string) =>
    importPatientsCsv(
      commandContext(hub.service.eventStore, { actor: "test" }),
      idCardRegister(hub.service.db, await loadIdentifierHasher(hub.service.db, undefined)),
      tenant,
      csv,
    );
  const patientsOf = (tenant: string) => readAsTenant(hub.service.db, tenant, listPatients);

  it("imports every valid row: BOM, CRLF, optional columns, the ways of writing active", async () => {
    const tenant = freshTenant();
    const csv =
      "\uFEFFpatientRef,name,idCard,hisPatientId,ward,active\r\n" +
      `P1,张三,${ID_A},H001,3A,是\r\n` +
      `P2,李四,${ID_B.slice(0, 17)}${ID_B[17]!.toLowerCase()},,,否\r\n` +
      `P3, 王五 ,${ID_C},,,\r\n` +
      "\r\n" +
      `P4,"Zhao, Liu",${ID_D},H004,,FALSE\r\n`;
    const result = await run(tenant, csv);
    expect(result).to.deep.equal({ created: 4, updated: 0, unchanged: 0, rejected: [] });
    const patients = await patientsOf(tenant);
    expect(patients.map((p) => [p.patientRef, p.name, p.hisPatientId, p.ward, p.active])).to.deep.equal([
      ["P1", "张三", "H001", "3A", true],
      ["P2", "李四", null, null, false],
      ["P3", "王五", null, null, true],
      ["P4", "Zhao, Liu", "H004", null, false],
    ]);
    expect(patients[0]!.idCard).to.equal(`${ID_A.slice(0, 6)}********${ID_A.slice(14)}`);
  });

  it("reports each bad row with its line number and how to fix it, and imports the rest", async () => {
    const tenant = freshTenant();
    const csv = [
      "patientRef,name,idCard,ward,active", // line 1
      `P1,张三,${ID_A},3A,yes`,
      `P2,李四,${MISTYPED},3A,yes`, // line 3
      `P 3,王五,${ID_B},,`, // line 4
      `P4,赵六,${ID_C},,maybe`, // line 5
      `P5,,${ID_D},,`, // line 6
      `P6,钱七,${ID_D}`, // line 7: a field short
      `P1,张三,${ID_A},3B,yes`, // line 8: P1 twice
      `P7,孙八,${ID_C},,1`, // line 9
      `P8,"multi`, // line 10-11: a quoted field over two lines, then a missing idCard
      `line",,,`,
    ].join("\n");
    const result = await run(tenant, csv);
    expect(result.rejected).to.deep.equal([
      { line: 3, message: "idCard check digit should be X, not 1 — the number was probably mistyped" },
      {
        line: 4,
        message: "patientRef \"P 3\" must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit",
      },
      { line: 5, message: 'active is "maybe"; write true/false, 1/0, yes/no or 是/否 (empty means true)' },
      { line: 6, message: "name is empty: give the patient's name as registered" },
      {
        line: 7,
        message:
          "the row has fewer fields than the header's 5 columns; check for a missing or extra comma, and put a value that contains a comma in double quotes",
      },
      { line: 8, message: "patientRef P1 is also on line 2; keep one row per patient" },
      { line: 10, message: "idCard is empty: give the patient's 18-character national identity number" },
    ]);
    expect(result).to.include({ created: 2, updated: 0, unchanged: 0 });
    expect((await patientsOf(tenant)).map((p) => p.patientRef)).to.deep.equal(["P1", "P7"]);
  });

  it("counts unchanged and updated rows on a second import", async () => {
    const tenant = freshTenant();
    const first = `patientRef,name,idCard,ward\nP1,张三,${ID_A},3A\nP2,李四,${ID_B},3A\n`;
    expect(await run(tenant, first)).to.deep.equal({ created: 2, updated: 0, unchanged: 0, rejected: [] });
    expect(await run(tenant, first)).to.deep.equal({ created: 0, updated: 0, unchanged: 2, rejected: [] });
    const second = `patientRef,name,idCard,ward\nP1,张三,${ID_A},3A\nP2,李四,${ID_B},5C\nP3,王五,${ID_C},\n`;
    expect(await run(tenant, second)).to.deep.equal({ created: 1, updated: 1, unchanged: 1, rejected: [] });
    expect((await patientsOf(tenant)).find((p) => p.patientRef === "P2")!.ward).to.equal("5C");
  });

  it("refuses an identity number that another registered patient holds", async () => {
    const tenant = freshTenant();
    await run(tenant, `patientRef,name,idCard\nP1,张三,${ID_A}\n`);
    const result = await run(tenant, `patientRef,name,idCard\nP9,张三,${ID_A}\nP2,李四,${ID_B}\n`);
    expect(result.created).to.equal(1);
    expect(result.rejected).to.deep.equal([
      { line: 2, message: "idCard is already registered to patient P1; update that patient instead." },
    ]);
  });

  it("refuses a file with wrong or missing headers and imports nothing", async () => {
    const tenant = freshTenant();
    const wrong = await run(tenant, `patientRef,name,idcard,bed\nP1,张三,${ID_A},12\n`);
    expect(wrong.created).to.equal(0);
    expect(wrong.rejected).to.have.length(1);
    expect(wrong.rejected[0]!.line).to.equal(1);
    expect(wrong.rejected[0]!.message)
      .to.include('unknown column "bed"')
      .and.include("patientRef,name,idCard")
      .and.include("hisPatientId,ward,active");

    const missing = await run(tenant, `patientRef,name\nP1,张三\n`);
    expect(missing.rejected).to.have.length(1);
    expect(missing.rejected[0]!.message).to.include("missing column idCard");

    const broken = await run(tenant, `patientRef,name,idCard\nP1,"张三"x,${ID_A}\nP2,李四,${ID_B}\n`);
    expect(broken.rejected).to.have.length(1);
    expect(broken.rejected[0]).to.include({ line: 2 });
    expect(broken.rejected[0]!.message).to.include("not valid CSV");

    expect(await patientsOf(tenant)).to.deep.equal([]);
  });
});
