import { expect } from "chai";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/app/config.ts";
import { readPasswordFile } from "../../src/alerts/escalationMail.ts";

/* Contract G.3's settings: the retries it asks for by default, and where the SMTP password may come from. */
describe("escalation settings", () => {
  it("retries a refused notification by default at least 5 times over at least 10 minutes, the first within 60 s", () => {
    const pauses = loadConfig({}).ALERT_NOTIFY_RETRY_SECONDS;
    expect(pauses.length + 1, "attempts").to.be.at.least(6);
    expect(pauses[0]).to.be.at.most(60);
    expect(pauses.reduce((sum, pause) => sum + pause, 0)).to.be.at.least(600);
  });

  it("refuses settings that do not work together or are not written as asked", () => {
    expect(() => loadConfig({ SMTP_URL: "smtp://u:p@mail.example:587" })).to.throw(/MAIL_FROM: set it with SMTP_URL/);
    expect(() => loadConfig({ SMTP_URL: "http://mail.example" })).to.throw(/SMTP_URL must be smtp:\/\//);
    expect(() => loadConfig({ ALERT_NOTIFY_RETRY_SECONDS: "30;60" })).to.throw(/comma-separated list of seconds/);
    expect(
      loadConfig({ SMTP_URL: "smtps://u:p@mail.example", MAIL_FROM: "Dialysis Hub <hub@hospital.example>" }).MAIL_FROM,
    ).to.equal("Dialysis Hub <hub@hospital.example>");
  });

  it("reads the SMTP password from an owner-only file, and refuses one others may read", () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "smtp-")), "password");
    writeFileSync(file, "s3cret-pass\n", { mode: 0o600 });
    expect(readPasswordFile(file)).to.equal("s3cret-pass");
    chmodSync(file, 0o644);
    expect(() => readPasswordFile(file)).to.throw(/may be read by others \(mode 644\); chmod 600 it/);
  });
});
