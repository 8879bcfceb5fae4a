/** The words of the unmatched queue's search and of its updating itself (issue #54). */
export interface QueueTexts {
  queueSearchLabel: string;
  queueSearchHint: string;
  queueKindLabel: string;
  queueKindAll: string;
  /** The queue's size, once known, beside how many of them are shown (newest first). */
  queueShownOf: (shown: number, waiting: number) => string;
  queueFound: (found: number, more: boolean) => string;
  queueNoMatches: (search: string) => string;
  /** Said when reports arrived while the page was open. */
  queueArrived: (count: number) => string;
  /** The mark of a report that arrived while the page was open. */
  queueNew: string;
  queueLive: string;
}

export const queueZh: QueueTexts = {
  queueSearchLabel: "搜索待认领报告",
  queueSearchHint:
    "姓名、报告编号，或完整的身份证号（完整号码只以加密摘要比对）；也可输入身份证号的可见部分，如末四位。",
  queueKindLabel: "报告类型",
  queueKindAll: "全部",
  queueShownOf: (shown, waiting) =>
    shown >= waiting ? `共 ${waiting} 份待认领，最新的在前` : `共 ${waiting} 份待认领，已显示最新的 ${shown} 份`,
  queueFound: (found, more) => (more ? `已显示 ${found} 份相符的报告，还有更多` : `找到 ${found} 份相符的报告`),
  queueNoMatches: (search) => `没有与“${search}”相符的待认领报告。`,
  queueArrived: (count) => `新到 ${count} 份待认领报告`,
  queueNew: "新到",
  queueLive: "本页自动更新：新报告到达、或有报告被认领、搁置时，列表随之更新。",
};

export const queueEn: QueueTexts = {
  queueSearchLabel: "Search the queue",
  queueSearchHint:
    "A name, a report id or number, or a whole id card number (compared only as a keyed hash); or the visible digits of a masked one, such as the last four.",
  queueKindLabel: "Kind of report",
  queueKindAll: "All",
  queueShownOf: (shown, waiting) =>
    shown >= waiting ? `${waiting} waiting, newest first` : `${waiting} waiting; the newest ${shown} are shown`,
  queueFound: (found, more) => (more ? `${found} matching shown; more match` : `${found} matching`),
  queueNoMatches: (search) => `No waiting report matches “${search}”.`,
  queueArrived: (count) => (count === 1 ? "1 new report is waiting" : `${count} new reports are waiting`),
  queueNew: "New",
  queueLive: "This page updates itself: when reports arrive, or are claimed or dismissed, the list follows.",
};
