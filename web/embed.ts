/**
 * The embed page (contract C.7): `GET /embed/reports/{id}?version=&lang=zh|en` serves a shell
 * whose `<body data-…>` names the report, the resolved version, its mode, the tenant, the
 * language and the embed token; this bundle builds the page from the viewing API:
 * `GET view` (spec, initial params, snapshot data) and `POST data` in parallel, then the filter
 * bar, the node grid, drill-through layers and the export buttons.
 *
 * When every node of the report has finished (rendered or failed), the page sets
 * `document.body.dataset.rendered = "true"` and the performance mark `all-rendered`.
 */
import "./embed.css";
import { DRAFT_LABEL } from "../commands/reports/spec/specVocabulary.ts";
import { ApiError, createApi } from "./api.ts";
import { openDrill } from "./drill.ts";
import { exportButtons } from "./exports.ts";
import { createFilterBar } from "./filters.ts";
import { textsFor } from "./i18n.ts";
import { Layer } from "./layer.ts";
import { bootOf, firstCalls } from "./request.ts";
import type { OpenedReport, ParamValues, Queries } from "./types.ts";

const local = (dateTime: string) => dateTime.replace("T", " ");

let renders = 0;
function rendered(): void {
  renders++;
  document.body.dataset.renderCount = String(renders);
  document.body.dataset.rendered = "true";
  if (renders === 1) performance.mark("all-rendered");
}
function rendering(): void {
  document.body.dataset.rendered = "false";
}

async function main(): Promise<void> {
  const boot = bootOf(document.body);
  const texts = textsFor(boot.lang);
  const api = createApi(boot, texts);
  const app = document.getElementById("app")!;
  rendering();

  const snapshot = boot.mode === "snapshot";
  // boot.js has sent the first calls already (when it ran); else they are sent now.
  const sent = firstCalls(boot);
  const viewing = api.read<OpenedReport>(sent.view);
  const loading = sent.data ? api.read<{ queries: Queries }>(sent.data) : null;
  loading?.catch(() => {}); // handled below, after the view

  let view: OpenedReport;
  try {
    view = await viewing;
  } catch (error) {
    const box = document.createElement("div");
    box.className = "page-error";
    box.setAttribute("role", "alert");
    const h = document.createElement("h1");
    h.textContent = texts.openFailed;
    const p = document.createElement("p");
    p.textContent = error instanceof Error ? error.message : String(error);
    box.append(h, p);
    app.replaceChildren(box);
    rendered();
    return;
  }
  const spec = view.spec;
  let applied: ParamValues = { ...view.params };
  let lastGood: Queries | null = null;

  // Header: title, version line, export buttons.
  const header = document.createElement("header");
  header.className = "report-head";
  const heading = document.createElement("div");
  heading.className = "report-heading";
  const h1 = document.createElement("h1");
  h1.textContent = view.title;
  const meta = document.createElement("p");
  meta.className = "report-meta";
  meta.textContent =
    view.version === DRAFT_LABEL
      ? texts.draft(local(view.publishedAt))
      : texts.version(view.version, local(view.publishedAt));
  heading.append(h1, meta);
  const exportsBar = exportButtons(
    api,
    texts,
    spec,
    () => ({ version: view.version, params: applied }),
    () => view.title,
  );
  header.append(heading, exportsBar);

  const layer = new Layer(spec.nodes, {
    texts,
    onDrill: (request) => openDrill({ api, texts, spec, version: view.version, params: () => applied }, request),
  });

  const filters = createFilterBar(spec.params ?? [], view.params, texts, (values) => void apply(values));
  filters.showApplied(applied);

  const main = document.createElement("main");
  main.className = "report";
  main.append(header, filters.element, layer.element);
  app.replaceChildren(main);

  const show = (queries: Queries) => {
    lastGood = queries;
    filters.setOptions(queries);
    filters.showApplied(applied);
    layer.fill(queries);
  };

  async function apply(values: ParamValues): Promise<void> {
    filters.error(null);
    filters.busy(true);
    rendering();
    layer.loading();
    try {
      const answer = await api.post<{ queries: Queries }>("/data", { version: view.version, params: values });
      applied = values;
      show(answer.queries);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof ApiError && error.status === 400) {
        // Bad filter values: say so at the filters and keep what was shown.
        filters.error(`${texts.paramsInvalid}: ${message}`);
        if (lastGood) layer.fill(lastGood);
        else layer.fail(message);
      } else layer.fail(message);
    } finally {
      filters.busy(false);
      rendered();
    }
  }

  if (snapshot || view.mode === "snapshot") {
    filters.freeze(texts.snapshot(local(view.publishedAt)));
    show(view.data ?? {});
    rendered();
    return;
  }
  try {
    show((await (loading ?? api.post<{ queries: Queries }>("/data", { version: view.version, params: {} }))).queries);
  } catch (error) {
    layer.fail(error instanceof Error ? error.message : String(error));
  }
  rendered();
}

void main();
