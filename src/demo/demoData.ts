/**
 * The demo tenant's content (contract C.7): dialysis patients and fourteen months of monthly lab
 * panels (so that last month's quality figures have the same month a year before to compare with), generated deterministically — a seeded PRNG, so every run with the same reference date
 * produces exactly the same patients, id numbers, values and external ids.
 *
 * The data is shaped like what a Chinese hemodialysis centre's laboratory sends: a monthly panel
 * drawn before (and urea also after) a dialysis session, values rounded as the analyser reports
 * them, the senders' own item codes and names in a mix (standard codes, a legacy LIS with local
 * codes and Chinese names, English abbreviations), Hb sometimes in g/dL, and a few reports of
 * people who are not registered dialysis patients (guest patients), which land in the unmatched
 * queue.
 */

import { checkCharOf } from "../../commands/patients/nationalId.ts";

export const DEMO_TENANT = "demo";
export const DEMO_PATIENT_COUNT = 220;
/**
 * The month of yesterday and the thirteen before it: last month and the same month a year before
 * it are both whole months of results (contract G.2's comparison on the staff pages).
 */
export const DEMO_MONTH_COUNT = 14;
/**
 * The last twelve months are numbered 0–11 (a patient's values, quarterly iron studies, who left
 * half-way, when guests came); the months before them count down from -1, so adding them left the
 * values of the last twelve as they were.
 */
const YEAR_MONTHS = 12;
const DEFAULT_SEED = 0x5eed_d1a1;

// ---------------------------------------------------------------------------------------------
// Random numbers

