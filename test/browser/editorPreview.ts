import type { Frame, Page } from "playwright-core";

/**
 * Does `act` (a save in the report editor) and waits until the preview frame has loaded its next
 * address and rendered every node; answers that frame. The address changes with each save
 * (web/staff/editor/previewPane.ts), so the page shown before cannot pass for the new one.
 * Shared by the editor's browser test and its benchmark.
 */
export async function previewAfter(page: Page, act: () => Promise<void>, timeout = 30_000): Promise<Frame> {
  const frameElement = page.locator(".preview-frame");
  const before = await frameElement.getAttribute("src");
  await act();
  await page.waitForFunction((old) => document.querySelector(".preview-frame")?.getAttribute("src") !== old, before, {
    polling: "raf",
    timeout,
  });
  const src = (await frameElement.getAttribute("src"))!;
  const deadline = Date.now() + timeout;
  let frame = page.frames().find((candidate) => candidate.url().endsWith(src));
  while (!frame) {
    if (Date.now() > deadline) throw new Error(`the preview did not load ${src}`);
    await page.waitForTimeout(5);
    frame = page.frames().find((candidate) => candidate.url().endsWith(src));
  }
  await frame.waitForFunction(() => document.body.dataset.rendered === "true", undefined, { polling: "raf", timeout });
  return frame;
}
