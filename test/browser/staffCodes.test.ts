import { expect } from "chai";
import type { Page } from "playwright-core";
import { labReport, LI_SI, ZHANG_SAN } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { useStaffBrowserSuite, signedInPage } from "./staffSuite.ts";

/*
 * Issue #34, item 6: the Chinese pages showed the service's English sentences ("no dialysis patient
 * with this idCard"). The service keeps its sentences for API callers and adds a stable code beside
 * them; the pages show the words of the code in their language, else the sentence.
 */

const TENANT = "h1";

describe("staff pages translate the service's coded answers (zh)", function () {
  this.timeout(60_000);
  const staff = useStaffBrowserSuite(TENANT);
  let page: Page;
  const ready = (selector: string) => page.locator(`${selector}[data-state=ready]`).waitFor({ timeout: 15_000 });

  before(async () => {
    const pushed = await staff.tenant.push("lab", [
      labReport("C-1", { patient: { idCard: LI_SI.idCard, name: LI_SI.name } }),
      labReport("C-2", { patient: { name: ZHANG_SAN.name, hisPatientId: "H-7" } }),
    ]);
    expect(pushed.body.data.results.map((r: { matched: boolean }) => r.matched)).to.deep.equal([false, false]);
    await until(async () => (await staff.tenant.unmatched()).length === 2, 10_000);
    page = await signedInPage(staff, TENANT, { lang: "zh", fragment: "#unmatched" });
  });

  it("shows why each report waits in Chinese, in the queue and in the claim dialog", async () => {
    await ready(".page-unmatched .page-body");
    expect(await page.locator("tr[data-external-id=C-1] .reason").textContent()).to.equal("没有此身份证号的透析患者");
    expect(await page.locator("tr[data-external-id=C-2] .reason").textContent()).to.equal("报告未提供身份证号");
    await page.getByRole("button", { name: "认领报告 C-1" }).click();
    const dialog = page.locator("dialog:has(.claim-form)");
    await dialog.waitFor();
    expect(await dialog.locator(".sent-patient").textContent())
      .to.include("没有此身份证号的透析患者")
      .and.not.include("idCard");
    await dialog.getByRole("button", { name: "关闭" }).first().click();
    await dialog.waitFor({ state: "detached" });
  });

  it("says in Chinese why a patient cannot be saved: an invalid id card, one already registered", async () => {
    await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=zh#patients`);
    await ready(".page-patients .page-body");
    await page.getByRole("button", { name: "登记患者" }).click();
    const form = page.locator("dialog:has(.patient-form)");
    await form.getByLabel("患者编号").fill("P002");
    await form.getByLabel("姓名").fill(LI_SI.name);
    await form.getByLabel("身份证号").fill("440524188001010015"); // wrong check digit
    await form.getByRole("button", { name: "保存" }).click();
    await form.locator(".form-error").waitFor();
    expect(await form.locator(".form-error").textContent()).to.equal(
      "身份证号无效：应为 18 位（17 位数字加校验位 0-9 或 X），出生日期须真实，校验位须正确。",
    );
    expect(await form.getByLabel("身份证号").getAttribute("aria-invalid")).to.equal("true");
    await form.getByLabel("身份证号").fill(ZHANG_SAN.idCard); // 张三's, P001
    await form.getByRole("button", { name: "保存" }).click();
    await page.waitForFunction(() =>
      document.querySelector("dialog .form-error")?.textContent?.startsWith("此身份证号已登记"),
    );
    expect(await form.locator(".form-error").textContent()).to.equal("此身份证号已登记给另一位患者，请修改该患者。");
  });

  it("says in Chinese that the draft was saved by someone else meanwhile", async () => {
    const spec = {
      version: 1,
      title: "病区",
      params: [],
      queries: { wards: { sql: "select ward from patients order by ward" } },
      nodes: [{ id: "t", type: "table", query: "wards" }],
    };
    const save = (title: string) =>
      staff.tenant.call("PUT", "/api/reports/codes-board/draft", {
        token: staff.tenant.authorToken,
        body: { spec: { ...spec, title } },
      });
    expect((await save("第一稿")).status).to.equal(200);
    const editor = await signedInPage(staff, TENANT, { lang: "zh", fragment: "#edit/codes-board" });
    await editor.locator(".page-editor .editor").waitFor();
    expect((await save("别人的稿")).status).to.equal(200);
    await editor.getByLabel("标题", { exact: true }).first().fill("我的稿");
    await editor.getByRole("button", { name: "保存并预览" }).click();
    const conflict = editor.locator(".editor-conflict");
    await conflict.waitFor();
    expect(await conflict.textContent())
      .to.include("草稿已被他人修改。")
      .and.include("草稿在您打开之后又被保存过。")
      .and.not.include("If-Match");
  });
});
