import { expect } from "chai";
import pg from "pg";
import { createTestDatabase } from "../support/database.ts";
import { allProjections } from "../../src/app/allProjections.ts";
import { createLogger } from "../../src/logger.ts";
import { ingestionTenant, labReport, LI_SI, ZHANG_SAN } from "../support/ingestion.ts";
import { useTestService } from "../support/service.ts";

describe("logs", () => {
  const lines: string[] = [];
  const hub = useTestService({
    projections: allProjections,
    log: createLogger("trace", { write: (line: string) => void lines.push(line) }),
  });

  it("carry request ids but never a client key, an author token or a full id card", async () => {
    const tenant = await ingestionTenant(hub.service, "h1");
    await tenant.push("lab", [
      labReport("LOG-1"),
      labReport("LOG-2", { patient: { idCard: LI_SI.idCard, name: LI_SI.name } }),
    ]);
    await tenant.push("lab", [labReport("LOG-3", { reportedAt: "not a date" })]);
    await tenant.call("GET", "/api/patients", { token: tenant.authorToken });
    await tenant.call("PUT", "/api/patients/P009", {
      token: tenant.authorToken,
      body: { name: "x", idCard: ZHANG_SAN.idCard },
    });
    await tenant.call("GET", "/open/v1/ping", { token: `${tenant.client.key}x` });
    // A sender mistaking the request-id header for the place of its key.
    await fetch(`${hub.service.url}/open/v1/ping`, {
      headers: { authorization: `Bearer ${tenant.client.key}`, "x-request-id": tenant.client.key },
    });

    const text = lines.join("");
    expect(lines.length).to.be.greaterThan(10);
    expect(text).to.include('"requestId"');
    for (const secret of [tenant.client.key, tenant.authorToken, ZHANG_SAN.idCard, LI_SI.idCard]) {
      expect(text).not.to.include(secret);
    }
  });
});

describe("logs of a lost idle connection", () => {
  it("carry the error, not the connection pg-pool hangs on it (its cancel key and settings)", async () => {
    const url = await createTestDatabase(false);
    const pool = new pg.Pool({ connectionString: url, max: 1, application_name: "logging-test-idle" });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const idle = await pool.connect();
      const { processID } = idle as unknown as { processID: number };
      idle.release();
      const lost = new Promise<Error>((resolve) => pool.once("error", resolve));
      await admin.query("select pg_terminate_backend($1)", [processID]);
      const error = await lost;
      expect(error).to.have.property("client"); // what pg-pool does, and why the logger must not write it

      const lines: string[] = [];
      createLogger("warn", { write: (line: string) => void lines.push(line) }).warn({ err: error }, "job queue fault");
      expect(lines).to.have.length(1);
      expect(lines[0]).to.include("terminating connection due to administrator command");
      expect(lines[0]).not.to.include("secretKey").and.not.include("logging-test-idle");
      expect(lines[0]!.length).to.be.below(2000);
    } finally {
      await admin.end();
      await pool.end();
    }
  });
});
