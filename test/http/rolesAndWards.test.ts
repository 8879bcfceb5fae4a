import { expect } from "chai";
import { localDateTime } from "../../db/localDateTime.ts";
import { NATIONAL_ID_SYSTEM } from "../../src/ingestion/fhir/bundleToLabReports.ts";
import { makeIdCard } from "../../src/demo/demoData.ts";
import { ADMIN, httpClient } from "../support/http.ts";
import { sessionCookieOf, useServiceWithProvider } from "../support/openIdProvider.ts";
import { until } from "../support/service.ts";

/**
 * Contract E.2 over HTTP: an author token's roles and wards, and a staff session's, decide what
 * its holder may call and which patients they see; the server enforces it whatever a page shows.
 */
describe("roles and ward scopes of tokens and sessions (E.2)", function () {
  this.timeout(60_000);
  const hub = useServiceWithProvider();
  let call: ReturnType<typeof httpClient>;
  const tokenWith = async (body: Record<string, unknown>) => {
    const made = await call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: "Staff", tenant: "default", ...body },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    return made.body.token as string;
  };

  before(async () => {
    call = httpClient(hub.service.url!);
    for (const [ref, ward, n] of [
      ["R-3A", "3A", 41],
      ["R-5B", "5B", 42],
    ] as const) {
      const saved = await call("PUT", `/api/patients/${ref}`, {
        token: ADMIN,
        body: { name: `病人${ref}`, idCard: makeIdCard("110105", "19550101", n), ward },
      });
      expect(saved.status).to.equal(200);
    }
  });

  it("keeps a token made without roles an author's, as every token made before", async () => {
    const token = await tokenWith({});
    expect((await call("GET", "/api/patients", { token })).status).to.equal(200);
    expect(
      (
        await call("PUT", "/api/reports/roles-r1/draft", {
          token,
          body: { title: "R1", spec: { queries: {}, layout: [] } },
        })
      ).status,
    ).to.not.equal(403);
    const listed = (await call("GET", "/api/admin/authors", { token: ADMIN })).body as Array<{
      roles: string[];
      wards: string[] | null;
    }>;
    expect(listed.at(-1)).to.deep.include({ roles: ["author"], wards: null });
  });

  it("refuses a viewer the patients and a clinician the authoring, naming the role needed", async () => {
    const viewer = await tokenWith({ roles: ["viewer"] });
    const patients = await call("GET", "/api/patients", { token: viewer });
    expect(patients.status).to.equal(403);
    expect(patients.body.error).to.include("needs the role clinician").and.to.include("this caller has viewer");
    expect((await call("GET", "/api/reports", { token: viewer })).status, "viewing stays open").to.equal(200);

    const clinician = await tokenWith({ roles: ["clinician"] });
    expect((await call("GET", "/api/patients", { token: clinician })).status).to.equal(200);
    const draft = await call("PUT", "/api/reports/roles-r2/draft", {
      token: clinician,
      body: { title: "R2", spec: { queries: {}, layout: [] } },
    });
    expect(draft.status).to.equal(403);
    expect(draft.body.error).to.include("needs the role author");
  });

  it("shows a token with wards only its wards' patients; another ward's patient is not there", async () => {
    const token = await tokenWith({ roles: ["clinician"], wards: ["3A"] });
    const listed = await call("GET", "/api/patients", { token });
    expect(listed.body.map((patient: { patientRef: string }) => patient.patientRef)).to.deep.equal(["R-3A"]);
    expect((await call("GET", "/api/patients/R-3A/results", { token })).status).to.equal(200);
    expect((await call("GET", "/api/patients/R-5B/results", { token })).status).to.equal(404);
    expect((await call("GET", "/api/patients/R-3A/result-items", { token })).status).to.equal(200);
    expect((await call("GET", "/api/patients/R-5B/result-items", { token })).status, "another ward's items").to.equal(
      404,
    );
  });

  it("shows one patient to a clinician of its ward; another ward's answers 404 as one that does not exist, and a viewer 403 naming the role", async () => {
    const token = await tokenWith({ roles: ["clinician"], wards: ["3A"] });
    const own = await call("GET", "/api/patients/R-3A", { token });
    expect(own.status).to.equal(200);
    expect(own.body).to.deep.include({ patientRef: "R-3A", name: "病人R-3A", ward: "3A", active: true });
    const other = await call("GET", "/api/patients/R-5B", { token });
    expect(other.status).to.equal(404);
    const unknown = await call("GET", "/api/patients/R-NONE", { token });
    expect(other.body, "the same answer as a patient that does not exist").to.deep.equal({
      ...unknown.body,
      error: unknown.body.error.replace("R-NONE", "R-5B"),
    });
    expect(
      (await call("GET", "/api/patients/R-5B", { token: await tokenWith({ roles: ["clinician"] }) })).status,
      "a clinician of every ward",
    ).to.equal(200);

    const viewer = await call("GET", "/api/patients/R-3A", { token: await tokenWith({ roles: ["viewer"] }) });
    expect(viewer.status).to.equal(403);
    expect(viewer.body.error).to.include("needs the role clinician").and.to.include("this caller has viewer");

    // The attempt on another ward's patient is in that patient's access log (E.4), as not found.
    const attempt = await until(async () => {
      const log = await call("GET", "/api/patients/R-5B/access-log", { token: ADMIN });
      return (log.body as Array<Record<string, unknown>>).find(
        (record) => record.action === "GET /api/patients/{patientRef}" && record.outcome === "not-found",
      );
    });
    expect(attempt).to.deep.include({ roles: ["clinician"], patientRefs: ["R-5B"] });
  });

  it("streams to a caller with wards only the alerts of its wards' patients", async () => {
    const token = await tokenWith({ roles: ["clinician"], wards: ["3A"] });
    const client = (
      await call("POST", "/api/admin/clients", { token: ADMIN, body: { name: "Lab", tenant: "default" } })
    ).body as { key: string };
    const controller = new AbortController();
    const listen = async (bearer: string) => {
      const stream = await fetch(`${hub.service.url}/api/alerts/stream`, {
        headers: { authorization: `Bearer ${bearer}` },
        signal: controller.signal,
      });
      expect(stream.status).to.equal(200);
      const seen: string[] = [];
      const reading = (async () => {
        const decoder = new TextDecoder();
        for await (const chunk of stream.body!) seen.push(decoder.decode(chunk));
      })().catch(() => {});
      return { seen, reading };
    };
    // A caller with wards opens its stream first (and so the feed's connection), then one without.
    const scoped = await listen(token);
    const everyWard = await listen(ADMIN);
    const critical = (ref: string, n: number) => ({
      externalId: `ALERT-${ref}`,
      patient: { idCard: makeIdCard("110105", "19550101", n), name: `病人${ref}` },
      collectedAt: localDateTime(new Date(Date.now() - 3_600_000)),
      reportedAt: localDateTime(new Date()),
      status: "FINAL",
      items: [{ itemCode: "K", itemName: "钾", value: 6.9, unit: "mmol/L" }],
    });
    const pushed = await call("POST", "/open/v1/lab/reports", {
      token: client.key,
      body: { reports: [critical("R-5B", 42), critical("R-3A", 41)] },
    });
    expect(pushed.status).to.equal(200);
    await until(async () => scoped.seen.join("").includes("ALERT-R-3A"), 10_000);
    await until(
      async () => everyWard.seen.join("").includes("ALERT-R-3A") && everyWard.seen.join("").includes("ALERT-R-5B"),
      10_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    controller.abort();
    await Promise.all([scoped.reading, everyWard.reading]);
    expect(scoped.seen.join(""), "another ward's alert").not.to.include("ALERT-R-5B");
  });

  it("lists, counts and acknowledges only its wards' alerts; another ward's report, its history and its FHIR resources are not there", async () => {
    // The alerts ALERT-R-3A and ALERT-R-5B were raised by the stream case above.
    const token = await tokenWith({ roles: ["clinician"], wards: ["3A"] });
    const listed = ((await call("GET", "/api/alerts", { token })).body as Array<{ externalId: string }>).map(
      (alert) => alert.externalId,
    );
    expect(listed).to.include("ALERT-R-3A").and.not.to.include("ALERT-R-5B");
    const count = async (bearer: string) =>
      ((await call("GET", "/api/alerts/count", { token: bearer })).body as { open: number }).open;
    expect(await count(token), "only its ward's open alert").to.equal((await count(ADMIN)) - 1);
    const everyAlert = (await call("GET", "/api/alerts", { token: ADMIN })).body as Array<{
      alertId: string;
      externalId: string;
    }>;
    const otherWards = everyAlert.find((alert) => alert.externalId === "ALERT-R-5B")!;
    expect(
      (await call("POST", `/api/alerts/${otherWards.alertId}/acknowledge`, { token, body: { note: "not mine" } }))
        .status,
    ).to.equal(404);

    expect(
      (await call("GET", "/api/history/lab/ALERT-R-5B", { token })).status,
      "another ward's report history",
    ).to.equal(404);
    expect((await call("GET", "/api/history/lab/ALERT-R-5B/versions/1", { token })).status, "its version").to.equal(
      404,
    );
    expect(
      (await call("GET", "/api/history/lab/ALERT-R-5B", { token: ADMIN })).status,
      "there for every ward's caller",
    ).to.equal(200);
    expect((await call("GET", "/api/history/lab/ALERT-R-3A", { token })).status).to.equal(200);
    expect((await call("GET", "/fhir/r4/DiagnosticReport/ALERT-R-5B", { token })).status).to.equal(404);
    expect((await call("GET", "/fhir/r4/DiagnosticReport/ALERT-R-3A", { token })).status).to.equal(200);
    const observations = async (ref: string) =>
      ((await call("GET", `/fhir/r4/Observation?patient=${ref}`, { token })).body.entry ?? []) as unknown[];
    expect(await observations("R-5B"), "another ward's results").to.have.length(0);
    expect(await observations("R-3A")).to.not.have.length(0);
  });

  it("lets a caller with wards register and change only its wards' patients", async () => {
    const token = await tokenWith({ roles: ["clinician"], wards: ["3A"] });
    const other = await call("PUT", "/api/patients/R-5B", {
      token,
      body: { name: "病人R-5B", idCard: makeIdCard("110105", "19550101", 42), ward: "3A" },
    });
    expect(other.status, "another ward's patient is not there").to.equal(404);
    const elsewhere = await call("PUT", "/api/patients/R-NEW", {
      token,
      body: { name: "新病人", idCard: makeIdCard("110105", "19550101", 43), ward: "7C" },
    });
    expect(elsewhere.status).to.equal(403);
    expect(elsewhere.body.error).to.include('"3A"');
    // A card another ward's patient holds is still held, though this caller cannot see that patient.
    const taken = await call("PUT", "/api/patients/R-DUP", {
      token,
      body: { name: "病人R-5B", idCard: makeIdCard("110105", "19550101", 42), ward: "3A" },
    });
    expect(taken.status).to.equal(409);
    expect(
      (
        await call("PUT", "/api/patients/R-3A2", {
          token,
          body: { name: "新病人", idCard: makeIdCard("110105", "19550101", 44), ward: "3A" },
        })
      ).status,
    ).to.equal(200);
  });

  it("lets a caller with wards claim a report for its wards' patients only", async () => {
    const token = await tokenWith({ roles: ["clinician"], wards: ["3A"] });
    const client = (
      await call("POST", "/api/admin/clients", { token: ADMIN, body: { name: "Lab 2", tenant: "default" } })
    ).body as { key: string };
    const stray = {
      externalId: "CLAIM-W1",
      patient: { idCard: makeIdCard("110105", "19550101", 45), name: "无名" },
      collectedAt: "2026-03-01 07:00:00",
      reportedAt: "2026-03-01 09:00:00",
      status: "FINAL",
      items: [{ itemCode: "HGB", itemName: "血红蛋白", value: 11, unit: "g/dL" }],
    };
    expect(
      (await call("POST", "/open/v1/lab/reports", { token: client.key, body: { reports: [stray] } })).status,
    ).to.equal(200);
    await until(async () =>
      ((await call("GET", "/api/unmatched", { token })).body as Array<{ externalId: string }>).some(
        (report) => report.externalId === "CLAIM-W1",
      ),
    );
    const toOther = await call("POST", "/api/unmatched/lab/CLAIM-W1/claim", { token, body: { patientRef: "R-5B" } });
    expect(toOther.status).to.equal(404);
    expect(
      (await call("POST", "/api/unmatched/lab/CLAIM-W1/claim", { token, body: { patientRef: "R-3A" } })).status,
    ).to.equal(200);
  });

  it("finds over FHIR only the patients of the caller's wards", async () => {
    const token = await tokenWith({ roles: ["clinician"], wards: ["3A"] });
    const search = async (n: number) => {
      const identifier = encodeURIComponent(`${NATIONAL_ID_SYSTEM}|${makeIdCard("110105", "19550101", n)}`);
      const answer = await call("GET", `/fhir/r4/Patient?identifier=${identifier}`, { token });
      expect(answer.status).to.equal(200);
      return (answer.body.entry ?? []) as unknown[];
    };
    expect(await search(41), "R-3A").to.have.length(1);
    expect(await search(42), "R-5B, another ward's").to.have.length(0);
    const viewer = await tokenWith({ roles: ["viewer"] });
    expect(
      (
        await call(
          "GET",
          `/fhir/r4/Patient?identifier=${encodeURIComponent(`${NATIONAL_ID_SYSTEM}|${makeIdCard("110105", "19550101", 41)}`)}`,
          { token: viewer },
        )
      ).status,
    ).to.equal(403);
  });

  it("refuses roles and wards it does not know, saying what they may be", async () => {
    const answer = await call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: "X", tenant: "default", roles: ["nurse"] },
    });
    expect(answer.status).to.equal(400);
    expect(answer.body.error).to.include("admin, author, clinician, viewer");
  });

  it("lets a staff session call /api within its roles and wards, and asks its CSRF token to change anything", async () => {
    const cookie = await sessionCookieOf(hub.service.url!, hub.provider, {
      sub: "nurse-7",
      name: "李护士",
      roles: ["clinician"],
      wards: ["5B"],
    });
    const headers = { cookie };
    const listed = await call("GET", "/api/patients", { headers });
    expect(listed.status).to.equal(200);
    expect(listed.body.map((patient: { patientRef: string }) => patient.patientRef)).to.deep.equal(["R-5B"]);
    const { csrf } = (await call("GET", "/staff/session", { headers })).body;

    const body = { name: "病人R-5B（更正）", idCard: makeIdCard("110105", "19550101", 42), ward: "5B" };
    const withoutCsrf = await call("PUT", "/api/patients/R-5B", { headers, body });
    expect(withoutCsrf.status).to.equal(403);
    expect(withoutCsrf.body.error).to.include("X-CSRF-Token");
    expect(
      (await call("PUT", "/api/patients/R-5B", { headers: { ...headers, "x-csrf-token": csrf }, body })).status,
    ).to.equal(200);
    const { rows } = await hub.service.db.query(
      "select metadata->>'actor' as actor from events where stream_id = 'patient:R-5B' order by stream_version desc limit 1",
    );
    expect(rows[0].actor, "the change is credited to the person").to.equal("李护士");

    const draft = await call("PUT", "/api/reports/roles-r3/draft", {
      headers: { ...headers, "x-csrf-token": csrf },
      body: { title: "R3", spec: { queries: {}, layout: [] } },
    });
    expect(draft.status).to.equal(403);

    // The access log (E.4) names the person and their session's subject.
    const looked = await until(async () => {
      const log = await call("GET", `/api/admin/access-log?who=${encodeURIComponent("李护士")}`, { token: ADMIN });
      return (log.body.records as Array<Record<string, unknown>>).find(
        (record) => record.action === "GET /api/patients",
      );
    });
    expect(looked).to.deep.include({
      who: "李护士",
      credential: "nurse-7",
      roles: ["clinician"],
      patientRefs: ["R-5B"],
    });
  });
});
