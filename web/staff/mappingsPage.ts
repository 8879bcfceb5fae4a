import { openModal } from "./dialog.ts";
import { alertBox, el, field, localTime, whileSubmitting } from "./dom.ts";
import { loader, pageFrame, type PageContext } from "./page.ts";
import { segment } from "./staffApi.ts";
import { cardTable } from "./tables.ts";
import { shownLabel } from "./itemLabel.ts";
import type { MappingTexts } from "./mappingTexts.ts";
import type { ItemMapping, LabItemDictionary, MappingPreview, UnmappedItem } from "./types.ts";

const POLL_MS = 2000;
/** How often the lists are read when nothing is under way: items pushed meanwhile show within this. */
const IDLE_POLL_MS = 15_000;
/** How long after a change the lists are read quickly until they show it. */
const SETTLE_MS = 60_000;

type StandardItem = LabItemDictionary["items"][number];
type Keys = Pick<UnmappedItem, "itemCode" | "itemName" | "unit"> & { client: string | null };

/** Both lists of the page, as read together. */
interface Lists {
  mappings: ItemMapping[];
  unmapped: UnmappedItem[];
}

/** What the page's dialogs use of it. */
interface PageTools {
  ctx: PageContext;
  standards(): StandardItem[];
  /** `K · 钾 (mmol/L)`, in the page's language (`透析前尿素 (mmol/L)`: a label of English words left out). */
  standardName(code: string): string;
  /**
   * After a change: reads the lists again now, and every 2 seconds until `settled` says they show
   * it (the item gone from the unmapped list, or back in it) or a minute has passed.
   */
  changed(settled: (lists: Lists) => boolean): Promise<void>;
}

/**
 * How a mapping converts the values it maps (issue #54: urea sent in mg/dL was multiplied by 0.357
 * unseen): one line per unit the item was sent in, `mg/dL × 0.357015 → mmol/L`, and the mapping's
 * own factor for any other unit when it has one.
 */
function conversionLines(texts: MappingTexts, mapping: ItemMapping): HTMLElement[] {
  const shown = mapping.conversions.filter(
    (conversion) => conversion.unit !== null || conversion.unitStatus === "converted",
  );
  return shown.map((conversion) =>
    el(
      "span",
      { class: "conversion-line", "data-unit": conversion.unit ?? "" },
      texts.conversion(conversion, mapping.stdUnit),
    ),
  );
}

/** Whether a mapping of these keys covers a listed unmapped item: each key it names is the item's (null names none). */
const covers = (keys: Keys, listed: UnmappedItem) =>
  (keys.client ?? listed.client) === listed.client &&
  (keys.itemCode ?? listed.itemCode) === listed.itemCode &&
  (keys.itemName ?? listed.itemName) === listed.itemName &&
  (keys.unit ?? listed.unit) === listed.unit;

/** `L-UREA · 本院尿素`: how a sent item is named on the page. */
const sentName = (item: Pick<UnmappedItem, "itemCode" | "itemName">) =>
  [item.itemCode, item.itemName].filter(Boolean).join(" · ");

/**
 * Contract F.1 for authors: the sent items no dictionary entry matched (GET /api/dictionary/unmapped),
 * a dialog that maps one to a standard item (with the unit, a factor, and how many stored results
 * it will re-map), and the mappings with the progress of their re-mapping, each of them undone from
 * its row. The lists update themselves (issue #54: the unmapped list stayed until Refresh): every
 * 2 seconds while a re-mapping runs or a change has not shown yet, every 15 seconds otherwise (new
 * items pushed meanwhile), redrawn only when they changed.
 */
