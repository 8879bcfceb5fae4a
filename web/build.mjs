// Bundles the embed page (web/embed.ts + web/embed.css) into web/dist/embed.js and embed.css,
// and the staff pages (web/staff.ts + web/staff.css) into web/dist/staff.js and staff.css; the report
// editor (web/staffEditor.ts, CodeMirror) and the patient chart (web/staffChart.ts, ECharts) are
// bundles of their own, loaded when such a page opens.
// Run by `npm run build:web`, which `prepare` runs after `npm install` / `npm ci`.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

const web = fileURLToPath(new URL(".", import.meta.url));

const result = await build({
  absWorkingDir: web,
  entryPoints: ["boot.ts", "embed.ts", "staff.ts", "staffEditor.ts", "staffChart.ts"],
  outdir: "dist",
  entryNames: "[name]",
  bundle: true,
  format: "iife",
  platform: "browser",
  target: ["chrome100", "edge100", "firefox100", "safari15"],
  minify: true,
  legalComments: "eof",
  charset: "utf8",
  define: { "process.env.NODE_ENV": '"production"' },
  metafile: true,
  logLevel: "warning",
});

for (const [file, { bytes }] of Object.entries(result.metafile.outputs)) {
  console.log(`${file.padEnd(20)} ${(bytes / 1024).toFixed(1)} KiB`);
}
