import { expect } from "chai";
import { CLINICAL_RELATION_NAMES } from "../../../commands/reports/spec/specVocabulary.ts";
import { CLINICAL_RELATIONS } from "../../../db/clinicalViews.ts";

describe("the spec vocabulary the editor shares", () => {
  it("completes exactly the relations the clinical data source defines", () => {
    expect([...CLINICAL_RELATION_NAMES].sort()).to.deep.equal([...CLINICAL_RELATIONS].sort());
  });
});
