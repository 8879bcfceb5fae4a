/**
 * One layer of nodes — the report itself or one drill-through — in a 12-column grid (node
 * `width`, default the full row). Every node has its own state: loading (a skeleton), ready, or
 * error (its message, in that node only).
 */
import { statText } from "../src/reports/charts/formatValue.ts";
import { ChartColumnError } from "../src/reports/charts/chartOptions.ts";
import { queryFailureText } from "./queryFailureTexts.ts";
import { matchingRule } from "../src/reports/charts/highlight.ts";
import { chartAlternative } from "./chartAlternative.ts";
import { mountChart, type ChartHandle } from "./charts.ts";
import type { Texts } from "./i18n.ts";
import { markdownHtml } from "./markdown.ts";
import { markTone, renderTable } from "./table.ts";
import { isSuccess, type NodeDef, type Queries, type QuerySuccess } from "./types.ts";

/** A click on a point or row of a node that declares `drill: { target, args: { argName: columnName } }`. */
export interface DrillRequest {
  drill: { target: string; args: Record<string, string> };
  result: QuerySuccess;
  rowIndex: number;
}

export interface LayerOptions {
  texts: Texts;
  /** Called when a point or row of a node with `drill` is clicked. */
  onDrill?: (request: DrillRequest) => void;
}

type NodeState = "loading" | "ready" | "error";

class NodeView {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;
  private chart: ChartHandle | null = null;
  state: NodeState = "loading";

  constructor(
    readonly node: NodeDef,
    private readonly options: LayerOptions,
  ) {
    const width = node.width ?? 12;
    this.element = document.createElement("section");
    this.element.className = `node node-${node.type} w-${width}`;
    // A text the author marked print: false is for the screen only (the print stylesheet hides it).
    if (node.type === "text" && node.print === false) this.element.classList.add("screen-only");
    this.element.dataset.nodeId = node.id;
    if (node.type !== "text" && node.title) {
      const title = document.createElement("h3");
      title.className = "node-title";
      title.textContent = node.title;
      this.element.append(title);
    }
    this.body = document.createElement("div");
    this.body.className = "node-body";
    this.element.append(this.body);
    if (node.type === "text") this.text(node.markdown);
    else this.loading();
  }

  private set(state: NodeState): void {
    this.state = state;
    this.element.dataset.state = state;
    this.element.setAttribute("aria-busy", state === "loading" ? "true" : "false");
  }

  private clear(): void {
    this.chart?.dispose();
    this.chart = null;
    this.body.replaceChildren();
  }

  private text(markdown: string): void {
    const div = document.createElement("div");
    div.className = "markdown";
    div.innerHTML = markdownHtml(markdown);
    this.body.replaceChildren(div);
    this.set("ready");
  }

  loading(): void {
    if (this.node.type === "text") return;
    this.clear();
    const skeleton = document.createElement("div");
    skeleton.className = `skeleton skeleton-${this.node.type}`;
    skeleton.setAttribute("aria-label", this.options.texts.loading);
    this.body.append(skeleton);
    this.set("loading");
  }

  error(message: string): void {
    if (this.node.type === "text") return;
    this.clear();
    const p = document.createElement("p");
    p.className = "node-error";
    p.setAttribute("role", "alert");
    p.textContent = message;
    this.body.append(p);
    this.set("error");
  }

  fill(queries: Queries): void {
    const node = this.node;
    if (node.type === "text") return;
    const outcome = queries[node.query];
    const { texts } = this.options;
    if (outcome === undefined) return this.error(texts.noResult(node.query));
    // The code's words in the page's language, never the database's text (issue #54).
    if (!isSuccess(outcome)) {
      this.error(queryFailureText(outcome, texts.lang));
      this.body.firstElementChild?.setAttribute("data-code", outcome.code ?? "");
      return;
    }
    this.clear();
    try {
      if (node.type === "stat") {
        const index = outcome.columns.indexOf(node.column);
        if (index < 0) throw new ChartColumnError("", node.column, outcome.columns);
        const raw = outcome.rows[0]?.[index];
        const value = document.createElement("div");
        value.className = "stat-value";
        value.textContent = statText(raw, node.format);
        if (node.unit && raw !== null && raw !== undefined) {
          const unit = document.createElement("span");
          unit.className = "stat-unit";
          unit.textContent = ` ${node.unit}`;
          value.append(unit);
        }
        markTone(value, matchingRule(node.highlight, raw), this.options.texts);
        this.body.append(value);
      } else if (node.type === "table") {
        const drill =
          node.drill && this.options.onDrill
            ? (rowIndex: number) => this.options.onDrill!({ drill: node.drill!, result: outcome, rowIndex })
            : undefined;
        this.body.append(renderTable(outcome, node.columns, this.options.texts, drill, node.highlight));
      } else {
        const box = document.createElement("div");
        box.className = "chart";
        this.body.append(box);
        const drill =
          node.drill && this.options.onDrill
            ? (rowIndex: number) => this.options.onDrill!({ drill: node.drill!, result: outcome, rowIndex })
            : undefined;
        this.chart = mountChart(box, node, outcome, drill, this.options.texts.lang);
        if (outcome.truncated) {
          const notice = document.createElement("p");
          notice.className = "notice truncated";
          notice.textContent = this.options.texts.truncated(outcome.rows.length);
          this.body.append(notice);
        }
        // Its name, its reach by keyboard and its data table (issue #54).
        this.body.append(chartAlternative(box, node, outcome, this.options.texts, drill));
      }
      this.set("ready");
    } catch (error) {
      // An author's slip (a column the query lacks) in the page's words; anything else said generally.
      this.error(
        error instanceof ChartColumnError ? texts.columnMissing(error.column, error.available) : texts.nodeFailed,
      );
    }
  }

  dispose(): void {
    this.clear();
  }
}

export class Layer {
  readonly element: HTMLElement;
  private readonly views: NodeView[];

  constructor(nodes: readonly NodeDef[], options: LayerOptions) {
    this.element = document.createElement("div");
    this.element.className = "grid";
    this.views = nodes.map((node) => new NodeView(node, options));
    this.element.append(...this.views.map((view) => view.element));
  }

  loading(): void {
    for (const view of this.views) view.loading();
  }

  /** Every node from the data call's results (a failed query fails its own nodes only). */
  fill(queries: Queries): void {
    for (const view of this.views) view.fill(queries);
  }

  /** The whole call failed: every node that needs data shows why. */
  fail(message: string): void {
    for (const view of this.views) view.error(message);
  }

  /** Node ids per state, e.g. to tell that every node has finished. */
  states(): Record<string, NodeState> {
    return Object.fromEntries(this.views.map((view) => [view.node.id, view.state]));
  }

  dispose(): void {
    for (const view of this.views) view.dispose();
    this.element.remove();
  }
}