export function mappingsPage(ctx: PageContext): HTMLElement {
  const { texts } = ctx;
  const box = el("div", { class: "page-body" });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let standards: StandardItem[] | null = null;
  /** The lists on the page, as read (to redraw only what changed), and lists read already for the next draw. */
  let shown = "";
  let ready: Lists | null = null;
  /** After a change: what the lists show once it is done, and until when to look quickly for it. */
  let awaited: { settled: (lists: Lists) => boolean; until: number } | null = null;

  const readLists = async (): Promise<Lists> => {
    standards ??= (await ctx.api.get<LabItemDictionary>("/api/dictionary/lab-items")).items;
    // The mappings first: a step commits its rows with its progress, so a list read after a
    // progress of DONE no longer holds the item (read side by side, it could, and stay so).
    const mappings = await ctx.api.all<ItemMapping>("/api/dictionary/mappings");
    const unmapped = await ctx.api.all<UnmappedItem>("/api/dictionary/unmapped");
    return { mappings, unmapped };
  };
  /** When to read the lists again: soon while something is under way, else now and then. */
  const schedule = (lists: Lists | null) => {
    clearTimeout(timer);
    if (awaited && lists && (awaited.settled(lists) || Date.now() > awaited.until)) awaited = null;
    const busy = awaited !== null || (lists?.mappings.some((mapping) => mapping.remap.status === "RUNNING") ?? false);
    timer = setTimeout(() => void refresh(), busy ? POLL_MS : IDLE_POLL_MS);
  };
  const read = async () => {
    const lists = ready ?? (await readLists());
    ready = null;
    shown = JSON.stringify(lists);
    schedule(lists);
    return el(
      "div",
      {},
      el(
        "section",
        { class: "unmapped", "aria-labelledby": "unmapped-heading" },
        el("h2", { id: "unmapped-heading" }, texts.unmappedHeading),
        el("p", { class: "muted" }, texts.unmappedIntro),
        unmappedTable(tools, lists.unmapped),
      ),
      el(
        "section",
        { class: "mappings", "aria-labelledby": "mappings-heading" },
        el("h2", { id: "mappings-heading" }, texts.mappingsHeading),
        mappingsTable(tools, lists.mappings),
      ),
    );
  };
  const load = loader(box, texts, read);
  /** Reads the lists; redraws them when they changed (what has the focus stays put otherwise). */
  const refresh = async () => {
    if (!frame.isConnected) return;
    let lists: Lists;
    try {
      lists = await readLists();
    } catch {
      return schedule(null); // a moment's failure: the lists shown stay, and the next turn tries again
    }
    if (JSON.stringify(lists) === shown) return schedule(lists);
    ready = lists;
    await load();
  };
  ctx.onLeave(() => clearTimeout(timer));

  /** `K · 钾 (mmol/L)`, in the page's language (`透析前尿素 (mmol/L)`: a label of English words left out). */
  function standardName(code: string): string {
    const item = standards?.find((candidate) => candidate.code === code);
    if (!item) return code;
    const label = shownLabel(item.label, ctx.lang);
    const name = ctx.lang === "en" ? item.nameEn : item.name;
    return `${label ? `${label} · ` : ""}${name}${item.unit ? ` (${item.unit})` : ""}`;
  }

  const tools: PageTools = {
    ctx,
    standards: () => standards ?? [],
    standardName,
    async changed(settled) {
      awaited = { settled, until: Date.now() + SETTLE_MS };
      ready = await readLists().catch(() => null);
      await load();
    },
  };
  const frame = pageFrame(
    "mappings",
    texts.mappings,
    texts.mappingsIntro,
    el("p", { class: "muted live-note" }, texts.mappingsLive),
    box,
  );
  void load();
  return frame;
}

/** The unmapped items, each with its Map… button. */
function unmappedTable(tools: PageTools, list: UnmappedItem[]): HTMLElement {
  const { texts } = tools.ctx;
  if (list.length === 0) return el("p", { class: "empty" }, texts.noUnmapped);
  const head = [
    texts.mapColItem,
    texts.mapColSender,
    texts.mapColUnit,
    texts.mapColResults,
    texts.mapColLastSeen,
    texts.mapColExamples,
    "",
  ];
  const rows = list.map((item) =>
    el(
      "tr",
      { "data-item-code": item.itemCode ?? "" },
      el("th", { scope: "row" }, sentName(item)),
      el("td", {}, item.client),
      el("td", {}, item.unit ?? texts.noUnit),
      el("td", { class: "number" }, String(item.results)),
      el("td", {}, localTime(item.lastSeen)),
      el("td", { class: "examples" }, item.examples.map(String).join(", ")),
      el(
        "td",
        { class: "actions" },
        el("button", { type: "button", class: "map", onclick: () => mapDialog(tools, item) }, texts.mapItem),
      ),
    ),
  );
  return cardTable(
    el(
      "table",
      { class: "data unmapped-items" },
      el("caption", { class: "visually-hidden" }, texts.unmappedHeading),
      el("thead", {}, el("tr", {}, ...head.map((c) => el("th", { scope: "col" }, c)))),
      el("tbody", {}, ...rows),
    ),
  );
}

