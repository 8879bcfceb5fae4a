import { expect } from "chai";
import { API_ERROR_CODES } from "../../commands/kit/errorCodes.ts";
import { ADMIN, httpClient } from "../support/http.ts";
import { ingestionTenant, labReport, LI_SI, useIngestionService, ZHANG_SAN } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

/*
 * Issue #34, item 6: the `/api` failures a person meets on the staff pages carry a stable `code`
 * beside their sentence (contract A.1), which the pages translate; the sentence is unchanged.
 */
describe("/api failures carry a stable code beside the unchanged sentence", () => {
  const hub = useIngestionService();
  const call = (method: string, path: string, body?: unknown, token: string | null = hub.tenant.authorToken) =>
    hub.tenant.call(method as "GET", path, { ...(token === null ? {} : { token }), body });

  const expectCoded = (
    answer: { status: number; body: any },
    status: number,
    code: (typeof API_ERROR_CODES)[number],
    sentence: RegExp,
  ) => {
    expect(answer.status, JSON.stringify(answer.body)).to.equal(status);
    expect(answer.body).to.have.all.keys("error", "code");
    expect(answer.body.code).to.equal(code);
    expect(answer.body.error).to.match(sentence);
  };

  it("saving a patient: an invalid id card, an id card of another patient, a patient that does not exist", async () => {
    expectCoded(
      await call("PUT", "/api/patients/P009", { name: LI_SI.name, idCard: "440524188001010015" }),
      400,
      "id-card-invalid",
      /^idCard check digit should be 4, not 5/,
    );
    expectCoded(
      await call("PUT", "/api/patients/P009", { name: "张三三", idCard: ZHANG_SAN.idCard }),
      409,
      "id-card-taken",
      /^idCard is already registered to patient P001; update that patient instead\.$/,
    );
    expectCoded(
      await call("GET", "/api/patients/NOPE"),
      404,
      "patient-not-found",
      /^No patient NOPE in this tenant; GET \/api\/patients lists them\.$/,
    );
  });

  it("checking, claiming and dismissing: an unknown report or patient, a report already matched", async () => {
    await hub.tenant.push("lab", [
      labReport("EC-1", { patient: { idCard: LI_SI.idCard, name: LI_SI.name } }),
      labReport("EC-2", { patient: ZHANG_SAN }),
    ]);
    await until(async () => (await hub.tenant.unmatched()).some((e) => e.externalId === "EC-1"));
    expectCoded(
      await call("GET", "/api/unmatched/lab/EC-1/check?patientRef=NOPE"),
      404,
      "claim-not-found",
      /^No report EC-1 awaits claiming, or there is no patient NOPE; GET \/api\/unmatched/,
    );
    expectCoded(
      await call("POST", "/api/unmatched/lab/EC-1/claim", { patientRef: "NOPE" }),
      404,
      "patient-not-found",
      /^There is no patient NOPE; register the patient with PUT \/api\/patients\/NOPE first\.$/,
    );
    expectCoded(
      await call("POST", "/api/unmatched/lab/NOPE/dismiss", { reason: "test" }),
      404,
      "report-not-found",
      /^There is no lab report with this externalId/,
    );
    await until(async () => (await call("POST", "/api/unmatched/lab/EC-2/dismiss", { reason: "test" })).status === 409);
    expectCoded(
      await call("POST", "/api/unmatched/lab/EC-2/dismiss", { reason: "test" }),
      409,
      "report-already-matched",
      /^This report is already matched to patient P001/,
    );
  });

  it("credentials: none, an unknown token, another tenant's, a role too small", async () => {
    expectCoded(
      await call("GET", "/api/unmatched", undefined, null),
      401,
      "credentials-missing",
      /^Send an author token/,
    );
    expectCoded(
      await call("GET", "/api/unmatched", undefined, "not-a-token"),
      401,
      "token-invalid",
      /^The token is not valid/,
    );
    const other = await ingestionTenant(hub.service, "h2");
    expectCoded(
      await call("GET", "/api/unmatched", undefined, other.authorToken),
      403,
      "tenant-mismatch",
      /^This credential belongs to another tenant/,
    );
    const viewer = (
      await httpClient(hub.service.url!)("POST", "/api/admin/authors", {
        token: ADMIN,
        body: { name: "Viewer Wu", tenant: "h1", roles: ["viewer"] },
      })
    ).body as { token: string };
    const refused = await call("PUT", "/api/patients/P010", { name: LI_SI.name, idCard: LI_SI.idCard }, viewer.token);
    expectCoded(refused, 403, "role-needed", /./);
  });

  it("a failure without a code is answered as before: { error } alone", async () => {
    const answer = await call("GET", "/api/bulk-jobs/not-a-job/rejected");
    expect(answer.status).to.equal(404);
    expect(Object.keys(answer.body)).to.deep.equal(["error"]);
  });
});
