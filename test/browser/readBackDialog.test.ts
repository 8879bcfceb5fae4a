import { expect } from "chai";
import type { Page } from "playwright-core";
import { localDateTime } from "../../db/localDateTime.ts";
import { ADMIN } from "../support/http.ts";
import { labReport } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { startSmtpPeer, type SmtpPeer } from "../support/smtpPeer.ts";
import { expectAccessible, expectNoSidewaysScroll } from "./accessibility.ts";
import { OUT, signedInPage, useStaffBrowserSuite } from "./staffSuite.ts";

/*
 * Issue #56 on the staff alerts page (contract G.3, decision 0085), with a real SMTP server: the
 * tenant asks for a read-back. A potassium 6.5 raised while the mail server refuses everything,
 * under a policy whose only step is due at once, is overdue: listed first, marked in words, its
 * mail "retrying" with the server's answer. A nurse (clinician) acknowledges 张三's critical K 6.9
 * by reading back 6.9 and naming the doctor she called; a wrong value is refused beside the field
 * in Chinese and English and the dialog stays open. Each view fits 390 px and is axe-clean.
 */

const TENANT = "rb";
const hoursAgo = (hours: number) => localDateTime(new Date(Date.now() - hours * 3_600_000));
const potassium = (externalId: string, value: number) =>
  labReport(externalId, {
    collectedAt: hoursAgo(1),
    reportedAt: localDateTime(new Date()),
    items: [{ itemCode: "K", itemName: "钾", value, unit: "mmol/L", abnormalFlag: "HH" }],
  });
const email = (to: string) => ({ channel: "email", to });