/** The mappings, each with its conversion, who made it, its re-mapping and its Undo button. */
function mappingsTable(tools: PageTools, list: ItemMapping[]): HTMLElement {
  const { texts } = tools.ctx;
  if (list.length === 0) return el("p", { class: "empty" }, texts.noMappings);
  const head = [
    texts.mapColItem,
    texts.mapColSender,
    texts.mapColStandard,
    texts.mapColConversion,
    texts.mapColMadeBy,
    texts.mapColRemap,
    "",
  ];
  const rows = list.map((mapping) => {
    const standard = tools.standardName(mapping.stdCode);
    const remap = mapping.remap;
    return el(
      "tr",
      { "data-mapping-id": mapping.mappingId, "data-remap": remap.status },
      el("th", { scope: "row" }, [sentName(mapping), mapping.unit].filter(Boolean).join(" · ")),
      el("td", {}, mapping.client ?? texts.allSenders),
      el("td", {}, standard),
      el("td", { class: "conversion" }, ...conversionLines(texts, mapping)),
      el(
        "td",
        {},
        `${mapping.addedBy} · ${localTime(mapping.addedAt)}`,
        mapping.removedAt
          ? el("div", { class: "muted" }, texts.undoneBy(mapping.removedBy ?? "", localTime(mapping.removedAt)))
          : null,
      ),
      el(
        "td",
        { class: "remap" },
        `${texts.remapStatus[remap.status]} · ${texts.remapProgress(remap.results, remap.total)}`,
      ),
      el(
        "td",
        { class: "actions" },
        mapping.removedAt
          ? null
          : el(
              "button",
              { type: "button", class: "undo", onclick: () => undoDialog(tools, mapping, standard) },
              texts.undoMapping,
            ),
      ),
    );
  });
  return cardTable(
    el(
      "table",
      { class: "data item-mappings" },
      el("caption", { class: "visually-hidden" }, texts.mappingsHeading),
      el("thead", {}, el("tr", {}, ...head.map((c) => el("th", { scope: "col" }, c)))),
      el("tbody", {}, ...rows),
    ),
  );
}

