import { openModal } from "./dialog.ts";
import { el } from "./dom.ts";
import { loader, pageFrame, type PageContext } from "./page.ts";
import { segment } from "./staffApi.ts";
import { cardRowAdded, cardTable, scrollingTable } from "./tables.ts";
import type { BulkJobListEntry, BulkRejectedAnswer } from "./types.ts";
import { rejectionText } from "./rejectionTexts.ts";

const POLL_MS = 2000;
const REJECTED_PAGE = 50;

type Status = BulkJobListEntry["status"];
const inProgress = (status: Status | undefined) => status === "QUEUED" || status === "RUNNING";
/** Enough of a UUID to tell jobs apart on a page. */
const shortId = (jobId: string) => jobId.slice(0, 8);

/**
 * The tenant's bulk jobs (`GET /api/bulk-jobs`, contract D.4): status, progress and counts,
 * updated every 2 seconds while one is queued or running, and each job's rejected lines.
 */
export function bulkJobsPage(ctx: PageContext): HTMLElement {
  const { texts } = ctx;
  const count = el("p", { class: "count muted" });
  const box = el("div", { class: "page-body" });
  const jobs = jobsView(ctx);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let latest = 0;
  let statuses = new Map<string, Status>();

  const show = (list: BulkJobListEntry[]) => {
    // A job seen running that has ended is said in the live region (a screen reader reads it out).
    const ended = list.filter((job) => !inProgress(job.status) && inProgress(statuses.get(job.jobId)));
    statuses = new Map(list.map((job) => [job.jobId, job.status]));
    if (ended.length > 0)
      ctx.announce(
        ended.map((job) => texts.jobEnded(shortId(job.jobId), job.status, job.accepted, job.rejected)).join(" "),
      );
    jobs.update(list);
    const polling = list.some((job) => inProgress(job.status));
    count.textContent = polling ? `${texts.jobCount(list.length)} · ${texts.autoRefresh}` : texts.jobCount(list.length);
    clearTimeout(timer);
    timer = polling ? setTimeout(() => void refresh(), POLL_MS) : undefined;
  };
  const fetchJobs = () => ctx.api.get<BulkJobListEntry[]>("/api/bulk-jobs");
  const load = loader(box, texts, async () => {
    show(await fetchJobs());
    return jobs.element;
  });
  // Later reads update the rows in place rather than rebuild them (as `load` would): the focus of
  // a keyboard user, and the button a dialog gives it back to, stay where they are.
  const refresh = async (): Promise<void> => {
    clearTimeout(timer);
    if (!frame.isConnected) return; // the page was left: no more calls
    if (box.dataset.state !== "ready") return load();
    const mine = ++latest;
    try {
      const list = await fetchJobs();
      if (mine === latest && frame.isConnected) show(list);
    } catch {
      if (mine === latest && frame.isConnected) await load(); // shows the failure, with a retry
    }
  };

  const toolbar = el(
    "div",
    { class: "toolbar jobs-toolbar" },
    count,
    el("button", { type: "button", class: "refresh", onclick: () => void refresh() }, texts.refresh),
  );
  const frame = pageFrame("bulk-jobs", texts.bulkJobs, texts.bulkJobsIntro, toolbar, box);
  void load();
  return frame;
}

interface JobRow {
  element: HTMLTableRowElement;
  update(job: BulkJobListEntry): void;
}

