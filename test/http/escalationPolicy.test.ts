import { expect } from "chai";
import { ADMIN } from "../support/http.ts";
import { useIngestionService } from "../support/ingestion.ts";

/*
 * Contract G.3: the tenant's escalation policy, put and read by an administrator; a call that
 * would not work is refused with a sentence saying how to write it.
 */
describe("the escalation policy (/api/alerts/escalation)", () => {
  const hub = useIngestionService({ env: { ALERT_WEBHOOK_SECRET: "escalation-secret-0123456789" } });
  const put = (body: unknown, token = ADMIN) => hub.tenant.call("PUT", "/api/alerts/escalation", { token, body });
  const policy = {
    wards: {
      A: [
        { afterMinutes: 0, notify: [{ channel: "email", to: "ward-a-nurses@hospital.example" }] },
        { afterMinutes: 15, notify: [{ channel: "email", to: "doctor-on-call@hospital.example" }] },
      ],
      "*": [{ afterMinutes: 2.5, notify: [{ channel: "webhook", url: "https://pager.hospital.example/hooks" }] }],
    },
    readBackRequired: true,
  };

  it("answers no policy before one is put: no ward, no read-back", async () => {
    const answer = await hub.tenant.call("GET", "/api/alerts/escalation", { token: ADMIN });
    expect(answer.status).to.equal(200);
    expect(answer.body).to.deep.equal({ wards: {}, readBackRequired: false });
  });

  it("puts the whole policy, answers it and reads it back with who put it when; the same again records nothing", async () => {
    const answer = await put(policy);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    expect(answer.body).to.deep.include(policy);
    expect(answer.body.setBy).to.equal("admin");
    expect(answer.body.setAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect((await hub.tenant.call("GET", "/api/alerts/escalation", { token: ADMIN })).body).to.deep.equal(answer.body);
    expect((await put(policy)).status).to.equal(200);
    const { rows } = await hub.service.db.query(
      "select count(*)::int as n from events where tenant = 'h1' and stream_id = 'alert-escalation:policy'",
    );
    expect(rows[0].n, "putting the policy in force again is no change").to.equal(1);
  });

  it("replaces the whole policy: a ward left out is gone", async () => {
    const answer = await put({ wards: { B: policy.wards.A } });
    expect(answer.body).to.deep.include({ wards: { B: policy.wards.A }, readBackRequired: false });
  });

  it("refuses a call that would not work, saying how to write it", async () => {
    const refused = async (body: unknown, sentence: RegExp) => {
      const answer = await put(body);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(400);
      expect(answer.body.error).to.match(sentence);
    };
    await refused(
      { wards: { A: [{ afterMinutes: -1, notify: [{ channel: "email", to: "a@b.example" }] }] } },
      /afterMinutes is 0 \(at once\) or more/,
    );
    await refused({ wards: { A: [{ afterMinutes: 5, notify: [] }] } }, /notify names at least one target/);
    await refused(
      { wards: { A: [{ afterMinutes: 5, notify: [{ channel: "email", to: "not an address" }] }] } },
      /to is one mail address/,
    );
    await refused(
      { wards: { A: [{ afterMinutes: 5, notify: [{ channel: "sms", to: "13800000000" }] }] } },
      /channel is "email" \(with to\) or "webhook" \(with url\)/,
    );
    await refused(
      {
        wards: {
          A: [
            { afterMinutes: 15, notify: [{ channel: "email", to: "a@b.example" }] },
            { afterMinutes: 0, notify: [{ channel: "email", to: "c@d.example" }] },
          ],
        },
      },
      /in the order of their afterMinutes/,
    );
    await refused({ wards: { A: [] }, escalate: true }, /Send \{ wards, readBackRequired \}/);
    await refused({ readBackRequired: "yes" }, /readBackRequired is true or false/);
    await refused(
      { wards: { "*": [{ afterMinutes: 0, notify: [{ channel: "webhook", url: "http://127.0.0.1:9000/hook" }] }] } },
      /wards\["\*"\]\[0\]\.notify\[0\]\.url: points at this machine.*127\.0\.0\.1: loopback.*ALERT_WEBHOOK_ALLOW_PRIVATE=1/,
    );
    await refused(
      { wards: { "*": [{ afterMinutes: 0, notify: [{ channel: "webhook", url: "http://169.254.169.254/latest" }] }] } },
      /link-local/,
    );
    await refused(
      { wards: { "*": [{ afterMinutes: 0, notify: [{ channel: "webhook", url: "http://localhost:9000/hook" }] }] } },
      /localhost: this machine/,
    );
  });

  it("is an administrator's: an author's and a clinician's token are refused", async () => {
    expect((await put(policy, hub.tenant.authorToken)).status).to.equal(403);
    const clinician = (
      await hub.tenant.call("POST", "/api/admin/authors", {
        token: ADMIN,
        body: { name: "Dr. Wang", tenant: "h1", roles: ["clinician"] },
      })
    ).body.token as string;
    expect((await put(policy, clinician)).status).to.equal(403);
    expect((await hub.tenant.call("GET", "/api/alerts/escalation", { token: clinician })).status).to.equal(403);
  });
});