/** mulberry32: a tiny, fast 32-bit PRNG; good enough for demo data, fully reproducible. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seed for a named sub-stream (FNV-1a of the name, mixed with the base seed). */
function seedOf(base: number, name: string): number {
  let h = 0x811c9dc5 ^ base;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  uniform(): number {
    return this.next();
  }
  between(low: number, high: number): number {
    return low + (high - low) * this.next();
  }
  int(low: number, highInclusive: number): number {
    return low + Math.floor(this.next() * (highInclusive - low + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(values: readonly T[]): T {
    return values[Math.floor(this.next() * values.length)]!;
  }
  /** Standard normal by Box–Muller. */
  normal(mean = 0, sd = 1): number {
    const u = Math.max(this.next(), Number.EPSILON);
    const v = this.next();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));
const round = (value: number, decimals: number) => {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
};

// ---------------------------------------------------------------------------------------------
// Chinese national identity numbers (GB 11643-1999)

/** The check character of the first 17 digits (GB 11643), refusing anything but digits. */
export function idCardCheckChar(first17: string): string {
  if (!/^\d{17}$/.test(first17)) throw new RangeError("the first 17 characters of an id number must be digits");
  return checkCharOf(first17);
}

/** A valid 18-character id number: 6-digit region, birth date `YYYYMMDD`, 3-digit sequence (odd male, even female), check character. */
export function makeIdCard(region: string, birthDate: string, sequence: number): string {
  const first17 = `${region}${birthDate}${String(sequence).padStart(3, "0")}`;
  return first17 + idCardCheckChar(first17);
}

/** Region codes of city districts (Beijing, Shanghai, Guangzhou, Chengdu, Hangzhou, Wuhan, Nanjing, Xi'an). */
export const DEMO_REGIONS = [
  "110105",
  "110108",
  "310104",
  "310115",
  "440106",
  "510107",
  "330106",
  "420106",
  "320102",
  "610113",
] as const;

// ---------------------------------------------------------------------------------------------
// Names

const FAMILY_NAMES = [
  "王",
  "李",
  "张",
  "刘",
  "陈",
  "杨",
  "黄",
  "赵",
  "吴",
  "周",
  "徐",
  "孙",
  "马",
  "朱",
  "胡",
  "郭",
  "何",
  "林",
  "高",
  "罗",
  "郑",
  "梁",
  "谢",
  "宋",
  "唐",
  "许",
  "韩",
  "冯",
  "邓",
  "曹",
  "彭",
  "曾",
  "田",
  "董",
  "袁",
  "潘",
  "蒋",
  "蔡",
  "余",
  "杜",
];
const MALE_GIVEN = [
  "伟",
  "强",
  "磊",
  "军",
  "勇",
  "杰",
  "涛",
  "明",
  "超",
  "斌",
  "建国",
  "建华",
  "国强",
  "志强",
  "海涛",
  "文博",
  "俊杰",
  "德明",
  "永刚",
  "卫东",
  "振华",
  "立新",
  "宏伟",
  "建军",
  "春生",
  "国庆",
  "志明",
  "家豪",
  "长江",
  "树林",
  "福生",
  "金龙",
];
const FEMALE_GIVEN = [
  "芳",
  "娜",
  "敏",
  "静",
  "丽",
  "艳",
  "娟",
  "霞",
  "秀英",
  "桂英",
  "玉兰",
  "淑珍",
  "丽华",
  "秀兰",
  "凤英",
  "美玲",
  "雪梅",
  "红梅",
  "晓燕",
  "慧敏",
  "丽娟",
  "海燕",
  "春梅",
  "桂芳",
  "玉珍",
  "素芬",
  "淑华",
  "婷婷",
  "佳怡",
  "小红",
  "翠花",
  "月娥",
];

// ---------------------------------------------------------------------------------------------
// Dates

export interface DemoMonth {
  year: number;
  /** 1–12 */
  month: number;
  /** `yyyyMM`, used in external ids. */
  key: string;
  /** Last day of the month that may carry a report (the whole month, except up to yesterday in the last one). */
  lastUsableDay: number;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");
const daysIn = (year: number, month: number) => new Date(year, month, 0).getDate();
const isoDate = (year: number, month: number, day: number) => `${year}-${pad(month)}-${pad(day)}`;

/**
 * The demo months, oldest first, ending with the month of yesterday (local time): every
 * report is dated before now, so the last month holds the days up to yesterday. On the first day
 * of a month that makes the previous month the last one.
 */
export function demoMonths(now: Date = new Date()): DemoMonth[] {
  const yesterday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1);
  const months: DemoMonth[] = [];
  for (let back = DEMO_MONTH_COUNT - 1; back >= 0; back--) {
    const first = new Date(yesterday.getFullYear(), yesterday.getMonth() - back, 1);
    const year = first.getFullYear();
    const month = first.getMonth() + 1;
    months.push({
      year,
      month,
      key: `${year}${pad(month)}`,
      lastUsableDay: back === 0 ? yesterday.getDate() : daysIn(year, month),
    });
  }
  return months;
}

/** `[first day of the first demo month, last day of the last demo month]`, as `yyyy-MM-dd`. */
export function demoPeriod(now: Date = new Date()): [string, string] {
  const months = demoMonths(now);
  const first = months[0]!;
  const last = months[months.length - 1]!;
  return [isoDate(first.year, first.month, 1), isoDate(last.year, last.month, daysIn(last.year, last.month))];
}

// ---------------------------------------------------------------------------------------------
// Shapes sent over the interfaces

export interface DemoPatient {
  patientRef: string;
  name: string;
  idCard: string;
  hisPatientId: string;
  ward: string;
  active: boolean;
}

export interface DemoLabItem {
  itemCode?: string;
  itemName?: string;
  value: number;
  unit?: string;
  refLow?: number;
  refHigh?: number;
  abnormalFlag?: "L" | "H" | "LL" | "HH";
}

export interface DemoLabReport {
  externalId: string;
  reportNo: string;
  /** No idCard: a laboratory that left it out (a claimable report's, tryOutReportsOf). */
  patient: { idCard?: string; name: string; hisPatientId: string };
  panelName: string;
  specimen: "SERUM";
  collectedAt: string;
  reportedAt: string;
  status: "FINAL";
  labName: string;
  reporter: string;
  reviewer: string;
  items: DemoLabItem[];
}

export interface DemoData {
  tenant: string;
  months: DemoMonth[];
  period: [string, string];
  patients: DemoPatient[];
  /** Every lab report, oldest month first; matched and guest (unmatched) reports mixed. */
  labReports: DemoLabReport[];
  /** How many of `labReports` carry a person who is not a registered patient. */
  unmatchedReports: number;
  /** A few critical values of the last hours, one per ward, so Critical results has work when the demo opens. */
  criticalReports: DemoLabReport[];
  /**
   * Reports of registered patients that wait in the unmatched queue all the same (issue #54), so a
   * newcomer can claim one: sent by an outside laboratory without the id card, or with a mistyped one.
   */
  claimableReports: DemoLabReport[];
  /**
   * Reports of the emergency laboratory whose items the dictionary does not know (issue #54), so a
   * newcomer can try the Item mappings page: its urea in mg/dL maps with the dictionary's conversion.
   */
  unmappedReports: DemoLabReport[];
}

/**
 * The demo patient whose id card the getting-started article prints, for trying a push of one's
 * own (the staff pages mask id cards). The demo data is the same on every machine.
 */
export const DEMO_TRY_PATIENT = "HD0001";

const CRITICAL_VALUES: ReadonlyArray<{ ward: string; item: DemoLabItem }> = [
  {
    ward: "A",
    item: { itemCode: "K", itemName: "钾", value: 6.9, unit: "mmol/L", refLow: 3.5, refHigh: 5.3, abnormalFlag: "HH" },
  },
  {
    ward: "B",
    item: {
      itemCode: "HGB",
      itemName: "血红蛋白",
      value: 48,
      unit: "g/L",
      refLow: 115,
      refHigh: 150,
      abnormalFlag: "LL",
    },
  },
  {
    ward: "C",
    item: { itemCode: "K", itemName: "钾", value: 2.4, unit: "mmol/L", refLow: 3.5, refHigh: 5.3, abnormalFlag: "LL" },
  },
];

/** One laboratory report of a critical value for the first active patient of each ward, sampled three hours before `now`. */
function criticalReportsOf(now: Date, persons: readonly Person[]): DemoLabReport[] {
  const local = (date: Date) =>
    `${isoDate(date.getFullYear(), date.getMonth() + 1, date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:00`;
  const drawn = new Date(now.getTime() - 3 * 3_600_000);
  const reported = new Date(now.getTime() - 3_600_000);
  return CRITICAL_VALUES.flatMap(({ ward, item }, i) => {
    const person = persons.find((candidate) => candidate.ward === ward && candidate.active);
    if (!person) return [];
    return [
      {
        externalId: `DEMO-CRIT-${person.patientRef}`,
        reportNo: `LRCRIT${pad(i + 1, 4)}`,
        patient: { idCard: person.idCard, name: person.name, hisPatientId: person.hisPatientId },
        panelName: "急诊生化",
        specimen: "SERUM",
        collectedAt: local(drawn),
        reportedAt: local(reported),
        status: "FINAL",
        labName: "中心实验室",
        reporter: LAB_STAFF[0]!,
        reviewer: REVIEWERS[0]!,
        items: [item],
      },
    ];
  });
}

/** `yyyy-MM-dd HH:mm:00` of a local moment. */
const localMinute = (date: Date) =>
  `${isoDate(date.getFullYear(), date.getMonth() + 1, date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:00`;

/**
 * Reports for a newcomer to try the staff pages on (issue #54), of registered patients of the last
 * days: two an outside laboratory sent without the id card or with one digit mistyped (they wait in
 * the unmatched queue; the name and HIS id say whose they are), and three of the emergency
 * laboratory, whose own codes for urea (in mg/dL) and NT-proBNP no dictionary entry matches.
 */
function tryOutReportsOf(
  now: Date,
  persons: readonly Person[],
): Pick<DemoData, "claimableReports" | "unmappedReports"> {
  const active = persons.filter((person) => person.active);
  const day = (daysAgo: number, hour: number) =>
    new Date(now.getFullYear(), now.getMonth(), now.getDate() - daysAgo, hour, 10);
  const report = (person: Person, externalId: string, at: Date, rest: Partial<DemoLabReport>): DemoLabReport => ({
    externalId,
    reportNo: externalId.replace(/^DEMO-/, "LR"),
    patient: { idCard: person.idCard, name: person.name, hisPatientId: person.hisPatientId },
    panelName: "电解质",
    specimen: "SERUM",
    collectedAt: localMinute(at),
    reportedAt: localMinute(new Date(at.getTime() + 2 * 3_600_000)),
    status: "FINAL",
    labName: "中心实验室",
    reporter: LAB_STAFF[1]!,
    reviewer: REVIEWERS[1]!,
    items: [],
    ...rest,
  });
  const usual = (person: Person): DemoLabItem[] => [
    flagged({
      itemCode: "K",
      itemName: "钾",
      value: round(person.baseline.k, 1),
      unit: "mmol/L",
      refLow: 3.5,
      refHigh: 5.5,
    }),
    flagged({
      itemCode: "HGB",
      itemName: "血红蛋白",
      value: Math.round(person.baseline.hgb),
      unit: "g/L",
      refLow: 115,
      refHigh: 150,
    }),
  ];
  const mistyped = (idCard: string) => {
    const checkChars = "10X98765432";
    return idCard.slice(0, 17) + checkChars[(checkChars.indexOf(idCard[17]!) + 5) % 11]!;
  };
  const [noIdCard, typo] = [active[20]!, active[21]!];
  const claimableReports = [
    report(noIdCard, `DEMO-Q-${noIdCard.patientRef}`, day(2, 9), {
      labName: "社区医院检验科",
      patient: { name: noIdCard.name, hisPatientId: noIdCard.hisPatientId },
      items: usual(noIdCard),
    }),
    report(typo, `DEMO-Q-${typo.patientRef}`, day(3, 10), {
      labName: "社区医院检验科",
      patient: { idCard: mistyped(typo.idCard), name: typo.name, hisPatientId: typo.hisPatientId },
      items: usual(typo),
    }),
  ];
  const unmappedReports = active.slice(30, 33).map((person, i) =>
    report(person, `DEMO-E-${person.patientRef}`, day(1 + i, 22), {
      labName: "急诊检验科",
      panelName: "急诊生化",
      items: [
        {
          itemCode: "EM-BUN",
          itemName: "急诊尿素氮",
          value: Math.round(person.baseline.ureaPre / 0.357015),
          unit: "mg/dL",
        },
        { itemCode: "EM-NTP", itemName: "急诊NT-proBNP", value: 900 + 450 * i, unit: "pg/mL" },
      ],
    }),
  );
  return { claimableReports, unmappedReports };
}

// ---------------------------------------------------------------------------------------------
// How the senders name the items

type Item = "UREA_PRE" | "UREA_POST" | "KTV" | "URR" | "HGB" | "P" | "CA" | "IPTH" | "ALB" | "K" | "FER" | "TSAT";
type Style = "standard" | "legacyLis" | "english";

/** [itemCode, itemName] per style. The legacy LIS sends local codes that only its Chinese names map (aliases). */
const NAMING: Record<Item, Record<Style, [string | undefined, string | undefined]>> = {
  UREA_PRE: {
    standard: ["UREA_PRE", "透析前尿素"],
    legacyLis: ["LIS0201", "透析前尿素氮"],
    english: ["BUN pre", undefined],
  },
  UREA_POST: {
    standard: ["UREA_POST", "透析后尿素"],
    legacyLis: ["LIS0202", "透析后尿素氮"],
    english: ["BUN post", undefined],
  },
  KTV: { standard: ["KTV", "尿素清除指数"], legacyLis: ["LIS0901", "尿素清除指数"], english: ["spKt/V", undefined] },
  URR: {
    standard: ["URR", "尿素下降率"],
    legacyLis: ["LIS0902", "尿素下降率"],
    english: ["URR", "Urea reduction ratio"],
  },
  HGB: { standard: ["HGB", "血红蛋白"], legacyLis: ["LIS0101", "血红蛋白"], english: ["Hb", "Hemoglobin"] },
  P: { standard: ["P", "磷"], legacyLis: ["LIS0305", "血磷"], english: ["PHOS", undefined] },
  CA: { standard: ["CA", "钙"], legacyLis: ["LIS0304", "血钙"], english: ["Ca", "Calcium"] },
  IPTH: {
    standard: ["IPTH", "全段甲状旁腺激素"],
    legacyLis: ["LIS0511", "甲状旁腺激素"],
    english: ["iPTH", undefined],
  },
  ALB: { standard: ["ALB", "白蛋白"], legacyLis: ["LIS0401", "血清白蛋白"], english: ["Alb", "Albumin"] },
  K: { standard: ["K", "钾"], legacyLis: ["LIS0301", "血钾"], english: ["K+", "Potassium"] },
  FER: { standard: ["FER", "铁蛋白"], legacyLis: ["LIS0601", "血清铁蛋白"], english: ["SF", "Ferritin"] },
  TSAT: {
    standard: ["TSAT", "转铁蛋白饱和度"],
    legacyLis: ["LIS0603", "转铁蛋白饱和度"],
    english: ["TSAT", "Transferrin saturation"],
  },
};

const LAB_STAFF = ["王敏", "李静", "赵丽", "陈晓燕", "刘芳"];
const REVIEWERS = ["张建华", "孙志明"];

// ---------------------------------------------------------------------------------------------
// People

interface Person extends DemoPatient {
  male: boolean;
  /** Dialysis weekdays: Mon/Wed/Fri or Tue/Thu/Sat (0 = Sunday). */
  schedule: readonly number[];
  /** Week of the month the monthly panel is drawn in (0–2). */
  drawWeek: number;
  /** Months with a report, numbered as YEAR_MONTHS says (0–11 the last twelve, the earlier ones below 0). */
  reportMonths: (index: number) => boolean;
  baseline: Baseline;
}

interface Baseline {
  ureaPre: number;
  ratio: number;
  weight: number;
  hgb: number;
  p: number;
  ca: number;
  logIpth: number;
  alb: number;
  k: number;
  logFer: number;
  tsat: number;
}

function makeBaseline(rng: Rng): Baseline {
  // Most patients dialyse adequately (R ≈ 0.31 → spKt/V ≈ 1.4); about one in eight is under-dialysed.
  const underDialysed = rng.chance(0.12);
  return {
    ureaPre: clamp(rng.normal(25, 4.5), 15, 38),
    ratio: underDialysed ? clamp(rng.normal(0.39, 0.025), 0.34, 0.46) : clamp(rng.normal(0.305, 0.025), 0.24, 0.36),
    weight: rng.between(50, 80),
    hgb: clamp(rng.normal(110, 9), 80, 140),
    p: clamp(rng.normal(1.6, 0.3), 0.8, 2.6),
    ca: clamp(rng.normal(2.25, 0.1), 1.95, 2.6),
    logIpth: Math.log(300) + rng.normal(0, 0.5),
    alb: clamp(rng.normal(38, 2.2), 31, 44),
    k: clamp(rng.normal(4.8, 0.4), 3.8, 5.9),
    logFer: Math.log(300) + rng.normal(0, 0.45),
    tsat: clamp(rng.normal(28, 6), 12, 50),
  };
}

function makePerson(
  rng: Rng,
  ref: string,
  hisPatientId: string,
  usedIds: Set<string>,
): Omit<Person, "ward" | "active" | "reportMonths"> {
  const male = rng.chance(0.58);
  const name = rng.pick(FAMILY_NAMES) + rng.pick(male ? MALE_GIVEN : FEMALE_GIVEN);
  let idCard: string;
  do {
    const year = rng.int(1940, 1995);
    const month = rng.int(1, 12);
    const day = rng.int(1, daysIn(year, month));
    const sequence = rng.int(0, 499) * 2 + (male ? 1 : 0); // odd for men, even for women
    idCard = makeIdCard(rng.pick(DEMO_REGIONS), `${year}${pad(month)}${pad(day)}`, sequence);
  } while (usedIds.has(idCard));
  usedIds.add(idCard);
  return {
    patientRef: ref,
    name,
    idCard,
    hisPatientId,
    male,
    schedule: rng.chance(0.5) ? [1, 3, 5] : [2, 4, 6],
    drawWeek: rng.int(0, 2),
    baseline: makeBaseline(rng),
  };
}

/** The day of the month the panel is drawn: a dialysis day of the patient's draw week, within the usable days. */
function drawDay(rng: Rng, person: Pick<Person, "schedule" | "drawWeek">, month: DemoMonth): number {
  const weekday = (day: number) => new Date(month.year, month.month - 1, day).getDay();
  const dialysisDays: number[] = [];
  for (let day = 1; day <= month.lastUsableDay; day++)
    if (person.schedule.includes(weekday(day))) dialysisDays.push(day);
  if (dialysisDays.length === 0) return month.lastUsableDay;
  const start = 1 + 7 * person.drawWeek;
  const inWeek = dialysisDays.filter((day) => day >= start && day < start + 7);
  if (inWeek.length > 0) return inWeek[rng.int(0, Math.min(1, inWeek.length - 1))]!;
  return dialysisDays[dialysisDays.length - 1]!;
}

// ---------------------------------------------------------------------------------------------
// Lab values

interface Values {
  ureaPre: number;
  ureaPost: number;
  ktv: number;
  urr: number;
  hgb: number;
  p: number;
  ca: number;
  ipth: number;
  alb: number;
  k: number;
  fer?: number;
  tsat?: number;
}

/** spKt/V by Daugirdas' second-generation formula: −ln(R − 0.008·t) + (4 − 3.5·R) · UF / W. */
export function daugirdasKtV(ratio: number, hours: number, ufLitres: number, weightKg: number): number {
  return -Math.log(ratio - 0.008 * hours) + (4 - 3.5 * ratio) * (ufLitres / weightKg);
}

function monthlyValues(rng: Rng, b: Baseline, withIron: boolean): Values {
  const ureaPre = round(clamp(b.ureaPre + rng.normal(0, 2.5), 12, 42), 1);
  const ratio = clamp(b.ratio + rng.normal(0, 0.025), 0.2, 0.5);
  const ureaPost = round(ureaPre * ratio, 1);
  const r = ureaPost / ureaPre;
  const uf = rng.between(1.5, 3.5);
  const weight = b.weight + rng.normal(0, 0.8);
  const values: Values = {
    ureaPre,
    ureaPost,
    ktv: round(daugirdasKtV(r, 4, uf, weight), 2),
    urr: round((1 - r) * 100, 1),
    hgb: Math.round(clamp(b.hgb + rng.normal(0, 7.5), 65, 160)),
    p: round(clamp(b.p + rng.normal(0, 0.25), 0.5, 3.2), 2),
    ca: round(clamp(b.ca + rng.normal(0, 0.1), 1.8, 2.9), 2),
    ipth: round(clamp(Math.exp(b.logIpth + rng.normal(0, 0.25)), 15, 2500), 1),
    alb: round(clamp(b.alb + rng.normal(0, 2), 28, 48), 1),
    // Below the dictionary's critical limit (6.2 mmol/L): the demo's critical values are the three
    // of criticalReportsOf. A routine panel of the current month above it raised alerts of its own
    // on the month's first days, when it falls within the alert window.
    k: round(clamp(b.k + rng.normal(0, 0.45), 3.0, 6.1), 2),
  };
  if (withIron) {
    values.fer = round(clamp(Math.exp(b.logFer + rng.normal(0, 0.2)), 20, 1500), 1);
    values.tsat = round(clamp(b.tsat + rng.normal(0, 4), 8, 60), 1);
  }
  return values;
}

function flagged(item: DemoLabItem): DemoLabItem {
  if (item.refHigh !== undefined && item.value > item.refHigh) return { ...item, abnormalFlag: "H" };
  if (item.refLow !== undefined && item.value < item.refLow) return { ...item, abnormalFlag: "L" };
  return item;
}

function labItems(rng: Rng, values: Values, male: boolean): DemoLabItem[] {
  const r = rng.uniform();
  const style: Style = r < 0.6 ? "standard" : r < 0.85 ? "legacyLis" : "english";
  const named = (item: Item, rest: Omit<DemoLabItem, "itemCode" | "itemName">): DemoLabItem => {
    const [itemCode, itemName] = NAMING[item][style];
    return flagged({
      ...(itemCode === undefined ? {} : { itemCode }),
      ...(itemName === undefined ? {} : { itemName }),
      ...rest,
    });
  };
  // About one report in ten gives Hb in g/dL (the service converts it to g/L).
  const hgb = rng.chance(0.1)
    ? named("HGB", {
        value: round(values.hgb / 10, 1),
        unit: "g/dL",
        refLow: male ? 13 : 11.5,
        refHigh: male ? 17.5 : 15,
      })
    : named("HGB", { value: values.hgb, unit: "g/L", refLow: male ? 130 : 115, refHigh: male ? 175 : 150 });
  const items = [
    named("UREA_PRE", { value: values.ureaPre, unit: "mmol/L", refLow: 2.9, refHigh: 8.2 }),
    named("UREA_POST", { value: values.ureaPost, unit: "mmol/L", refLow: 2.9, refHigh: 8.2 }),
    named("KTV", { value: values.ktv }),
    hgb,
    named("P", { value: values.p, unit: "mmol/L", refLow: 0.85, refHigh: 1.51 }),
    named("CA", { value: values.ca, unit: "mmol/L", refLow: 2.11, refHigh: 2.52 }),
    named("IPTH", { value: values.ipth, unit: "pg/mL", refLow: 15, refHigh: 65 }),
    named("ALB", { value: values.alb, unit: "g/L", refLow: 40, refHigh: 55 }),
    named("K", { value: values.k, unit: "mmol/L", refLow: 3.5, refHigh: 5.5 }),
  ];
  // The English-speaking analyser sends no URR: the service derives it from the two ureas (contract F.2).
  if (style !== "english") items.splice(3, 0, named("URR", { value: values.urr, unit: "%" }));
  if (values.fer !== undefined)
    items.push(named("FER", { value: values.fer, unit: "ng/mL", refLow: male ? 30 : 13, refHigh: male ? 400 : 150 }));
  if (values.tsat !== undefined) items.push(named("TSAT", { value: values.tsat, unit: "%", refLow: 20, refHigh: 50 }));
  return items;
}

// ---------------------------------------------------------------------------------------------
// The whole demo

/**
 * The demo tenant's patients and lab reports. `now` fixes the months (ending with the
 * month of yesterday); everything else comes from `seed`.
 */
export function generateDemoData(now: Date = new Date(), seed = DEFAULT_SEED): DemoData {
  const months = demoMonths(now);
  const usedIds = new Set<string>();
  const people = new Rng(seedOf(seed, "patients"));

  const persons: Person[] = [];
  for (let i = 1; i <= DEMO_PATIENT_COUNT; i++) {
    const ref = `HD${pad(i, 4)}`;
    const base = makePerson(people, ref, `H${pad(100000 + i * 37, 7)}`, usedIds);
    // Wards of unequal size; the last patients of the list left the centre half-way through the year.
    const ward = i % 10 < 4 ? "A" : i % 10 < 7 ? "B" : "C";
    const active = i <= DEMO_PATIENT_COUNT - 4;
    const stopsAfter = active ? YEAR_MONTHS : 5 + (i % 3);
    persons.push({ ...base, ward, active, reportMonths: (index) => index < stopsAfter });
  }

  // Guests: dialysed here as visitors or not yet registered; their reports wait in the unmatched
  // queue. Two had their id number mistyped at the laboratory (wrong check digit).
  const guests: Person[] = [];
  for (let i = 1; i <= 10; i++) {
    const base = makePerson(people, `G${pad(i)}`, `T${pad(900000 + i * 13, 7)}`, usedIds);
    let idCard = base.idCard;
    if (i <= 2) {
      const checkChars = "10X98765432";
      const wrong = checkChars[(checkChars.indexOf(idCard[17]!) + 3) % 11]!;
      idCard = idCard.slice(0, 17) + wrong;
    }
    const monthsPresent = new Set<number>();
    while (monthsPresent.size < 8) monthsPresent.add(people.int(0, YEAR_MONTHS - 1));
    guests.push({ ...base, idCard, ward: "", active: false, reportMonths: (index) => monthsPresent.has(index) });
  }

  const labReports: DemoLabReport[] = [];
  let unmatchedReports = 0;
  months.forEach((month, position) => {
    const index = position - (DEMO_MONTH_COUNT - YEAR_MONTHS);
    // Iron studies every third month (quarterly), as the monitoring schedule asks.
    const withIron = (index + YEAR_MONTHS) % 3 === 2;
    let sequence = 0;
    for (const [person, prefix] of [
      ...persons.map((p) => [p, "DEMO-L"] as const),
      ...guests.map((g) => [g, "DEMO-U"] as const),
    ]) {
      if (!person.reportMonths(index)) continue;
      const rng = new Rng(seedOf(seed, `${person.patientRef}/${index}`));
      const day = drawDay(rng, person, month);
      const date = isoDate(month.year, month.month, day);
      const drawnAt = `${date} ${pad(rng.int(6, 7))}:${pad(rng.int(0, 59))}:00`;
      const reportedAt = `${date} ${pad(rng.int(10, 16))}:${pad(rng.int(0, 59))}:${pad(rng.int(0, 59))}`;
      const values = monthlyValues(rng, person.baseline, withIron);
      sequence++;
      labReports.push({
        externalId: `${prefix}-${person.patientRef}-${month.key}`,
        reportNo: `LR${month.key}${pad(sequence, 4)}`,
        patient: { idCard: person.idCard, name: person.name, hisPatientId: person.hisPatientId },
        panelName: withIron ? "血液透析季度检查" : "血液透析月度检查",
        specimen: "SERUM",
        collectedAt: drawnAt,
        reportedAt,
        status: "FINAL",
        labName: "中心实验室",
        reporter: rng.pick(LAB_STAFF),
        reviewer: rng.pick(REVIEWERS),
        items: labItems(rng, values, person.male),
      });
      if (prefix === "DEMO-U") unmatchedReports++;
    }
  });

  const patients: DemoPatient[] = persons.map(({ patientRef, name, idCard, hisPatientId, ward, active }) => ({
    patientRef,
    name,
    idCard,
    hisPatientId,
    ward,
    active,
  }));
  return {
    tenant: DEMO_TENANT,
    months,
    period: demoPeriod(now),
    patients,
    labReports,
    unmatchedReports,
    criticalReports: criticalReportsOf(now, persons),
    ...tryOutReportsOf(now, persons),
  };
}
