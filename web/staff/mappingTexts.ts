import type { ItemMapping } from "./types.ts";

type Conversion = ItemMapping["conversions"][number];
/** `× 0.357015` and `+ 10` as a conversion writes them (an offset only when there is one). */
const timesFactor = ({ factor, offset }: Conversion) =>
  `× ${factor}${offset ? ` ${offset > 0 ? "+" : "−"} ${Math.abs(offset)}` : ""}`;

/** The words of the Item mappings page (contract F.1). */
export interface MappingTexts {
  mappings: string;
  mappingsIntro: string;
  unmappedHeading: string;
  unmappedIntro: string;
  noUnmapped: string;
  mappingsHeading: string;
  noMappings: string;
  mapColItem: string;
  mapColSender: string;
  mapColUnit: string;
  mapColResults: string;
  mapColLastSeen: string;
  mapColExamples: string;
  mapColStandard: string;
  mapColConversion: string;
  /** How one unit's values become the standard item's: `mg/dL × 0.357015 → mmol/L`. */
  conversion: (conversion: Conversion, stdUnit: string) => string;
  mapColMadeBy: string;
  mapColRemap: string;
  allSenders: string;
  noUnit: string;
  mapItem: string;
  mapItemTitle: (item: string) => string;
  mapFor: string;
  mapForSender: (sender: string) => string;
  mapForAll: string;
  standardItem: string;
  standardItemHint: string;
  chooseStandard: string;
  factor: string;
  factorHint: (unit: string, standardUnit: string) => string;
  /** The map dialog's reason, with an example of its own (the dismiss dialog's `reason` is another). */
  mapReason: string;
  mapReasonHint: string;
  undoReason: string;
  undoReasonHint: string;
  /** Says that the lists update themselves. */
  mappingsLive: string;
  previewing: string;
  preview: (results: number, reports: number) => string;
  saveMapping: string;
  savingMapping: string;
  mapped: (item: string, standard: string) => string;
  factorInvalid: string;
  undoMapping: string;
  undoTitle: (item: string, standard: string) => string;
  undoExplain: string;
  undoing: string;
  undone: (item: string) => string;
  remapStatus: Record<"RUNNING" | "DONE" | "STOPPED", string>;
  remapProgress: (results: number, total: number | null) => string;
  undoneBy: (by: string, at: string) => string;
  /** A report history's REMAPPED entry: an item as sent, what it counts as now, its value and the conversion. */
  remapItem: (sent: string, standard: string, value: string | null, conversion: string | null) => string;
  /** …and an item whose mapping was undone, unmapped again. */
  remapUnmapped: (sent: string) => string;
}

export const mappingZh: MappingTexts = {
  mappings: "项目映射",
  mappingsIntro:
    "检验系统发来的项目中，字典未能识别的会保存原样，但不计入看板、图表与统计。在此把它们一次性映射到标准项目：之后的推送按映射识别，已保存的结果也会在后台重新映射。",
  unmappedHeading: "未映射的项目（近 90 天收到）",
  unmappedIntro: "按发送系统、项目代码、名称与单位列出，结果最多的在前。",
  noUnmapped: "近 90 天收到的项目都已映射。",
  mappingsHeading: "已建立的映射",
  noMappings: "尚未建立映射。",
  mapColItem: "项目",
  mapColSender: "发送系统",
  mapColUnit: "单位",
  mapColResults: "结果数",
  mapColLastSeen: "最近收到",
  mapColExamples: "示例值",
  mapColStandard: "标准项目",
  mapColConversion: "换算",
  conversion: (c, stdUnit) =>
    c.unitStatus === "converted"
      ? `${c.unit ?? "其他单位"} ${timesFactor(c)} → ${stdUnit}`
      : c.unitStatus === "standard"
        ? `${c.unit}（即标准单位，不换算）`
        : c.unitStatus === "assumed"
          ? `未写单位：按 ${stdUnit} 计`
          : c.unitStatus === "unknown"
            ? `${c.unit || "未写单位"}：无法换算为 ${stdUnit}，不计数值`
            : "不换算（非数值项目）",
  mapColMadeBy: "建立",
  mapColRemap: "已存结果的重新映射",
  allSenders: "所有发送系统",
  noUnit: "（无单位）",
  mapItem: "映射…",
  mapItemTitle: (item) => `映射 ${item}`,
  mapFor: "适用于",
  mapForSender: (sender) => `仅 ${sender}`,
  mapForAll: "所有发送系统",
  standardItem: "标准项目",
  standardItemHint: "括号内为标准单位；数值会按字典或 UCUM 换算到该单位。",
  chooseStandard: "请选择标准项目",
  factor: "换算系数（可选）",
  factorHint: (unit, standardUnit) =>
    `仅当字典和 UCUM 都无法把 ${unit} 换算为 ${standardUnit} 时使用：标准值 = 原值 × 系数。`,
  mapReason: "说明（可选）",
  mapReasonHint: "与映射一同保存，便于日后查阅。例如：本院 LIS 的透析前尿素代码，单位为 mg/dL。",
  undoReason: "撤销原因（可选）",
  undoReasonHint: "与撤销一同保存。例如：映射错了项目，此代码其实是透析后尿素。",
  mappingsLive: "本页的两个列表会自动更新，无需刷新。",
  previewing: "正在统计将重新映射的已存结果…",
  preview: (results, reports) => `将重新映射已保存的 ${results} 个结果（${reports} 份报告）。`,
  saveMapping: "建立映射",
  savingMapping: "正在建立…",
  mapped: (item, standard) => `已把 ${item} 映射为 ${standard}，已存结果正在后台重新映射。`,
  factorInvalid: "换算系数须为大于 0 的数字，或留空。",
  undoMapping: "撤销",
  undoTitle: (item, standard) => `撤销 ${item} → ${standard}`,
  undoExplain: "撤销后，此映射识别的所有结果（无论在映射之前还是之后收到）都恢复为未映射。",
  undoing: "正在撤销…",
  undone: (item) => `已撤销 ${item} 的映射。`,
  remapStatus: { RUNNING: "进行中", DONE: "已完成", STOPPED: "已停止（映射已撤销）" },
  remapProgress: (results, total) => (total === null ? `${results} 个结果` : `${results} / ${total} 个结果`),
  undoneBy: (by, at) => `${by} 于 ${at} 撤销`,
  remapItem: (sent, standard, value, conversion) =>
    `${sent} → ${standard}${value ? ` ${value}` : ""}${conversion ? `（${conversion}）` : ""}`,
  remapUnmapped: (sent) => `${sent}：映射已撤销，恢复为未映射`,
};

