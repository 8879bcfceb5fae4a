import { expect } from "chai";
import type { FrameLocator, Page } from "playwright-core";
import { demoReports } from "../../src/demo/demoReports.ts";
import { until } from "../support/service.ts";
import { expectAccessible } from "./accessibility.ts";
import { englishRead } from "./englishRead.ts";
import { previewAfter } from "./editorPreview.ts";
import { OUT, useStaffBrowserSuite } from "./staffSuite.ts";

/*
 * Issue #22: an author makes a report in the staff pages' editor without writing JSON, sees the
 * service's refusal at the JSON path it names, previews the draft in the embed page beside the
 * editor, publishes, compares two versions and restores an old one.
 */

const TENANT = "h1";
const WARD_SQL = "select ward, count(*) as patients from patients group by ward order by ward";

describe("the report editor in chromium", function () {
  this.timeout(90_000);
  const staff = useStaffBrowserSuite(TENANT, { viewport: { width: 1500, height: 1000 } });
  let page: Page;
  const pageErrors: string[] = [];

  const preview = (): FrameLocator => page.frameLocator(".preview-frame");
  /** Replaces the text of the CodeMirror editor labelled `label`. */
  const typeInto = async (label: string, text: string) => {
    const editor = page.getByRole("textbox", { name: label, exact: true });
    await editor.click();
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText(text);
  };
  const saveAndPreview = () => page.getByRole("button", { name: "Save and preview" }).click();

  before(async () => {
    page = await staff.newPage();
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=en`);
    await page.locator("#sign-in-token").fill(staff.tenant.authorToken);
    await page.locator("#sign-in-token").press("Enter");
    await page.locator(".page-reports .page-body[data-state=ready]").waitFor();
  });

  it("creates a report in the form: a query in the SQL editor, a table, and the draft previewed beside it", async () => {
    await page.getByRole("link", { name: "New report" }).click();
    await page.locator(".page-editor .editor").waitFor();
    expect(await page.locator("h1").textContent()).to.equal("New report");

    await page.getByLabel("Report id").fill("ward-board");
    await page.getByLabel("Title", { exact: true }).fill("Patients by ward");
    await page.getByRole("button", { name: "Add query" }).click();
    await typeInto("SQL of query query1", WARD_SQL);
    await page.getByLabel("Query name").fill("wards");
    await page.getByLabel("Query name").press("Tab");
    await page.getByRole("button", { name: "Add content" }).click();
    const node = page.locator('.spec-card[data-path="nodes[0]"]');
    expect(await node.getByLabel("Query").inputValue(), "a new table shows the first query").to.equal("wards");
    await node.getByLabel("Title", { exact: true }).fill("Wards");

    await previewAfter(page, saveAndPreview);
    expect(await page.locator(".editor-status").textContent()).to.match(/^Draft saved at \d\d:\d\d\.$/);
    expect(await preview().locator("table thead th").allTextContents()).to.deep.equal(["ward", "patients"]);
    expect(await preview().locator("table tbody tr").first().locator("td").allTextContents()).to.deep.equal(["A", "1"]);
    expect(page.url(), "the address names the saved report").to.match(/#edit\/ward-board$/);
    expect(await page.locator(".editor-audit .grade").textContent()).to.equal("A");

    // An audit finding links to where it points; Ctrl+S saves and previews too.
    await typeInto("SQL of query wards", "select * from patients order by ward");
    await previewAfter(page, () => page.keyboard.press("Control+S"));
    const finding = page.locator('.editor-audit li[data-rule="select-star"]');
    await finding.getByRole("button", { name: "queries.wards" }).click();
    expect(
      await page.evaluate(() => document.activeElement?.closest("[data-path]")?.getAttribute("data-path")),
    ).to.match(/^queries\.wards/);
    await typeInto("SQL of query wards", WARD_SQL);
    await previewAfter(page, saveAndPreview);
    expect(await page.locator(".editor-audit li").count()).to.equal(0);
  });

  it("shows the service's refusal at the JSON path it names, in the form and in the JSON view", async () => {
    const node = page.locator('.spec-card[data-path="nodes[0]"]');
    await node.getByLabel("Id", { exact: true }).fill("ward table");
    await saveAndPreview();
    const problems = page.locator(".editor-problems");
    await problems.waitFor();
    expect(await problems.textContent())
      .to.include("nodes[0].id")
      .and.include("id must be 1 to 64 letters, digits, _ or -");
    const idField = node.getByLabel("Id", { exact: true });
    expect(await idField.getAttribute("aria-invalid")).to.equal("true");
    expect(await node.locator(".field-error").textContent()).to.include("id must be 1 to 64 letters");

    // "Go to" moves to the field; the JSON view marks the same member.
    await problems.getByRole("button", { name: "nodes[0].id" }).click();
    expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.path)).to.equal(
      "nodes[0].id",
    );
    await page.getByRole("tab", { name: "JSON" }).click();
    await page.locator("#editor-json-panel .cm-lintRange-error").first().waitFor();
    expect(await page.locator("#editor-json-panel .cm-lintRange-error").first().textContent()).to.match(
      /"id"|ward table/,
    );

    // Fixed in the JSON view, the form shows the fix.
    const jsonText = await page.locator("#editor-json-panel .cm-content").textContent();
    expect(jsonText).to.include('"ward table"');
    await page.locator("#editor-json-panel .cm-content").click();
    await page.keyboard.press("Control+A");
    const spec = JSON.parse(
      await page.evaluate(() => (document.querySelector("#editor-json-panel .cm-content") as HTMLElement).innerText),
    );
    spec.nodes[0].id = "wards";
    await page.keyboard.insertText(JSON.stringify(spec, null, 2));
    await page.getByRole("tab", { name: "Form" }).click();
    expect(
      await page.locator('.spec-card[data-path="nodes[0]"]').getByLabel("Id", { exact: true }).inputValue(),
    ).to.equal("wards");
    await previewAfter(page, saveAndPreview);
    expect(await problems.isHidden()).to.equal(true);
    await page.screenshot({ path: `${OUT}editor-preview.png`, fullPage: true });
  });

  it("publishes, compares two versions side by side and restores the first", async () => {
    const publish = async (mode: "dynamic" | "snapshot", note: string) => {
      await page.getByRole("button", { name: "Publish…" }).click();
      const dialog = page.locator("dialog .publish-form");
      await dialog.getByLabel(mode === "snapshot" ? /^Snapshot/i : /^Dynamic/i).check();
      await dialog.getByLabel("Note").fill(note);
      await dialog.getByRole("button", { name: "Publish" }).click();
      await page.locator("dialog").waitFor({ state: "detached" });
    };
    await publish("snapshot", "first board");
    await page.locator('.versions-panel tr[data-version="v1"]').waitFor();
    await page.locator(".editor-status", { hasText: "Published as v1." }).waitFor();
    expect(
      await page.getByRole("button", { name: "Discard draft" }).isDisabled(),
      "no draft after publishing",
    ).to.equal(true);

    await page.getByLabel("Title", { exact: true }).first().fill("Patients per ward");
    await publish("dynamic", "clearer title");
    await page.locator('.versions-panel tr[data-version="v2"]').waitFor();

    await page.getByLabel("Older").selectOption("v1");
    await page.getByLabel("Newer").selectOption("v2");
    await page.getByRole("button", { name: "Show differences" }).click();
    const change = page.locator('table.diff tr[data-change="title"]');
    await change.waitFor();
    expect(await change.locator("td.before").textContent()).to.equal("Patients by ward");
    expect(await change.locator("td.after").textContent()).to.equal("Patients per ward");
    expect(await page.locator("table.diff tbody tr").count(), "nothing else changed").to.equal(1);

    await page.getByRole("button", { name: "Restore v1" }).click();
    await page.locator("dialog .restore-form").getByRole("button", { name: "Restore" }).click();
    const v3 = page.locator('.versions-panel tr[data-version="v3"]');
    await v3.waitFor();
    expect(await v3.locator("td.note").textContent()).to.equal("restored from v1");
    expect(
      await page.getByLabel("Title", { exact: true }).first().inputValue(),
      "the editor starts from the restored version",
    ).to.equal("Patients by ward");
    const versions = (await staff.tenant.call("GET", "/api/reports/ward-board/versions")).body as Array<{
      no: string;
      mode: string;
      current: boolean;
    }>;
    expect(versions.map((v) => [v.no, v.mode, v.current])).to.deep.equal([
      ["v3", "snapshot", true],
      ["v2", "dynamic", false],
      ["v1", "snapshot", false],
    ]);
    await page.screenshot({ path: `${OUT}editor-versions.png`, fullPage: true });
  });

  it("adds a filter and switches an export off in the form: the preview shows the filter, and not the export", async () => {
    await page.getByRole("button", { name: "Add filter" }).click();
    const filter = page.locator('.spec-card[data-path="params[0]"]');
    await filter.getByLabel("Name", { exact: true }).fill("ward");
    await filter.getByLabel("Name", { exact: true }).press("Tab");
    await page.locator('.spec-card[data-path="params[0]"]').getByLabel("Label", { exact: true }).fill("Ward");
    await page
      .locator('.spec-card[data-path="params[0]"]')
      .getByRole("group", { name: "Default" })
      .getByRole("textbox")
      .fill("A");
    await typeInto(
      "SQL of query wards",
      "select ward, count(*) as patients from patients [[where ward = {{ward}}]] group by ward order by ward",
    );
    await page.getByLabel("Allow export to Word (docx)").uncheck();
    const frame = await previewAfter(page, saveAndPreview);
    expect(await frame.getByLabel("Ward").inputValue()).to.equal("A");
    expect(await frame.getByRole("button", { name: "Export Excel" }).count()).to.equal(1);
    expect(await frame.getByRole("button", { name: "Export Word" }).count()).to.equal(0);
    const saved = (
      await staff.tenant.call("GET", "/api/reports/ward-board/versions/draft/source", {
        token: staff.tenant.authorToken,
      })
    ).body.spec;
    expect(saved.params).to.deep.equal([{ name: "ward", label: "Ward", type: "text", default: "A" }]);
    expect(saved.export).to.deep.equal({ docx: false });

    // Switched on again, the member goes: the format's default is on.
    await page.getByLabel("Allow export to Word (docx)").check();
    await saveAndPreview();
    await until(
      async () =>
        !(
          "export" in
          (
            await staff.tenant.call("GET", "/api/reports/ward-board/versions/draft/source", {
              token: staff.tenant.authorToken,
            })
          ).body.spec
        ),
    );
  });

  it("does not overwrite a draft another author saved meanwhile: it says so, and loads theirs or saves over it on request", async () => {
    const theirs = async (title: string) => {
      const draft = (
        await staff.tenant.call("GET", "/api/reports/ward-board/versions/draft/source", {
          token: staff.tenant.authorToken,
        })
      ).body;
      expect(
        (
          await staff.tenant.call("PUT", "/api/reports/ward-board/draft", {
            token: staff.tenant.authorToken,
            body: { spec: { ...draft.spec, title } },
          })
        ).status,
      ).to.equal(200);
    };
    const title = () => page.getByLabel("Title", { exact: true }).first();
    const conflict = page.locator(".editor-conflict");

    await theirs("Their title");
    await title().fill("My title");
    await saveAndPreview();
    await conflict.waitFor();
    expect(await conflict.textContent())
      .to.include("Someone else changed the draft.")
      .and.include("saved again since");
    await conflict.getByRole("button", { name: "Save mine anyway (overwrite)" }).click();
    await conflict.waitFor({ state: "hidden" });
    await until(
      async () =>
        (
          await staff.tenant.call("GET", "/api/reports/ward-board/versions/draft/source", {
            token: staff.tenant.authorToken,
          })
        ).body.title === "My title",
    );

    await theirs("Their second title");
    await title().fill("My second title");
    await saveAndPreview();
    await conflict.waitFor();
    await conflict.getByRole("button", { name: "Load the saved draft (drop my changes)" }).click();
    await conflict.waitFor({ state: "hidden" });
    expect(await title().inputValue()).to.equal("Their second title");
    // Based on their draft now, the next save goes through.
    await title().fill("Agreed title");
    await saveAndPreview();
    await page.locator(".editor-status", { hasText: "Draft saved" }).waitFor();
    expect(
      (
        await staff.tenant.call("GET", "/api/reports/ward-board/versions/draft/source", {
          token: staff.tenant.authorToken,
        })
      ).body.title,
    ).to.equal("Agreed title");

    // Publishing, too, is of the draft the editor shows: not of one saved meanwhile.
    await theirs("Their unseen title");
    await page.getByRole("button", { name: "Publish…" }).click();
    await page.locator("dialog .publish-form").getByRole("button", { name: "Publish" }).click();
    await conflict.waitFor();
    expect(await page.locator("dialog").count()).to.equal(0);
    const versions = (await staff.tenant.call("GET", "/api/reports/ward-board/versions")).body as unknown[];
    expect(versions.length, "nothing was published").to.equal(3);
  });

  it("opens each demo report (every spec addition in use) in the form and the JSON view and saves it unchanged", async () => {
    for (const demo of demoReports(["2026-01-01", "2026-03-31"])) {
      const id = `demo-${demo.id}`;
      expect(
        (
          await staff.tenant.call("PUT", `/api/reports/${id}/draft`, {
            token: staff.tenant.authorToken,
            body: { title: demo.title, spec: demo.spec },
          })
        ).status,
      ).to.equal(200);
      await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=en#edit/${id}`);
      await page.locator(".page-editor .editor").waitFor();
      await page.getByRole("tab", { name: "JSON" }).click();
      await page.getByRole("tab", { name: "Form" }).click();
      await saveAndPreview();
      await page.locator(".editor-status", { hasText: "Draft saved" }).waitFor();
      const saved = await staff.tenant.call("GET", `/api/reports/${id}/versions/draft/source`, {
        token: staff.tenant.authorToken,
      });
      expect(saved.body.spec, demo.id).to.deep.equal(demo.spec);
    }

    // Going to another page with unsaved changes asks first; staying keeps them.
    await page.getByLabel("Title", { exact: true }).first().fill("Not saved yet");
    const asked: string[] = [];
    page.once("dialog", (dialog) => void (asked.push(dialog.message()), dialog.dismiss()));
    await page.getByRole("link", { name: "Reports", exact: true }).click();
    await page.waitForFunction(() => location.hash.startsWith("#edit/"));
    expect(asked).to.deep.equal(["There are unsaved changes. Leave anyway?"]);
    expect(await page.getByLabel("Title", { exact: true }).first().inputValue()).to.equal("Not saved yet");
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("link", { name: "Reports", exact: true }).click();
    await page.locator(".page-reports .page-body[data-state=ready]").waitFor();
  });

  it("offers its drop-down choices in words of the page's language alone (zh, en; issue #54)", async () => {
    // Issue #34 item 6: the lists showed "multiSelect", "scatter", "center" on the Chinese page.
    const id = `demo-${demoReports(["2026-01-01", "2026-03-31"])[0]!.id}`;
    const choices = async (lang: "zh" | "en") => {
      await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=${lang}#edit/${id}`);
      await page.locator(".page-editor .editor").waitFor();
      return page
        .locator('select[data-path$=".type"], select[data-path$=".chart"], select[data-path$=".align"]')
        .evaluateAll((selects) =>
          selects.map((select) => ({
            path: select.getAttribute("data-path")!,
            chosen: (select as HTMLSelectElement).selectedOptions[0]?.textContent ?? "",
            raw: [...(select as HTMLSelectElement).options]
              .filter((o) => o.value && o.textContent === o.value)
              .map((o) => o.value),
          })),
        );
    };
    const zh = await choices("zh");
    expect(zh.map((c) => c.chosen)).to.include.members(["日期范围", "多选", "图表", "折线图", "指标"]);
    expect(
      zh.filter((c) => c.raw.length),
      "no choice shown as its bare value",
    ).to.deep.equal([]);
    const en = await choices("en");
    expect(en.map((c) => c.chosen)).to.include.members(["Date range", "Several choices", "Chart", "Line chart"]);
    expect(en.filter((c) => c.raw.length)).to.deep.equal([]);

    // A text meant for the screen only is unticked from print (issue #34 item 11: "Click a month…" in the Word file).
    const printed = page.locator('.spec-card[data-path="nodes[0]"]').getByLabel(/^Also in print and the Word export/);
    expect(await printed.isChecked()).to.equal(true);
    // Not uncheck(): the form is drawn again on the change, so the box read back is a new one. A
    // click that lands while the form is being drawn the first time is lost with the old box: the
    // box is read again once the drawing has settled, and clicked again if it is still ticked.
    for (let tries = 0; await printed.isChecked(); tries++) {
      if (tries === 5) throw new Error("the print box stayed ticked after 5 clicks");
      await printed.click();
      await page.waitForTimeout(300);
    }
    await previewAfter(page, saveAndPreview);
    const saved = await staff.tenant.call("GET", `/api/reports/${id}/versions/draft/source`, {
      token: staff.tenant.authorToken,
    });
    expect(saved.body.spec.nodes[0]).to.include({ type: "text", print: false });
  });

  it("edits a chart's series names (labels) in the form, and shows the refusal of a name for a column the chart does not plot (en, zh)", async () => {
    const id = "demo-dialysis-adequacy"; // saved by the test before
    await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=en#edit/${id}`);
    await page.locator(".page-editor .editor").waitFor();
    const names = page.locator('.spec-card[data-path="nodes[6]"] fieldset[data-path="nodes[6].labels"]');
    expect(await names.locator("legend").textContent()).to.equal("Series names");
    const cell = (row: number, key: string) => names.locator(`[data-path="nodes[6].labels[${row}].${key}"]`);
    expect([
      await cell(0, "column").inputValue(),
      await cell(0, "label").inputValue(),
      await cell(1, "column").inputValue(),
      await cell(1, "label").inputValue(),
    ]).to.deep.equal(["ktv", "spKt/V", "urr", "URR"]);
    await cell(1, "label").fill("URR (%)");
    await names.getByRole("button", { name: "Add series name" }).click();
    await cell(2, "column").fill("ktvv");
    await cell(2, "label").fill("Kt/V");
    await saveAndPreview();
    const problems = page.locator(".editor-problems");
    await problems.waitFor();
    expect(await problems.textContent())
      .to.include("nodes[6].labels.ktvv")
      .and.include('labels names "ktvv", which is not a column of y or y2: use one of ktv, urr as the key');
    await names.getByRole("button", { name: "Remove 3" }).click();
    await previewAfter(page, saveAndPreview);
    const saved = await staff.tenant.call("GET", `/api/reports/${id}/versions/draft/source`, {
      token: staff.tenant.authorToken,
    });
    expect(saved.body.spec.nodes[6].labels).to.deep.equal({ ktv: "spKt/V", urr: "URR (%)" });

    await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=zh#edit/${id}`);
    await page.locator(".page-editor .editor").waitFor();
    expect(await names.locator("legend").textContent()).to.equal("系列名称");
    expect(await names.getByRole("button", { name: "添加系列名称" }).count()).to.equal(1);
  });

  it("marks a query that fails when saved at its SQL line and column, and asks before publishing it (en, zh)", async () => {
    // Issue #34, item 3: `avg(ktvv)` was saved with grade A and published; viewers met the error.
    const spec = {
      version: 1,
      title: "Kt/V by month",
      params: [],
      queries: {
        monthly: {
          sql: "select month, avg(value_avg) as ktv from monthly_results where std_code = 'KTV' group by month order by month",
        },
      },
      nodes: [{ id: "trend", type: "table", query: "monthly" }],
    };
    expect(
      (
        await staff.tenant.call("PUT", "/api/reports/ktv-board/draft", {
          token: staff.tenant.authorToken,
          body: { spec },
        })
      ).status,
    ).to.equal(200);
    await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=en#edit/ktv-board`);
    await page.locator(".page-editor .editor").waitFor();
    const sqlField = page.locator('.sql-field[data-path="queries.monthly.sql"]');

    await typeInto(
      "SQL of query monthly",
      "select month,\n  avg(ktvv) as ktv\nfrom monthly_results\ngroup by month order by month",
    );
    await previewAfter(page, saveAndPreview);
    const note = sqlField.locator(".query-problems");
    await note.waitFor();
    expect(await note.textContent()).to.equal(
      'This query failed when the draft was saved, at line 2, column 7: column "ktvv" does not exist.',
    );
    const mark = sqlField.locator(".cm-lintRange-error");
    expect(await mark.textContent(), "the unknown column is underlined where the database points").to.equal("ktvv");
    expect(
      await sqlField.locator(".cm-line").nth(1).locator(".cm-lintRange-error").count(),
      "on the second line",
    ).to.equal(1);
    const editor = page.getByRole("textbox", { name: "SQL of query monthly", exact: true });
    expect(await editor.getAttribute("aria-invalid")).to.equal("true");
    expect(await editor.getAttribute("aria-describedby")).to.equal(await note.getAttribute("id"));
    expect(await page.locator(".editor-audit .grade").textContent(), "the audit counts the failing query").to.equal(
      "B",
    );
    expect(await page.locator('.editor-audit li[data-rule="query-fails"]').textContent()).to.include(
      "at line 2, column 7",
    );
    await expectAccessible(page, "the editor showing a query that failed when saved");
    await page.screenshot({ path: `${OUT}editor-query-fails.png`, fullPage: true });

    // Publishing asks first: not without the box ticked, then as asked.
    await page.getByRole("button", { name: "Publish…" }).click();
    const dialog = page.locator("dialog .publish-form");
    const warning = dialog.locator(".publish-failing");
    await warning.waitFor();
    expect(await warning.textContent())
      .to.include("1 query of this draft fails when run with the filters' defaults")
      .and.include("queries.monthly");
    await expectAccessible(page, "the publish dialog asking about a failing query");
    await dialog.getByRole("button", { name: "Publish" }).click();
    expect(await dialog.locator(".form-error").textContent()).to.include("tick “publish anyway” first");
    expect(
      (await staff.tenant.call("GET", "/api/reports/ktv-board/versions")).body,
      "nothing published yet",
    ).to.deep.equal([]);
    await dialog.getByLabel("I know these queries fail: publish anyway").check();
    await dialog.getByRole("button", { name: "Publish" }).click();
    await page.locator(".editor-status", { hasText: "Published as v1." }).waitFor();
    const v1 = (await staff.tenant.call("GET", "/api/reports/ktv-board/versions/v1/audit")).body as {
      grade: string;
      findings: Array<{ rule: string }>;
    };
    expect(v1.grade).to.equal("B");
    expect(v1.findings.map((f) => f.rule)).to.include("query-fails");

    // In Chinese (a report never published); and an editor opened later on the saved draft still asks before publishing it.
    expect(
      (await staff.tenant.call("PUT", "/api/reports/ktv-zh/draft", { token: staff.tenant.authorToken, body: { spec } }))
        .status,
    ).to.equal(200);
    await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=zh#edit/ktv-zh`);
    await page.locator(".page-editor .editor").waitFor();
    await typeInto(
      "查询 monthly 的 SQL",
      "select month,\n  avg(ktvv) as ktv\nfrom monthly_results\ngroup by month order by month",
    );
    await previewAfter(page, () => page.getByRole("button", { name: "保存并预览" }).click());
    await note.waitFor();
    expect(await note.textContent()).to.equal(
      // Said in Chinese by its code, naming the author's own column (issue #54).
      "保存草稿时这个查询运行失败，位置在第 2 行第 7 列：列 ktvv 不存在，请检查列名。",
    );
    await expectAccessible(page, "the editor in Chinese showing a query that failed when saved");
    await page.reload();
    await page.locator(".page-editor .editor").waitFor();
    expect(
      await page.locator(".editor-audit .grade").textContent(),
      "the draft's audit as its save answered it",
    ).to.equal("B");
    await page.getByRole("button", { name: "发布…" }).click();
    expect(await dialog.locator(".publish-failing").textContent()).to.include(
      "这个草稿有 1 个查询在用筛选默认值运行时失败",
    );
    expect(
      await englishRead(page, ["ktvv", "monthly", "trend", "Kt/V by month", "Nurse Chen", TENANT]),
      "the publish dialog reads Chinese",
    ).to.deep.equal([]);
    // Each mode named once, then what it does (issue #54 read "动态 — 动态：…").
    expect(await dialog.locator("fieldset label").allTextContents()).to.deep.equal([
      "动态 — 每次打开时查询最新数据。",
      "快照 — 发布时冻结数据。",
    ]);
    await dialog.getByRole("button", { name: "取消" }).click();

    // Edited, the SQL is no longer the one that failed: its marks go.
    await typeInto(
      "查询 monthly 的 SQL",
      "select month, avg(value_avg) as ktv from monthly_results group by month order by month",
    );
    await page.locator(".query-problems").waitFor({ state: "detached" });
    await previewAfter(page, () => page.getByRole("button", { name: "保存并预览" }).click());
    expect(await sqlField.locator(".cm-lintRange-error").count()).to.equal(0);
    expect(await page.locator(".editor-audit .grade").textContent()).to.equal("A");
  });

  it("numbers what it adds from 1 (query1, param1, node1, detail1), so a card's heading reads “Query query1”, not “Query query” (en, zh)", async () => {
    const headings = {
      en: {
        addQuery: "Add query",
        addFilter: "Add filter",
        addContent: "Add content",
        addDrill: "Add drill-through",
        queries: ["Query query1", "Query query2"],
        filter: "Filter param1",
        node: "Table node1",
        drill: "Drill-through detail1",
      },
      zh: {
        addQuery: "添加查询",
        addFilter: "添加筛选条件",
        addContent: "添加内容",
        addDrill: "添加下钻",
        queries: ["查询 query1", "查询 query2"],
        filter: "筛选条件 param1",
        node: "表格 node1",
        drill: "下钻 detail1",
      },
    } as const;
    for (const lang of ["en", "zh"] as const) {
      const words = headings[lang];
      await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=${lang}#new`);
      await page.locator(".page-editor .editor").waitFor();
      const heading = (path: string) =>
        page.locator(`.spec-card[data-path="${path}"] > .spec-card-head h3`).textContent();
      await page.getByRole("button", { name: words.addQuery, exact: true }).click();
      await page.getByRole("button", { name: words.addQuery, exact: true }).click();
      expect([await heading("queries.query1"), await heading("queries.query2")], lang).to.deep.equal(words.queries);
      await page.getByRole("button", { name: words.addFilter, exact: true }).click();
      expect(await heading("params[0]"), lang).to.equal(words.filter);
      await page.getByRole("button", { name: words.addContent, exact: true }).click();
      expect(await heading("nodes[0]"), lang).to.equal(words.node);
      await page.getByRole("button", { name: words.addDrill, exact: true }).click();
      expect(await heading("drills.detail1"), lang).to.equal(words.drill);
    }
    // The new report is left unsaved on purpose.
    page.once("dialog", (dialog) => void dialog.accept());
    await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=en`);
  });

  it("adds a drill-through arg to a table in the form: the new row stays to be filled, and saves", async () => {
    // "Add arg" did nothing: the blank row was dropped when the form was drawn again from the spec.
    const spec = {
      version: 1,
      title: "Wards",
      params: [],
      queries: { wards: { sql: WARD_SQL } },
      nodes: [{ id: "byWard", type: "table", query: "wards", drill: { target: "patients", args: {} } }],
      drills: {
        patients: {
          title: "Patients of {ward}",
          args: [{ name: "ward", type: "text" }],
          queries: { rows: { sql: "select patient_ref from patients where ward = {{ward}}" } },
        },
      },
    };
    expect(
      (
        await staff.tenant.call("PUT", "/api/reports/drill-args/draft", {
          token: staff.tenant.authorToken,
          body: { spec },
        })
      ).status,
    ).to.equal(200);
    await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=en#edit/drill-args`);
    await page.locator(".page-editor .editor").waitFor();
    const args = page.locator('fieldset[data-path="nodes[0].drill.args"]');
    await args.getByRole("button", { name: "Add arg" }).click();
    const cell = (key: string) => args.locator(`[data-path="nodes[0].drill.args[0].${key}"]`);
    await cell("arg").waitFor();
    await cell("arg").fill("ward");
    await cell("column").fill("ward");
    await cell("column").press("Tab");
    await previewAfter(page, saveAndPreview);
    const saved = await staff.tenant.call("GET", "/api/reports/drill-args/versions/draft/source", {
      token: staff.tenant.authorToken,
    });
    expect(saved.body.spec.nodes[0].drill).to.deep.equal({ target: "patients", args: { ward: "ward" } });
  });

  it("ran without a Content-Security-Policy violation or a script error", () => {
    expect(staff.cspViolations).to.deep.equal([]);
    expect(pageErrors).to.deep.equal([]);
  });
});