/** The jobs table, whose rows (keyed by jobId) are kept and updated across reads. */
function jobsView(ctx: PageContext): { element: HTMLElement; update(list: BulkJobListEntry[]): void } {
  const { texts } = ctx;
  const columns = [
    texts.colSubmitted,
    texts.colKind,
    texts.colClient,
    texts.colStatus,
    texts.colProgress,
    texts.colAccepted,
    texts.colCreated,
    texts.colUpdated,
    texts.colUnchanged,
    texts.colUnmatched,
    texts.colRejected,
    texts.colRun,
    texts.colActions,
  ];
  const tbody = el("tbody");
  // A card per job on a phone (issue #54: the table scrolled sideways there), its counts labelled.
  const jobsTable = el(
    "table",
    { class: "data jobs" },
    el("caption", { class: "visually-hidden" }, texts.bulkJobs),
    el("thead", {}, el("tr", {}, ...columns.map((c) => el("th", { scope: "col" }, c)))),
    tbody,
  );
  const table = cardTable(jobsTable);
  const empty = el("p", { class: "empty" }, texts.noJobs);
  const element = el("div", { class: "jobs-view" });
  const rows = new Map<string, JobRow>();

  const update = (list: BulkJobListEntry[]) => {
    const wanted = new Set(list.map((job) => job.jobId));
    for (const [jobId, row] of rows) {
      if (wanted.has(jobId)) continue;
      row.element.remove();
      rows.delete(jobId);
    }
    // Rows already in place are not moved (moving one would take the focus out of it).
    let cursor: ChildNode | null = tbody.firstChild;
    for (const job of list) {
      let row = rows.get(job.jobId);
      if (row) row.update(job);
      else {
        rows.set(job.jobId, (row = jobRow(ctx, job)));
        cardRowAdded(jobsTable, row.element);
      }
      if (row.element === cursor) cursor = cursor.nextSibling;
      else tbody.insertBefore(row.element, cursor);
    }
    const content = list.length === 0 ? empty : table;
    if (element.firstChild !== content) element.replaceChildren(content);
  };
  return { element, update };
}

function jobRow(ctx: PageContext, first: BulkJobListEntry): JobRow {
  const { texts } = ctx;
  const id = shortId(first.jobId);
  const number = () => el("td", { class: "num" });
  const cells = {
    status: el("span", { class: "job-status" }),
    reason: el("span", { class: "sub reason" }),
    progress: el("progress", { "aria-label": texts.progressOf(id) }),
    progressText: el("span", { class: "progress-text" }),
    accepted: number(),
    created: number(),
    updated: number(),
    unchanged: number(),
    unmatched: number(),
    rejected: number(),
    started: el("span", { class: "started" }),
    finished: el("span", { class: "finished" }),
    actions: el("td", { class: "actions" }),
  };
  // Times of the day the job was submitted are shown without the date.
  const shownTime = (time: string | null) =>
    time === null ? "—" : time.slice(0, 10) === first.createdAt.slice(0, 10) ? time.slice(11) : time;
  const element = el(
    "tr",
    { "data-job-id": first.jobId },
    el(
      "th",
      { scope: "row" },
      el("span", { class: "line" }, first.createdAt.slice(0, 10)),
      " ",
      el("span", { class: "line" }, first.createdAt.slice(11)),
      el("span", { class: "sub muted" }, texts.jobNo(id)),
    ),
    el("td", {}, texts.kinds[first.kind] ?? first.kind),
    el("td", {}, first.client),
    el("td", {}, cells.status, cells.reason),
    el("td", { class: "progress-cell" }, cells.progress, cells.progressText),
    cells.accepted,
    cells.created,
    cells.updated,
    cells.unchanged,
    cells.unmatched,
    cells.rejected,
    el(
      "td",
      { class: "run" },
      el("span", { class: "line" }, el("span", { class: "muted" }, texts.started), " ", cells.started),
      el("span", { class: "line" }, el("span", { class: "muted" }, texts.finished), " ", cells.finished),
    ),
    cells.actions,
  );
  const update = (job: BulkJobListEntry) => {
    element.dataset.status = job.status;
    cells.status.textContent = texts.jobStatuses[job.status] ?? job.status;
    cells.status.className = `job-status status-${job.status.toLowerCase()}`;
    // Said by its code in the page's words, never the service's English sentence (issue #54).
    const failed = job.status === "FAILED";
    cells.reason.textContent = !failed
      ? ""
      : job.reasonCode
        ? texts.jobFailures[job.reasonCode](texts.number(job.processed))
        : texts.jobFailedOtherwise;
    cells.reason.dataset.code = job.reasonCode ?? "";
    cells.reason.hidden = !failed;
    cells.progress.max = Math.max(job.lines, 1);
    cells.progress.value = job.processed;
    cells.progressText.textContent = `${texts.number(job.processed)} / ${texts.number(job.lines)}`;
    for (const name of ["accepted", "created", "updated", "unchanged", "unmatched", "rejected"] as const)
      cells[name].textContent = texts.number(job[name]);
    cells.started.textContent = shownTime(job.startedAt);
    cells.finished.textContent = shownTime(job.finishedAt);
    // Lines are rejected while the job runs: the button comes with the first.
    if (job.rejected > 0 && !cells.actions.hasChildNodes()) {
      cells.actions.append(
        el(
          "button",
          {
            type: "button",
            class: "rejected-lines",
            "aria-label": texts.rejectedLinesOf(id),
            onclick: () => rejectedDialog(ctx, job.jobId),
          },
          texts.rejectedLines,
        ),
      );
    }
  };
  update(first);
  return { element, update };
}