export const mappingEn: MappingTexts = {
  mappings: "Item mappings",
  mappingsIntro:
    "Items the laboratory sends that the dictionary does not know are stored as sent, but dashboards, charts and summaries leave them out. Map each here once: later pushes are mapped by it, and the results stored already are re-mapped in the background.",
  unmappedHeading: "Unmapped items (received in the last 90 days)",
  unmappedIntro: "Per sender, code, name and unit, the most results first.",
  noUnmapped: "Every item received in the last 90 days is mapped.",
  mappingsHeading: "Mappings",
  noMappings: "No mapping has been made yet.",
  mapColItem: "Item",
  mapColSender: "Sender",
  mapColUnit: "Unit",
  mapColResults: "Results",
  mapColLastSeen: "Last received",
  mapColExamples: "Examples",
  mapColStandard: "Standard item",
  mapColConversion: "Conversion",
  conversion: (c, stdUnit) =>
    c.unitStatus === "converted"
      ? `${c.unit ?? "any other unit"} ${timesFactor(c)} → ${stdUnit}`
      : c.unitStatus === "standard"
        ? `${c.unit} (the standard unit: not converted)`
        : c.unitStatus === "assumed"
          ? `no unit: taken as ${stdUnit}`
          : c.unitStatus === "unknown"
            ? `${c.unit || "no unit"}: cannot be converted to ${stdUnit}; no value counted`
            : "not converted (not a numeric item)",
  mapColMadeBy: "Made",
  mapColRemap: "Stored results re-mapped",
  allSenders: "Every sender",
  noUnit: "(no unit)",
  mapItem: "Map…",
  mapItemTitle: (item) => `Map ${item}`,
  mapFor: "For",
  mapForSender: (sender) => `${sender} only`,
  mapForAll: "Every sender",
  standardItem: "Standard item",
  standardItemHint: "Its standard unit in brackets; values are converted to it by the dictionary or UCUM.",
  chooseStandard: "Choose a standard item",
  factor: "Factor (optional)",
  factorHint: (unit, standardUnit) =>
    `Only when neither the dictionary nor UCUM converts ${unit} to ${standardUnit}: standard value = sent value × factor.`,
  mapReason: "Why (optional)",
  mapReasonHint:
    "Kept with the mapping, for whoever reads it later. E.g. the in-house LIS code of pre-dialysis urea, sent in mg/dL.",
  undoReason: "Why it is undone (optional)",
  undoReasonHint: "Kept with the undoing. E.g. the wrong item: this code is post-dialysis urea.",
  mappingsLive: "Both lists update themselves; there is no need to reload.",
  previewing: "Counting the stored results it would re-map…",
  preview: (results, reports) =>
    `It will re-map ${results} stored result${results === 1 ? "" : "s"} (${reports} report${reports === 1 ? "" : "s"}).`,
  saveMapping: "Make the mapping",
  savingMapping: "Making it…",
  mapped: (item, standard) =>
    `${item} is mapped to ${standard}; its stored results are being re-mapped in the background.`,
  factorInvalid: "The factor is a number greater than 0, or left empty.",
  undoMapping: "Undo",
  undoTitle: (item, standard) => `Undo ${item} → ${standard}`,
  undoExplain: "Every result this mapping mapped, received before it or after, becomes unmapped again.",
  undoing: "Undoing…",
  undone: (item) => `The mapping of ${item} is undone.`,
  remapStatus: { RUNNING: "running", DONE: "done", STOPPED: "stopped (mapping undone)" },
  remapProgress: (results, total) => (total === null ? `${results} results` : `${results} of ${total} results`),
  undoneBy: (by, at) => `undone by ${by} at ${at}`,
  remapItem: (sent, standard, value, conversion) =>
    `${sent} → ${standard}${value ? ` ${value}` : ""}${conversion ? ` (${conversion})` : ""}`,
  remapUnmapped: (sent) => `${sent}: its mapping undone, unmapped again`,
};
