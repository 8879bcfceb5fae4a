import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Builds the web bundle when the staff pages are missing from it (a dist built before they existed). */
export function ensureStaffBundle(): void {
  const web = new URL("../../web/", import.meta.url);
  if (
    ["staff.js", "staffEditor.js", "staffChart.js", "staff.css", "embed.js"].every((file) =>
      existsSync(new URL(`dist/${file}`, web)),
    )
  )
    return;
  execFileSync(process.execPath, [fileURLToPath(new URL("build.mjs", web))], { stdio: "inherit" });
}