describe("read-back, overdue alerts and notifications on the alerts page, in chromium", function () {
  this.timeout(180_000);
  let smtp: SmtpPeer;
  const env: Record<string, string> = {
    MAIL_FROM: "Dialysis Hub <hub@hospital.example>",
    PUBLIC_URL: "https://dialysis.hospital.example",
    // A refused mail stays "retrying" for the whole test.
    ALERT_NOTIFY_RETRY_SECONDS: "600",
    WORKER_POLL_SECONDS: "0.5",
    ALERT_STREAM_HEARTBEAT_SECONDS: "5",
  };
  before(async () => {
    smtp = await startSmtpPeer();
    env.SMTP_URL = smtp.url;
  });
  after(() => smtp?.close());
  const staff = useStaffBrowserSuite(TENANT, { env });
  let nurseToken: string;
  let adminToken: string;

  const putPolicy = async (body: unknown) => {
    const answer = await staff.tenant.call("PUT", "/api/alerts/escalation", { token: ADMIN, body });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
  };
  const alertOf = (externalId: string, accept: (alert: Record<string, any>) => boolean) =>
    until(async () => {
      const list = (
        await staff.tenant.call("GET", "/api/alerts?state=open&kind=CRITICAL", { token: staff.tenant.authorToken })
      ).body as Array<Record<string, any>>;
      const alert = list.find((one) => one.externalId === externalId);
      return alert && accept(alert) ? alert : undefined;
    }, 30_000);

  before(async () => {
    for (const [name, roles] of [
      ["Nurse Wang", ["clinician"]],
      ["Head nurse Liu", ["admin"]],
    ] as const) {
      const made = await staff.tenant.call("POST", "/api/admin/authors", {
        token: ADMIN,
        body: { name, tenant: TENANT, roles, ...(roles[0] === "clinician" ? { wards: ["A"] } : {}) },
      });
      expect(made.status, JSON.stringify(made.body)).to.equal(201);
      if (roles[0] === "clinician") nurseToken = made.body.token as string;
      else adminToken = made.body.token as string;
    }
    // The mail server is down: the overdue alert's only step is tried, refused, and waits to be tried again.
    smtp.refuseAll();
    await putPolicy({
      wards: { "*": [{ afterMinutes: 0, notify: [email("nurse.a@hospital.example")] }] },
      readBackRequired: true,
    });
    expect((await staff.tenant.push("lab", [potassium("K-OVERDUE", 6.5)])).status).to.equal(200);
    await alertOf("K-OVERDUE", (alert) => alert.overdue === true && alert.notifications[0]?.outcome === "retrying");
    // Back up; the ward's nurse at once, the doctor on call in an hour: not overdue.
    smtp.acceptAgain();
    await putPolicy({
      wards: {
        "*": [
          { afterMinutes: 0, notify: [email("nurse.a@hospital.example")] },
          { afterMinutes: 60, notify: [email("doctor.on.call@hospital.example")] },
        ],
      },
      readBackRequired: true,
    });
    expect((await staff.tenant.push("lab", [potassium("K-READBACK", 6.9)])).status).to.equal(200);
    await alertOf("K-READBACK", (alert) => alert.notifications[0]?.outcome === "sent" && alert.overdue === false);
  });

  const ready = (page: Page) => page.locator(".page-alerts .page-body[data-state=ready]").waitFor({ timeout: 15_000 });
  const atPhone = async (page: Page, what: string, shot: string) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoSidewaysScroll(page, `${what} at 390 px`);
    await expectAccessible(page, `${what} at 390 px`);
    await page.screenshot({ path: `${OUT}readback-${shot}.png`, fullPage: true });
  };

  for (const lang of ["zh", "en"] as const) {
    const words = {
      zh: {
        overdue: "已超时",
        notifications: "通知记录（1）",
        retrying: "发送失败，正在重试",
        sent: "已发送",
        required: "本科室要求复述：请填写您复述的结果数值，以及您通知的人员姓名与职务。",
        mismatch: "复述的数值与危急值不符，本次确认未被接受并已记录；请对照报告重新核对后再复述。",
        acknowledge: "确认",
        help: "危急值通知谁、何时通知，以及如何复述",
      },
      en: {
        overdue: "Overdue",
        notifications: "Notifications (1)",
        retrying: "Not delivered, retrying",
        sent: "Sent",
        required:
          "This unit asks for a read-back: enter the value as you read it back, and the name and role of the person you told.",
        mismatch:
          "The value read back does not match the critical value: the acknowledgement was not taken and the attempt is recorded; check the report and read it back again.",
        acknowledge: "Acknowledge",
        help: "Who is told of a critical value, when, and how to read back",
      },
    }[lang];

    it(`lists the overdue alert first, marked in words, with each alert's notifications readable (${lang})`, async () => {
      const page = await signedInPage(staff, TENANT, { lang, fragment: "#alerts" }, nurseToken);
      await ready(page);
      const rows = page.locator("table.alerts-open tbody tr");
      expect(await rows.count()).to.equal(2);
      // K-READBACK is the newer: only its not being overdue puts it second.
      expect(await rows.nth(0).getAttribute("data-external-id")).to.equal("K-OVERDUE");
      expect(await rows.nth(0).getAttribute("data-overdue")).to.equal("true");
      expect(await rows.nth(0).locator(".overdue-mark strong").textContent()).to.equal(words.overdue);
      expect(await rows.nth(1).getAttribute("data-external-id")).to.equal("K-READBACK");
      expect(await rows.nth(1).locator(".overdue-mark").count()).to.equal(0);

      for (const [row, outcome] of [
        [rows.nth(0), words.retrying],
        [rows.nth(1), words.sent],
      ] as const) {
        const details = row.locator("details.notifications");
        await details.locator("summary").click();
        expect(await details.locator("summary").textContent()).to.equal(words.notifications);
        const line = details.locator("li[data-step='1']");
        expect(await line.locator(".notification-to").textContent()).to.include("nurse.a@hospital.example");
        expect(await line.locator(".outcome-word").textContent()).to.equal(outcome);
      }
      expect(await rows.nth(0).locator("li .reason-text").textContent()).to.match(/^421 /);

      const help = page.getByRole("link", { name: words.help });
      expect(await help.getAttribute("href")).to.equal(
        `/help/critical-value-escalation${lang === "en" ? "?lang=en" : ""}`,
      );
      await atPhone(page, `the overdue alert and notifications (${lang})`, `list-${lang}`);
      // The wards' article, in the page's language: who is told, when, and how to read back.
      await help.click();
      await page.waitForURL(/\/help\/critical-value-escalation/);
      expect(await page.locator("article h1").textContent()).to.equal(
        lang === "en"
          ? "Critical values: who is told, when, and reading back"
          : "危急值：通知谁、何时通知，以及如何复述",
      );
      await atPhone(page, `the help article (${lang})`, `help-${lang}`);
      await page.close();
    });

    it(`asks a nurse for the read-back once the service says it is required, and says a wrong value beside it, the dialog open (${lang})`, async () => {
      const page = await signedInPage(staff, TENANT, { lang, fragment: "#alerts" }, nurseToken);
      await ready(page);
      await page.locator("tr[data-external-id=K-READBACK] button.acknowledge").click();
      const dialog = page.locator("dialog.modal");
      expect(await dialog.locator("fieldset.read-back").isHidden(), "a nurse may not read the policy").to.equal(true);
      await dialog.locator("#acknowledge-note").fill(lang === "en" ? "Dr. Li called at 02:05" : "02:05 电话通知李医生");
      await dialog.locator("button[type=submit]").click();
      await dialog.locator("fieldset.read-back").waitFor();
      expect(await dialog.locator(".form-error").textContent()).to.equal(words.required);
      expect(await dialog.locator("#read-back-value").evaluate((input) => input === document.activeElement)).to.equal(
        true,
      );
      expect(await dialog.locator(".with-unit .unit").textContent()).to.equal("mmol/L");

      await dialog.locator("#read-back-value").fill("6.3");
      await dialog.locator("#notified-name").fill(lang === "en" ? "Dr. Li" : "李医生");
      await dialog.locator("#notified-role").selectOption("doctor-on-call");
      await dialog.locator("button[type=submit]").click();
      const mismatch = dialog.locator("#read-back-value-error");
      await mismatch.waitFor();
      expect(await mismatch.textContent()).to.equal(words.mismatch);
      expect(await dialog.locator("#read-back-value").getAttribute("aria-invalid")).to.equal("true");
      expect(await dialog.locator("#read-back-value").getAttribute("aria-describedby")).to.include(
        "read-back-value-error",
      );
      expect(await dialog.isVisible(), "the dialog stays open").to.equal(true);
      await atPhone(page, `the read-back refused (${lang})`, `mismatch-${lang}`);

      if (lang === "zh") {
        // The page learned that the unit asks for a read-back: the next dialog asks at once.
        await dialog.getByRole("button", { name: "取消" }).click();
        await page.locator("tr[data-external-id=K-READBACK] button.acknowledge").click();
        await page.locator("dialog.modal fieldset.read-back").waitFor();
        expect(await page.locator("dialog.modal #read-back-value").inputValue()).to.equal("");
        await page.close();
        return;
      }
      // Read back again, right this time (6.90 is 6.9): acknowledged, with whom she told.
      await dialog.locator("#read-back-value").fill("6.9");
      await dialog.locator("button[type=submit]").click();
      await dialog.waitFor({ state: "detached" });
      await page.locator("tr[data-external-id=K-READBACK]").waitFor({ state: "detached" });
      const answer = await staff.tenant.call("GET", "/api/alerts?state=acknowledged&kind=CRITICAL", {
        token: nurseToken,
      });
      const acknowledged = (answer.body as Array<Record<string, any>>).find((a) => a.externalId === "K-READBACK")!;
      expect(acknowledged).to.deep.include({
        acknowledgedBy: "Nurse Wang",
        notified: { name: "Dr. Li", role: "doctor-on-call" },
        readBack: { value: "6.9", matched: true },
      });
      await page.locator("[data-state-tab=acknowledged]").click();
      const row = page.locator("table.alerts-acknowledged tr[data-external-id=K-READBACK]");
      await row.waitFor();
      expect(await row.locator(".notified").textContent()).to.equal("Told: Dr. Li (Doctor on call)");
      expect(await row.locator(".read-back-value").textContent()).to.equal("Read back: 6.9 mmol/L, matching");
      await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=zh#alerts`);
      await page.locator("[data-state-tab=acknowledged]").click();
      await page.locator("table.alerts-acknowledged tr[data-external-id=K-READBACK] .notified").waitFor();
      expect(
        await page.locator("table.alerts-acknowledged tr[data-external-id=K-READBACK] .notified").textContent(),
      ).to.equal("已通知：Dr. Li（值班医生）");
      await atPhone(page, "the acknowledged alert with its read-back (zh)", "acknowledged-zh");
      await page.close();
    });
  }

  it("asks an admin, who may read the policy, for the read-back from the start", async () => {
    const page = await signedInPage(staff, TENANT, { lang: "en", fragment: "#alerts" }, adminToken);
    await ready(page);
    await page.locator("tr[data-external-id=K-OVERDUE] button.acknowledge").click();
    const dialog = page.locator("dialog.modal");
    await dialog.locator("fieldset.read-back").waitFor();
    expect(await dialog.locator("#read-back-value").evaluate((input) => input === document.activeElement)).to.equal(
      true,
    );
    await dialog.locator("#notified-role").selectOption("other");
    await dialog.locator("#read-back-value").fill("6.5");
    await dialog.locator("#notified-name").fill("Dr. Zhao");
    await dialog.locator("#acknowledge-note").fill("Told the nephrologist by phone");
    await dialog.locator("button[type=submit]").click();
    expect(await dialog.locator("#notified-role-other-error").textContent()).to.equal(
      "Enter the role of the person you told.",
    );
    await dialog.locator("#notified-role-other").fill("nephrologist");
    await dialog.locator("button[type=submit]").click();
    await dialog.waitFor({ state: "detached" });
    await page.locator("[data-state-tab=acknowledged]").click();
    const row = page.locator("table.alerts-acknowledged tr[data-external-id=K-OVERDUE]");
    await row.waitFor();
    expect(await row.locator(".notified").textContent()).to.equal("Told: Dr. Zhao (nephrologist)");
    expect(staff.cspViolations).to.deep.equal([]);
    await page.close();
  });
});
