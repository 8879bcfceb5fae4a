/**
 * The drill-through layer: a dialog over the report with the drill's title (the server
 * interpolates the args), its own nodes — or one table per drill query when the drill declares
 * none — its own export buttons and a close button. A drill node with a drill of its own opens a
 * further layer on top.
 */
import { drillTitle } from "../commands/reports/spec/specVocabulary.ts";
import type { Api } from "./api.ts";
import { exportButtons } from "./exports.ts";
import type { Texts } from "./i18n.ts";
import { Layer, type DrillRequest } from "./layer.ts";
import type { NodeDef, ParamValues, Queries, StrippedSpec } from "./types.ts";

export interface DrillContext {
  api: Api;
  texts: Texts;
  spec: StrippedSpec;
  version: string;
  /** The report's applied params (the drill runs with them). */
  params: () => ParamValues;
}

/** The target's args from the clicked row: `args: { argName: columnName }`. */
export function drillArgs(request: DrillRequest): Record<string, unknown> {
  const row = request.result.rows[request.rowIndex] ?? [];
  return Object.fromEntries(
    Object.entries(request.drill.args).map(([arg, column]) => {
      const index = request.result.columns.indexOf(column);
      return [arg, index < 0 ? null : (row[index] ?? null)];
    }),
  );
}

const open: HTMLElement[] = [];

document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && open.length > 0) {
    event.preventDefault();
    (open[open.length - 1]!.querySelector("button.close") as HTMLButtonElement | null)?.click();
  }
});

export function openDrill(context: DrillContext, request: DrillRequest): void {
  const { texts, spec } = context;
  const key = request.drill.target;
  const drill = spec.drills?.[key];
  const args = drillArgs(request);
  const params = context.params();
  const opener = document.activeElement as HTMLElement | null;

  const backdrop = document.createElement("div");
  backdrop.className = "layer-backdrop";
  backdrop.dataset.drill = key;
  const dialog = document.createElement("div");
  dialog.className = "layer";
  dialog.setAttribute("role", "dialog");
  dialog.setAttribute("aria-modal", "true");
  const titleId = `layer-title-${open.length + 1}`;
  dialog.setAttribute("aria-labelledby", titleId);

  const header = document.createElement("header");
  header.className = "layer-head";
  const title = document.createElement("h2");
  title.id = titleId;
  title.className = "layer-title";
  // The server's title (args interpolated) replaces this when the data comes.
  title.textContent = drillTitle(drill?.title ?? key, args, texts.lang);
  const tools = document.createElement("div");
  tools.className = "layer-tools";
  const body = { version: context.version, params, drill: key, args };
  tools.append(
    exportButtons(
      context.api,
      texts,
      spec,
      () => body,
      () => title.textContent ?? key,
    ),
  );
  const close = document.createElement("button");
  close.type = "button";
  close.className = "close";
  close.setAttribute("aria-label", texts.close);
  close.title = texts.close;
  close.textContent = "×";
  tools.append(close);
  header.append(title, tools);

  const nodes: NodeDef[] =
    drill?.nodes && drill.nodes.length > 0
      ? drill.nodes
      : Object.keys(drill?.queries ?? {}).map((query) => ({ id: query, type: "table" as const, title: query, query }));
  const layer = new Layer(nodes, { texts, onDrill: (next) => openDrill(context, next) });
  dialog.append(header, layer.element);
  backdrop.append(dialog);

  const dismiss = () => {
    layer.dispose();
    backdrop.remove();
    open.splice(open.indexOf(backdrop), 1);
    if (open.length === 0) document.body.classList.remove("layer-open");
    opener?.focus?.();
  };
  close.addEventListener("click", dismiss);
  backdrop.addEventListener("click", (event) => {
    if (event.target === backdrop) dismiss();
  });

  open.push(backdrop);
  document.body.classList.add("layer-open");
  document.body.append(backdrop);
  backdrop.dataset.state = "loading";
  close.focus();

  context.api
    .post<{ title: string; queries: Queries }>("/drill", { ...body, lang: texts.lang })
    .then((answer) => {
      if (!backdrop.isConnected) return;
      title.textContent = answer.title;
      layer.fill(answer.queries);
      backdrop.dataset.state = "ready";
    })
    .catch((error: unknown) => {
      if (!backdrop.isConnected) return;
      layer.fail(error instanceof Error ? error.message : String(error));
      backdrop.dataset.state = "error";
    });
}
