import { expect } from "chai";
import { compareForClaim } from "../../queries/ingestion/claimCheck.ts";

describe("the check before claiming a report (compareForClaim, issue #34 item 2)", () => {
  const zhang = { patientRef: "P001", name: "张三", idCard: "11010519491231002X", hisPatientId: "H-1" };

  it("finds every fact the same for the patient's own report, the name spaced and the id card written in lower case", () => {
    const check = compareForClaim({ name: "张 三", idCard: "11010519491231002x", hisPatientId: " H-1 " }, zhang);
    expect(check.checks).to.deep.equal({
      name: "same",
      idCard: "same",
      birthDate: "same",
      sex: "same",
      hisPatientId: "same",
    });
    expect(check.report).to.deep.include({
      idCard: "110105********002X",
      idCardState: "valid",
      birthDate: "1949-12-31",
      sex: "F",
    });
    expect(check.patient).to.deep.equal({
      patientRef: "P001",
      name: "张三",
      idCard: "110105********002X",
      sex: "F",
      hisPatientId: "H-1",
    });
    expect(check.patient, "the patient's birth date is not given").not.to.have.property("birthDate");
  });

  it("says an invalid id card differs, and that its birth date and sex cannot be known", () => {
    const check = compareForClaim({ name: "张三", idCard: "110105194912310021", hisPatientId: null }, zhang);
    expect(check.report).to.deep.include({
      idCard: "110105********0021",
      idCardState: "invalid",
      birthDate: null,
      sex: null,
    });
    expect(check.checks).to.deep.equal({
      name: "same",
      idCard: "differs",
      birthDate: "unknown",
      sex: "unknown",
      hisPatientId: "unknown",
    });
  });

  it("knows nothing but the name of a report with neither id card nor HIS id, and nothing at all without a name", () => {
    expect(compareForClaim({ name: "李四", idCard: " ", hisPatientId: null }, zhang).checks).to.deep.equal({
      name: "differs",
      idCard: "unknown",
      birthDate: "unknown",
      sex: "unknown",
      hisPatientId: "unknown",
    });
    const blank = compareForClaim({ name: null, idCard: null, hisPatientId: null }, zhang);
    expect(Object.values(blank.checks)).to.deep.equal(["unknown", "unknown", "unknown", "unknown", "unknown"]);
    expect(blank.report).to.deep.include({ name: null, idCard: null, idCardState: "missing" });
  });
});