/** The dialog that maps `item` to a standard item, with how many stored results it will re-map. */
function mapDialog(page: PageTools, item: UnmappedItem): void {
  const { ctx, standardName } = page;
  const { texts } = ctx;
  const forSender = el("input", {
    type: "radio",
    name: "map-for",
    value: "sender",
    id: "map-for-sender",
    checked: true,
  });
  const forAll = el("input", { type: "radio", name: "map-for", value: "all", id: "map-for-all" });
  const choices = [...page.standards()].sort((a, b) => a.label.localeCompare(b.label));
  const standard = el(
    "select",
    { required: true },
    el("option", { value: "" }, texts.chooseStandard),
    ...choices.map((choice) => el("option", { value: choice.code }, standardName(choice.code))),
  );
  const factor = el("input", { type: "number", min: "0", step: "any", inputmode: "decimal" });
  const factorField = field("map-factor", texts.factor, factor, texts.factorHint(item.unit ?? texts.noUnit, "…"));
  const reason = el("textarea", { maxlength: 500, rows: 2 });
  const preview = el("p", { class: "preview", role: "status" }, texts.previewing);
  const problem = alertBox();
  const submit = el("button", { type: "submit", class: "primary" }, texts.saveMapping);
  const keys = (): Keys => ({
    client: forSender.checked ? item.client : null,
    itemCode: item.itemCode,
    itemName: item.itemName,
    unit: item.unit,
  });
  /** The keys as the service takes them: a key the item has not is left out. */
  const sent = (k: Keys) => Object.fromEntries(Object.entries(k).filter(([, value]) => value !== null && value !== ""));
  const showPreview = async () => {
    preview.textContent = texts.previewing;
    try {
      const counted = await ctx.api.post<MappingPreview>("/api/dictionary/mappings/preview", sent(keys()));
      preview.textContent = texts.preview(counted.results, counted.reports);
    } catch (error) {
      preview.textContent = error instanceof Error ? error.message : String(error);
    }
  };
  const showFactor = () => {
    const chosen = choices.find((choice) => choice.code === standard.value);
    factorField.hidden = !chosen || chosen.valueType !== "numeric" || chosen.unit === "" || item.unit === null;
    factorField.querySelector(".hint")!.textContent = texts.factorHint(item.unit ?? texts.noUnit, chosen?.unit ?? "…");
  };
  forSender.addEventListener("change", () => void showPreview());
  forAll.addEventListener("change", () => void showPreview());
  standard.addEventListener("change", showFactor);
  showFactor();
  const name = sentName(item);
  const modal = openModal(texts.mapItemTitle(name), texts.close, () => {
    const form = el(
      "form",
      { class: "map-form", novalidate: true },
      el("p", {}, `${item.client} · ${name} · ${item.unit ?? texts.noUnit}`),
      el(
        "fieldset",
        {},
        el("legend", {}, texts.mapFor),
        el(
          "div",
          { class: "form-field checkbox" },
          forSender,
          el("label", { for: forSender.id }, texts.mapForSender(item.client)),
        ),
        el("div", { class: "form-field checkbox" }, forAll, el("label", { for: forAll.id }, texts.mapForAll)),
      ),
      field("map-standard", texts.standardItem, standard, texts.standardItemHint),
      factorField,
      field("map-reason", texts.mapReason, reason, texts.mapReasonHint),
      preview,
      problem.element,
      el("div", { class: "form-actions" }, submit),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (!standard.value) {
        standard.setAttribute("aria-invalid", "true");
        standard.focus();
        problem.show(texts.chooseStandard);
        return;
      }
      const factorValue = factor.value.trim() === "" || factorField.hidden ? null : Number(factor.value);
      if (factorValue !== null && !(factorValue > 0)) {
        factor.setAttribute("aria-invalid", "true");
        factor.focus();
        problem.show(texts.factorInvalid);
        return;
      }
      void whileSubmitting(submit, texts.savingMapping, problem, async () => {
        try {
          await ctx.api.post("/api/dictionary/mappings", {
            ...sent(keys()),
            stdCode: standard.value,
            ...(factorValue !== null ? { factor: factorValue } : {}),
            ...(reason.value.trim() ? { reason: reason.value.trim() } : {}),
          });
        } catch (error) {
          problem.show(error instanceof Error ? error.message : String(error));
          return;
        }
        modal.close();
        ctx.announce(texts.mapped(name, standardName(standard.value)));
        // Done when the item has left the unmapped list and its re-mapping has ended.
        const made = keys();
        await page.changed(
          (lists) =>
            !lists.unmapped.some((listed) => covers(made, listed)) &&
            !lists.mappings.some((mapping) => mapping.remap.status === "RUNNING"),
        );
      });
    });
    return [form];
  });
  void showPreview();
}

/** The dialog that undoes a mapping, with an optional reason. */
function undoDialog(page: PageTools, mapping: ItemMapping, standard: string): void {
  const { ctx } = page;
  const { texts } = ctx;
  const name = sentName(mapping);
  const reason = el("textarea", { maxlength: 500, rows: 2 });
  const problem = alertBox();
  const submit = el("button", { type: "submit", class: "primary danger" }, texts.undoMapping);
  const modal = openModal(texts.undoTitle(name, standard), texts.close, () => {
    const form = el(
      "form",
      { class: "undo-form" },
      el("p", {}, texts.undoExplain),
      field("undo-reason", texts.undoReason, reason, texts.undoReasonHint),
      problem.element,
      el("div", { class: "form-actions" }, submit),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void whileSubmitting(submit, texts.undoing, problem, async () => {
        try {
          await ctx.api.exchange(
            "DELETE",
            `/api/dictionary/mappings/${segment(mapping.mappingId)}`,
            reason.value.trim() ? { body: { reason: reason.value.trim() } } : {},
          );
        } catch (error) {
          problem.show(error instanceof Error ? error.message : String(error));
          return;
        }
        modal.close();
        ctx.announce(texts.undone(name));
        // Done when the item is listed as unmapped again (when it was received within the list's days).
        await page.changed((lists) => lists.unmapped.some((listed) => covers(mapping, listed)));
      });
    });
    return [form];
  });
}
