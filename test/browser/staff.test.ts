import { expect } from "chai";
import type { Page } from "playwright-core";
import { labReport, LI_SI, ZHANG_SAN } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { publishWardCensus } from "../support/reports.ts";
import { OUT, signedInPage, useStaffBrowserSuite } from "./staffSuite.ts";

const TENANT = "h1";

describe("staff pages in chromium", function () {
  this.timeout(60_000);
  const staff = useStaffBrowserSuite(TENANT);
  let page: Page;

  const queue = () => staff.tenant.unmatched();
  const staffUrl = () => `${staff.service.url}/staff?tenant=${TENANT}&lang=en`;
  const ready = (selector: string) => page.locator(`${selector}[data-state=ready]`).waitFor({ timeout: 15_000 });

  before(async () => {
    await publishWardCensus(staff.tenant);

    // Two reports no patient matches: one names 张三 without an id card, one names a stranger.
    const pushed = await staff.tenant.push("lab", [
      labReport("S-1", { patient: { name: ZHANG_SAN.name, hisPatientId: "H-77" } }),
      labReport("S-2", { patient: { idCard: LI_SI.idCard, name: LI_SI.name } }),
    ]);
    expect(pushed.body.data.results.map((r: { matched: boolean }) => r.matched)).to.deep.equal([false, false]);
    await until(async () => (await queue()).length === 2, 10_000);

    page = await staff.newPage();
  });

  it("serves the shell with a strict CSP, no inline script, no framing, and hashed assets", async () => {
    const response = await fetch(staffUrl());
    expect(response.status).to.equal(200);
    expect(response.headers.get("content-type")).to.match(/^text\/html; charset=utf-8/);
    const csp = response.headers.get("content-security-policy")!;
    expect(csp)
      .to.include("default-src 'none'")
      .and.include("script-src 'self'")
      .and.include("style-src 'self'")
      .and.include("frame-ancestors 'none'");
    expect(csp).not.to.include("unsafe-inline");
    expect(response.headers.get("x-frame-options")).to.equal("DENY");
    expect(response.headers.get("x-content-type-options")).to.equal("nosniff");
    expect(response.headers.get("cache-control")).to.equal("no-store");
    const html = await response.text();
    expect(html)
      .to.include('data-tenant="h1"')
      .and.include('data-tenant-fixed="false"')
      .and.include('<html lang="en">');
    expect(
      html.match(/<script[^>]*>/g)!.every((tag) => / src="\/staff\/assets\/staff\.[0-9a-f]{16}\.js"/.test(tag)),
    ).to.equal(true);
    const asset = /src="(\/staff\/assets\/staff\.[0-9a-f]+\.js)"/.exec(html)![1]!;
    const script = await fetch(`${staff.service.url}${asset}`);
    expect(script.status).to.equal(200);
    expect(script.headers.get("cache-control")).to.include("immutable");
    expect((await fetch(`${staff.service.url}/staff/assets/..%2Fbuild.mjs`)).status).to.equal(404);
    expect((await fetch(`${staff.service.url}/staff/assets/embed.js`)).status).to.equal(404);

    // Behind the proxy the tenant comes from its header and is fixed; a malformed one is refused.
    const proxied = await (await fetch(`${staff.service.url}/staff`, { headers: { "X-Service-Tenant": "h2" } })).text();
    expect(proxied)
      .to.include('data-tenant="h2"')
      .and.include('data-tenant-fixed="true"')
      .and.include('<html lang="zh-CN">');
    expect((await fetch(`${staff.service.url}/staff?tenant=bad%20tenant`)).status).to.equal(400);
  });

  it("refuses a wrong token and a token of another tenant with a clear sentence", async () => {
    await page.goto(`${staff.service.url}/staff?tenant=${TENANT}`); // Chinese unless ?lang=en
    expect(await page.locator("h1").textContent()).to.equal("登录工作台");
    expect(await page.evaluate(() => document.activeElement?.id), "the token field has focus").to.equal(
      "sign-in-token",
    );
    await page.getByRole("link", { name: "English" }).click();
    await page.waitForURL(/lang=en/);
    expect(page.url()).to.equal(staffUrl());
    expect(await page.locator("#sign-in-tenant").inputValue()).to.equal(TENANT);
    await page.locator("#sign-in-token").fill("dha_not-a-real-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    const problem = page.locator(".sign-in .form-error");
    await problem.waitFor();
    expect(await problem.textContent()).to.match(/^This token does not sign you in: /);
    expect(await page.locator("#sign-in-token").getAttribute("aria-invalid")).to.equal("true");
    await page.screenshot({ path: `${OUT}staff-sign-in-error.png` });

    await page.locator("#sign-in-tenant").fill("other");
    await page.locator("#sign-in-token").fill(staff.tenant.authorToken);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForFunction(() =>
      /another hospital/.test(document.querySelector(".sign-in .form-error")?.textContent ?? ""),
    );
    // The service's own sentence names the token's tenant.
    expect(await problem.textContent())
      .to.include("This token belongs to another hospital or centre")
      .and.include("X-Service-Tenant: h1");
    expect(await page.evaluate(() => sessionStorage.length)).to.equal(0);
  });

  it("signs in with an author token and lists the reports with their versions, modes and audit grades", async () => {
    await page.locator("#sign-in-tenant").fill(TENANT);
    await page.locator("#sign-in-token").fill(staff.tenant.authorToken);
    await page.locator("#sign-in-token").press("Enter");
    await ready(".page-reports .page-body");
    expect(await page.locator(".who").textContent(), "the token's name and roles, its tenant and hint").to.match(
      /^.+ · Report author · Tenant h1 · token dha_/,
    );
    expect(await page.locator(".tabs a[aria-current=page]").textContent()).to.equal("Reports");

    const card = page.locator(".report-card[data-report-id=ward-census]");
    expect(await card.locator("h2").textContent()).to.equal("Ward census");
    expect(await card.locator(".badge.published").first().textContent()).to.equal("Published v2");
    const v2 = card.locator("tr[data-version=v2]");
    const v1 = card.locator("tr[data-version=v1]");
    expect(await v2.locator(".mode").textContent()).to.equal("snapshot");
    expect(await v2.locator(".grade").textContent()).to.equal("A");
    expect(await v2.locator("th").textContent()).to.equal("v2current");
    expect(await v1.locator(".mode").textContent()).to.equal("dynamic");
    expect(await v1.locator(".audit").textContent()).to.equal("A score 95 · highest low · 2 findings");
    expect(await v1.locator("a").getAttribute("href")).to.equal(
      "/embed/reports/ward-census?version=v1&tenant=h1&lang=en",
    );
    expect(await v1.locator("td.note").textContent()).to.equal("first count");

    // The findings of v1, from its audit; the button says whether they are shown.
    const toggle = v1.getByRole("button", { name: "Findings" });
    await toggle.click();
    await ready(".findings");
    expect(await toggle.getAttribute("aria-expanded")).to.equal("true");
    expect(
      await page
        .locator(".findings li")
        .evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset.rule).sort()),
    ).to.deep.equal(["select-star", "table-unordered"]);
    await page.screenshot({ path: `${OUT}staff-reports.png`, fullPage: true });

    // The embed link opens that version's page.
    const [embed] = await Promise.all([page.context().waitForEvent("page"), v1.getByRole("link").click()]);
    await embed.waitForFunction(() => document.body.dataset.rendered === "true", undefined, { timeout: 20_000 });
    expect(await embed.locator(".report-meta").textContent()).to.match(/^Version v1/);
    await embed.close();

    // The session is the tab's: a reload stays signed in.
    await page.reload();
    await ready(".page-reports .page-body");
  });

  it("shows a queued report's history: its versions as received, and what an update changed", async () => {
    // The laboratory corrects S-2's hemoglobin: version 2, still awaiting a patient.
    const corrected = labReport("S-2", { patient: { idCard: LI_SI.idCard, name: LI_SI.name } });
    (corrected.items[0] as { value: number }).value = 12.1;
    expect((await staff.tenant.push("lab", [corrected])).body.data.results[0].status).to.equal("UPDATED");
    await page.getByRole("link", { name: "Unmatched reports" }).click();
    await ready(".page-unmatched .page-body");

    await page.getByRole("button", { name: "History of report S-2" }).click();
    const dialog = page.locator("dialog:has(.history-timeline)");
    await dialog.waitFor();
    await ready("dialog .history-timeline");
    const rows = dialog.locator("table.history tbody tr");
    expect(
      await rows.evaluateAll((r) =>
        r.map((row) => [(row as HTMLElement).dataset.event, row.querySelector("td:nth-child(3)")!.textContent]),
      ),
    ).to.deep.equal([
      ["RECEIVED", "Central lab LIS"],
      ["RECEIVED", "Central lab LIS"],
    ]);
    expect(await rows.nth(1).locator("td").nth(2).textContent()).to.include("version 2 · update");

    await dialog.getByRole("button", { name: "Changes in version 2" }).click();
    await ready("dialog .history-detail-body");
    expect(await dialog.locator("h3").textContent()).to.equal("Version 1 → version 2");
    expect(
      await dialog.locator("table.changes tbody tr").evaluateAll((r) => r.map((row) => row.textContent)),
    ).to.deep.equal(["items[0].value11.512.1"]);
    await page.screenshot({ path: `${OUT}staff-history.png` });

    await dialog.getByRole("button", { name: "View version 1" }).click();
    await page.waitForFunction(
      () => document.querySelector("dialog .history-detail h3")?.textContent === "Version 1, as received",
    );
    await ready("dialog .history-detail-body");
    const json = JSON.parse((await dialog.locator(".report-json").textContent())!);
    expect(json).to.deep.include({ externalId: "S-2" });
    expect(json.items[0]).to.include({ itemCode: "HGB", value: 11.5 });

    // Escape closes it (the browser's own dialog behaviour); it leaves the page when closed.
    await page.keyboard.press("Escape");
    await page.locator("dialog").waitFor({ state: "detached", timeout: 5000 });
  });

  it("claims an unmatched report for a patient found by searching the masked id card: it leaves the queue", async () => {
    await page.getByRole("link", { name: "Unmatched reports" }).click();
    await ready(".page-unmatched .page-body");
    expect(
      await page
        .locator(".queue tbody tr")
        .evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.externalId)),
    ).to.deep.equal(["S-2", "S-1"], "the newest first (issue #54)");
    const s2 = page.locator("tr[data-external-id=S-2]");
    expect(await s2.locator("td").nth(1).textContent()).to.equal("李四 · 440524********0014");
    expect(await s2.locator(".reason").textContent()).to.equal("No dialysis patient has this id card number");

    await page.getByRole("button", { name: "Claim report S-1" }).click();
    const dialog = page.locator("dialog:has(.claim-form)");
    await dialog.waitFor();
    // The search starts from the name the report sent; search the visible part of the id card instead.
    await ready("dialog .picker-results");
    expect(
      await dialog.locator(".picker-option").evaluateAll((o) => o.map((x) => (x as HTMLElement).dataset.patientRef)),
    ).to.deep.equal(["P001"]);
    await dialog.getByLabel("Search patients").fill("110105********002X");
    await dialog.getByLabel("Search patients").press("Enter");
    await page.waitForFunction(
      () => document.querySelector("dialog .picker-results")?.getAttribute("data-state") === "ready",
    );
    const option = dialog.locator(".picker-option[data-patient-ref=P001]");
    expect(await option.textContent())
      .to.include("张三")
      .and.include("110105********002X");
    expect(await dialog.textContent()).not.to.include(ZHANG_SAN.idCard);

    // Claiming without a choice says so; then choose with the keyboard-reachable radio.
    await dialog.getByRole("button", { name: "Claim", exact: true }).click();
    expect(await dialog.locator(".form-error").textContent()).to.equal("Choose a patient first.");
    await option.locator("input[type=radio]").check();
    await page.screenshot({ path: `${OUT}staff-claim.png` });
    await dialog.getByRole("button", { name: "Claim", exact: true }).click();
    await page.locator(".status", { hasText: "Report S-1 was claimed for 张三 (P001)." }).waitFor();
    await ready(".page-unmatched .page-body");
    expect(await page.locator("dialog").count()).to.equal(0);
    expect(await page.locator("tr[data-external-id=S-1]").count()).to.equal(0);
    expect((await queue()).map((e) => e.externalId)).to.deep.equal(["S-2"]);
    const attached = await staff.service.db.query(
      "select matched, patient_ref from read.lab_reports where external_id = 'S-1'",
    );
    expect(attached.rows).to.deep.equal([{ matched: true, patient_ref: "P001" }]);
  });

  it("dismisses another with a reason (required), and the queue is then empty", async () => {
    const opener = page.getByRole("button", { name: "Dismiss report S-2" });
    const dialog = page.locator("dialog:has(.dismiss-form)");
    // Escape closes the dialog and gives the focus back to the button that opened it.
    await opener.click();
    await dialog.waitFor();
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await opener.evaluate((button) => button === document.activeElement)).to.equal(true);
    await page.keyboard.press("Enter");
    await dialog.waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal("dismiss-reason");
    await dialog.getByRole("button", { name: "Dismiss", exact: true }).click();
    expect(await dialog.locator(".form-error").textContent()).to.equal("Give a reason for dismissing the report.");
    await dialog.getByLabel("Reason").fill("not a dialysis patient of this centre");
    await dialog.getByRole("button", { name: "Dismiss", exact: true }).click();
    await page.locator(".status", { hasText: "Report S-2 was dismissed." }).waitFor();
    await ready(".page-unmatched .page-body");
    expect(await page.locator(".page-unmatched .empty").textContent()).to.equal("No reports are waiting.");
    const kept = await staff.service.db.query("select dismiss_reason from read.lab_reports where external_id = 'S-2'");
    expect(kept.rows).to.deep.equal([{ dismiss_reason: "not a dialysis patient of this centre" }]);
    await page.screenshot({ path: `${OUT}staff-unmatched.png` });
  });

  it("registers, searches and edits patients; id cards stay masked and an edit asks for the whole number", async () => {
    await page.getByRole("link", { name: "Patients" }).click();
    await ready(".page-patients .page-body");
    expect(await page.locator(".patients tbody tr").count()).to.equal(1);

    await page.getByRole("button", { name: "Register a patient" }).click();
    const form = page.locator("dialog:has(.patient-form)");
    await form.getByLabel("patientRef").fill("P002");
    await form.getByLabel("Name").fill(LI_SI.name);
    await form.getByLabel("Id card").fill("440524188001010015"); // wrong check digit
    await form.getByRole("button", { name: "Save" }).click();
    await form.locator(".form-error").waitFor();
    expect(await form.locator(".form-error").textContent()).to.match(/check digit/);
    expect(await form.getByLabel("Id card").getAttribute("aria-invalid")).to.equal("true");
    await form.getByLabel("Id card").fill(LI_SI.idCard);
    await form.getByLabel("Ward (optional)").fill("B");
    await page.screenshot({ path: `${OUT}staff-patient-form.png` });
    await form.getByRole("button", { name: "Save" }).click();
    await page.locator(".status", { hasText: "Patient P002 (李四) was saved." }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll(".patients tbody tr").length === 2);
    const row = page.locator(".patients tr[data-patient-ref=P002]");
    expect(await row.locator(".id-card").textContent()).to.equal("440524********0014");
    expect(await page.locator("main").textContent()).not.to.include(LI_SI.idCard);

    await page.getByLabel("Search patients").fill("李");
    await page.getByLabel("Search patients").press("Enter");
    await page.waitForFunction(() => document.querySelectorAll(".patients tbody tr").length === 1);
    expect(await page.locator(".count").textContent()).to.equal("1 patient");

    await row.getByRole("button", { name: "Edit 李四" }).click();
    expect(await form.getByLabel("patientRef").getAttribute("readonly")).to.equal("");
    expect(await form.getByLabel("Name").inputValue()).to.equal(LI_SI.name);
    expect(await form.getByLabel("Id card").inputValue()).to.equal("");
    expect(await form.locator(".hint", { hasText: "440524********0014" }).count()).to.equal(1);
    await form.getByLabel("Ward (optional)").fill("C");
    await form.getByRole("button", { name: "Save" }).click();
    expect(await form.locator(".form-error").textContent()).to.equal("Fill in Id card.");
    await form.getByLabel("Id card").fill(LI_SI.idCard);
    await form.getByLabel("Active (still on dialysis here)").uncheck();
    await form.getByRole("button", { name: "Save" }).click();
    await page.locator(".status", { hasText: "Patient P002 (李四) was saved." }).waitFor();
    await page.waitForFunction(
      () => document.querySelector(".patients tr[data-patient-ref=P002] td:nth-of-type(4)")?.textContent === "C",
    );
    expect(await row.locator("td").nth(4).textContent()).to.equal("No");
    await page.screenshot({ path: `${OUT}staff-patients.png`, fullPage: true });
  });

  it("follows a bulk job on the Bulk jobs page until it is done, without a reload, and pages its rejected lines", async () => {
    // The job waits QUEUED while the test holds its client's import lock (reactors/bulkImporter.ts).
    const lockKey = `${TENANT}:${staff.tenant.client.clientId}`;
    const lock = await staff.service.db.connect();
    await lock.query("select pg_advisory_lock(hashtext('bulk-import'), hashtext($1))", [lockKey]);
    const released = async () => {
      await lock.query("select pg_advisory_unlock(hashtext('bulk-import'), hashtext($1))", [lockKey]);
      lock.release();
    };
    let jobId: string;
    try {
      // 54 lines: 2 reports, then one that is not JSON, one with an impossible date and 50 without the required fields.
      const lines = [
        JSON.stringify(labReport("BULK-1")),
        '{"externalId": "BULK-CUT", ',
        JSON.stringify(labReport("BULK-DAY", { reportedAt: "2026-02-30 08:00:00" })),
        ...Array.from({ length: 50 }, (_, i) => JSON.stringify({ externalId: `BULK-BARE-${i}` })),
        JSON.stringify(labReport("BULK-2")),
      ];
      const submitted = await fetch(`${staff.service.url}/open/v1/lab/reports/bulk`, {
        method: "POST",
        headers: { authorization: `Bearer ${staff.tenant.client.key}`, "content-type": "application/x-ndjson" },
        body: lines.join("\n"),
      });
      expect(submitted.status).to.equal(202);
      jobId = ((await submitted.json()) as { data: { jobId: string } }).data.jobId;

      await page.getByRole("link", { name: "Bulk jobs" }).click();
      await ready(".page-bulk-jobs .page-body");
      expect(await page.locator(".tabs a[aria-current=page]").textContent()).to.equal("Bulk jobs");
      const row = page.locator(`tr[data-job-id="${jobId}"]`);
      expect(await row.getAttribute("data-status")).to.equal("QUEUED");
      expect(await row.locator(".job-status").textContent()).to.equal("Queued");
      expect(await row.locator("td").nth(1).textContent()).to.equal("Central lab LIS");
      expect(await row.locator(".progress-text").textContent()).to.equal("0 / 54");
      expect(await page.locator(".page-bulk-jobs .count").textContent()).to.equal("1 job · updating every 2 seconds");
      await page.screenshot({ path: `${OUT}staff-bulk-queued.png`, fullPage: true });

      // It asks again while the job waits, and no more once the page is left.
      const listCalls = () => {
        const seen: string[] = [];
        const note = (request: { url(): string }) =>
          void (new URL(request.url()).pathname === "/api/bulk-jobs" && seen.push(request.url()));
        page.on("request", note);
        return { seen, stop: () => page.off("request", note) };
      };
      const whileQueued = listCalls();
      await page.waitForTimeout(2500);
      whileQueued.stop();
      expect(whileQueued.seen.length, "calls in 2.5 s while a job is queued").to.be.oneOf([1, 2]);
      await page.getByRole("link", { name: "Patients" }).click();
      await ready(".page-patients .page-body");
      const afterLeaving = listCalls();
      await page.waitForTimeout(2500);
      afterLeaving.stop();
      expect(afterLeaving.seen, "calls after leaving the page").to.deep.equal([]);
      await page.getByRole("link", { name: "Bulk jobs" }).click();
      await ready(".page-bulk-jobs .page-body");
    } finally {
      await released();
    }

    // The worker takes the job (its safety net looks every 5 s); the page follows it without a reload.
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    const row = page.locator(`tr[data-job-id="${jobId}"]`);
    await page.locator(`tr[data-job-id="${jobId}"][data-status=DONE]`).waitFor({ timeout: 20_000 });
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).to.equal(true);
    expect(await page.locator(".status").textContent()).to.equal(
      `Job ${jobId.slice(0, 8)} is done: 2 accepted, 52 rejected.`,
    );
    expect(await row.locator(".job-status").textContent()).to.equal("Done");
    expect(await row.locator(".progress-text").textContent()).to.equal("54 / 54");
    expect(
      await row
        .locator("progress")
        .evaluate((bar) => [(bar as HTMLProgressElement).value, (bar as HTMLProgressElement).max]),
    ).to.deep.equal([54, 54]);
    const counts = await row.locator("td.num").evaluateAll((cells) => cells.map((cell) => cell.textContent));
    expect(counts, "accepted, created, updated, unchanged, unmatched, rejected").to.deep.equal([
      "2",
      "2",
      "0",
      "0",
      "0",
      "52",
    ]);
    expect(await row.locator(".finished").textContent(), "the time (the date too past midnight)").to.match(
      /^(\d{4}-\d{2}-\d{2} )?\d{2}:\d{2}:\d{2}$/,
    );
    expect(await page.locator(".page-bulk-jobs .count").textContent()).to.equal("1 job");
    await page.screenshot({ path: `${OUT}staff-bulk-done.png`, fullPage: true });

    // The rejected lines, 50 a page, as the sender reads them.
    const sent = (
      await staff.tenant.call("GET", `/open/v1/bulk/${jobId}/rejected?limit=3`, { token: staff.tenant.client.key })
    ).body.data;
    const opener = row.getByRole("button", { name: `Rejected lines of job ${jobId.slice(0, 8)}` });
    await opener.click();
    const dialog = page.locator("dialog:has(.rejected-body)");
    await ready("dialog .rejected-body");
    expect(await dialog.locator("h2").textContent()).to.equal(`Rejected lines of job ${jobId.slice(0, 8)}`);
    expect(await dialog.locator(".pager-position").textContent()).to.equal("Lines 1–50 of 52 rejected");
    const shownLines = () =>
      dialog.locator("table.rejected tbody th").evaluateAll((cells) => cells.map((cell) => Number(cell.textContent)));
    expect(await shownLines()).to.deep.equal(Array.from({ length: 50 }, (_, i) => i + 2));
    const cellsOfLine = (line: number) =>
      dialog
        .locator(`tbody[data-line='${line}'] tr`)
        .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent)));
    expect(await cellsOfLine(2)).to.deep.equal([["2", "—", "(the whole line)", sent.items[0].errors[0].message]]);
    expect(sent.items[1].errors[0].field).to.equal("reportedAt");
    expect(await cellsOfLine(3)).to.deep.equal([["3", "BULK-DAY", "reportedAt", sent.items[1].errors[0].message]]);
    expect(
      (await cellsOfLine(4)).map((cells) => cells.at(-2)),
      "each problem of a line in a row of its own",
    ).to.deep.equal(["patient", "reportedAt", "items"]);
    await page.screenshot({ path: `${OUT}staff-bulk-rejected.png` });

    const previous = dialog.getByRole("button", { name: "Previous" });
    const next = dialog.getByRole("button", { name: "Next" });
    expect(await previous.isDisabled()).to.equal(true);
    await next.click();
    await page.waitForFunction(
      () => document.querySelector("dialog .pager-position")?.textContent === "Lines 51–52 of 52 rejected",
    );
    await ready("dialog .rejected-body");
    expect(await shownLines()).to.deep.equal([52, 53]);
    expect(await next.isDisabled()).to.equal(true);
    expect(
      await previous.evaluate((button) => button === document.activeElement),
      "focus moves to Previous when Next is done",
    ).to.equal(true);
    await previous.click();
    await page.waitForFunction(
      () => document.querySelector("dialog .pager-position")?.textContent === "Lines 1–50 of 52 rejected",
    );

    // Closing gives the focus back to the row's button, kept through the page's updates.
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await opener.evaluate((button) => button === document.activeElement)).to.equal(true);
  });

  it("lays the Bulk jobs page out in the same centred column as the other pages on a 1366 px laptop (en, zh)", async () => {
    for (const lang of ["en", "zh"] as const) {
      const laptop = await signedInPage(staff, TENANT, { lang, fragment: "#reports" });
      await laptop.setViewportSize({ width: 1366, height: 768 });
      const column = async (name: string) => {
        await laptop.evaluate((hash) => (location.hash = hash), `#${name}`);
        await laptop.locator(`main.page-${name} .page-body[data-state=ready]`).waitFor({ timeout: 15_000 });
        const box = (await laptop.locator(`main.page-${name}`).boundingBox())!;
        return { left: Math.round(box.x), width: Math.round(box.width) };
      };
      const reports = await column("reports");
      const jobs = await column("bulk-jobs");
      expect(jobs, `${lang}: the bulk jobs column against the reports column ${JSON.stringify(reports)}`).to.deep.equal(
        reports,
      );
      expect(reports.left, `${lang}: centred, with room either side`).to.be.greaterThan(0);
      await laptop.close();
    }
  });

  it("ends the session on sign-out, and when the service stops accepting the token", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.locator("#sign-in-token").waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).to.equal(0);

    // A token kept in the tab that the service no longer accepts sends the person back to sign in.
    await page.evaluate(() =>
      sessionStorage.setItem("dialysis-hub.staff.session", JSON.stringify({ token: "dha_revoked", tenant: "h1" })),
    );
    await page.reload();
    await page.locator(".sign-in .form-error").waitFor();
    expect(await page.locator(".sign-in .form-error").textContent()).to.match(/^This token does not sign you in/);
    expect(staff.cspViolations).to.deep.equal([]);
  });
});
