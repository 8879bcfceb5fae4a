/**
 * A worker thread of the docx export (workerPool.ts starts it; in the build it is an entry of its
 * own, dist/docxWorker.js, see src/buildServer.ts): draws a chart — its ECharts option, then the
 * PNG — or builds and zips a report's or a quality month's document, one job at a time, away from the service's event loop.
 */
import { chartOption } from "../charts/chartOptions.ts";
import { renderChartPng } from "../charts/renderChart.ts";
import { docxFile, type DocxAnswer, type DocxJob } from "./docxExport.ts";
import { qualityDocxFile } from "../../quality/export/qualityDocx.ts";
import { serveJobs } from "./workerPool.ts";

serveJobs<DocxJob, DocxAnswer>(async (job) => {
  if (job.kind === "document") return { file: await docxFile(job.layer, job.images) };
  if (job.kind === "qualityDocument") return { file: await qualityDocxFile(job) };
  let option;
  try {
    option = chartOption(job.node, job.result, { animation: false, lang: job.lang });
  } catch (error) {
    // A column the query does not have: the author's problem, shown in the chart's place.
    return { problem: error instanceof Error ? error.message : String(error) };
  }
  return { png: renderChartPng(option, job.size) };
});