/** A job's rejected lines (`GET /api/bulk-jobs/{jobId}/rejected`), 50 at a time. */
function rejectedDialog(ctx: PageContext, jobId: string): void {
  const { texts } = ctx;
  openModal(texts.rejectedLinesOf(shortId(jobId)), texts.close, () => {
    const body = el("div", { class: "rejected-body" });
    const position = el("p", { class: "pager-position muted", "aria-live": "polite" });
    const previous = el("button", { type: "button", class: "previous", disabled: true }, texts.previousPage);
    const next = el("button", { type: "button", class: "next", disabled: true }, texts.nextPage);
    let offset = 0;
    const load = loader(body, texts, async () => {
      const page = await ctx.api.get<BulkRejectedAnswer>(
        `/api/bulk-jobs/${segment(jobId)}/rejected?offset=${offset}&limit=${REJECTED_PAGE}`,
      );
      position.textContent =
        page.items.length > 0 ? texts.linesShown(offset + 1, offset + page.items.length, page.total) : "";
      previous.disabled = offset === 0;
      next.disabled = offset + REJECTED_PAGE >= page.total;
      // A button that just became disabled would drop the keyboard user's focus: hand it to the other.
      if (document.activeElement === next && next.disabled) previous.focus();
      if (document.activeElement === previous && previous.disabled) next.focus();
      return page.items.length > 0
        ? rejectedTable(ctx, page.items, texts.rejectedLinesOf(shortId(jobId)))
        : el("p", { class: "empty" }, texts.noRejected);
    });
    const turn = (by: number) => {
      offset = Math.max(0, offset + by);
      void load();
    };
    previous.addEventListener("click", () => turn(-REJECTED_PAGE));
    next.addEventListener("click", () => turn(REJECTED_PAGE));
    void load();
    return [position, body, el("nav", { class: "pager", "aria-label": texts.rejectedPages }, previous, next)];
  });
}

/** One row per problem; a line with several spans them (a `<tbody>` per line, its number heading the group). */
function rejectedTable(ctx: PageContext, items: BulkRejectedAnswer["items"], label: string): HTMLElement {
  const { texts } = ctx;
  const head = el(
    "tr",
    {},
    ...[texts.colLine, texts.colExternalId, texts.colField, texts.colProblem].map((c) => el("th", { scope: "col" }, c)),
  );
  const groups = items.map((item) => {
    const span = Math.max(item.errors.length, 1);
    const problems = item.errors.map((error) => [
      error.field ? el("td", {}, el("code", {}, error.field)) : el("td", { class: "muted" }, texts.wholeLine),
      el("td", { "data-code": error.code ?? null }, rejectionText(error, ctx.lang)),
    ]);
    const [firstProblem = [el("td"), el("td")], ...others] = problems;
    return el(
      "tbody",
      { "data-line": item.line },
      el(
        "tr",
        {},
        el("th", { scope: "rowgroup", rowspan: span, class: "num" }, String(item.line)),
        el("td", { rowspan: span }, item.externalId ?? "—"),
        ...firstProblem,
      ),
      ...others.map((cells) => el("tr", {}, ...cells)),
    );
  });
  return scrollingTable(label, el("table", { class: "data rejected" }, el("thead", {}, head), ...groups));
}
