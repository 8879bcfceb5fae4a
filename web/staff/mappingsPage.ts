import { openModal } from "./dialog.ts";
import { alertBox, el, field, localTime, whileSubmitting } from "./dom.ts";
import { loader, pageFrame, type PageContext } from "./page.ts";
import { segment } from "./staffApi.ts";
import { cardTable } from "./tables.ts";
import type { ItemMapping, LabItemDictionary, MappingPreview, UnmappedItem } from "./types.ts";

const POLL_MS = 2000;

type StandardItem = LabItemDictionary["items"][number];
type Keys = Pick<UnmappedItem, "itemCode" | "itemName" | "unit"> & { client: string | null };

/** What the page's dialogs use of it. */
interface PageTools {
  ctx: PageContext;
  standards(): StandardItem[];
  /** `K · 钾 (mmol/L)`, in the page's language. */
  standardName(code: string): string;
  /** Reads the lists again. */
  reload(): Promise<void>;
}

/** `L-UREA · 本院尿素`: how a sent item is named on the page. */
const sentName = (item: Pick<UnmappedItem, "itemCode" | "itemName">) =>
  [item.itemCode, item.itemName].filter(Boolean).join(" · ");

/**
 * Contract F.1 for authors: the sent items no dictionary entry matched (GET /api/dictionary/unmapped),
 * a dialog that maps one to a standard item (with the unit, a factor, and how many stored results
 * it will re-map), and the mappings with the progress of their re-mapping, updated every 2 seconds
 * while one runs, each of them undone from its row.
 */
export function mappingsPage(ctx: PageContext): HTMLElement {
  const { texts } = ctx;
  const box = el("div", { class: "page-body" });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let standards: StandardItem[] | null = null;

  const read = async () => {
    standards ??= (await ctx.api.get<LabItemDictionary>("/api/dictionary/lab-items")).items;
    // The mappings first: a step commits its rows with its progress, so a list read after a
    // progress of DONE no longer holds the item (read side by side, it could, and stay so).
    const mappings = await ctx.api.all<ItemMapping>("/api/dictionary/mappings");
    const unmapped = await ctx.api.all<UnmappedItem>("/api/dictionary/unmapped");
    clearTimeout(timer);
    if (mappings.some((mapping) => mapping.remap.status === "RUNNING"))
      timer = setTimeout(() => void (frame.isConnected && load()), POLL_MS);
    return el(
      "div",
      {},
      el(
        "section",
        { class: "unmapped", "aria-labelledby": "unmapped-heading" },
        el("h2", { id: "unmapped-heading" }, texts.unmappedHeading),
        el("p", { class: "muted" }, texts.unmappedIntro),
        unmappedTable(unmapped),
      ),
      el(
        "section",
        { class: "mappings", "aria-labelledby": "mappings-heading" },
        el("h2", { id: "mappings-heading" }, texts.mappingsHeading),
        mappingsTable(mappings),
      ),
    );
  };
  const load = loader(box, texts, read);
  ctx.onLeave(() => clearTimeout(timer));

  function unmappedTable(list: UnmappedItem[]): HTMLElement {
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

  function mappingsTable(list: ItemMapping[]): HTMLElement {
    if (list.length === 0) return el("p", { class: "empty" }, texts.noMappings);
    const head = [
      texts.mapColItem,
      texts.mapColSender,
      texts.mapColStandard,
      texts.mapColFactor,
      texts.mapColMadeBy,
      texts.mapColRemap,
      "",
    ];
    const rows = list.map((mapping) => {
      const standard = standardName(mapping.stdCode);
      const remap = mapping.remap;
      return el(
        "tr",
        { "data-mapping-id": mapping.mappingId, "data-remap": remap.status },
        el("th", { scope: "row" }, [sentName(mapping), mapping.unit].filter(Boolean).join(" · ")),
        el("td", {}, mapping.client ?? texts.allSenders),
        el("td", {}, standard),
        el("td", { class: "number" }, mapping.factor === null ? "" : String(mapping.factor)),
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

  /** `K · 钾 (mmol/L)`, in the page's language. */
  function standardName(code: string): string {
    const item = standards?.find((candidate) => candidate.code === code);
    if (!item) return code;
    return `${item.label} · ${ctx.lang === "en" ? item.nameEn : item.name}${item.unit ? ` (${item.unit})` : ""}`;
  }

  const tools: PageTools = { ctx, standards: () => standards ?? [], standardName, reload: load };
  const toolbar = el(
    "div",
    { class: "toolbar" },
    el("button", { type: "button", class: "refresh", onclick: () => void load() }, texts.refresh),
  );
  const frame = pageFrame("mappings", texts.mappings, texts.mappingsIntro, toolbar, box);
  void load();
  return frame;
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
      field("map-reason", texts.reason, reason, texts.reasonHint),
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
        await page.reload();
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
      field("undo-reason", texts.reason, reason, texts.reasonHint),
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
        await page.reload();
      });
    });
    return [form];
  });
}
