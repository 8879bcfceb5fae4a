/**
 * The clinical targets the monthly summaries count results against (below, within, above), from
 * Chinese hemodialysis QC practice and KDIGO (reference/dialysis-dictionary-facts.md). A bound
 * left out is open. Changing one changes the meaning of `monthly_results`: bump the lab_results
 * projection's version so that it is rebuilt by replay.
 */
export interface ClinicalTarget {
  code: string;
  low: number | null;
  high: number | null;
  source: string;
}

export const CLINICAL_TARGETS: readonly ClinicalTarget[] = [
  { code: "KTV", low: 1.2, high: null, source: "spKt/V ≥ 1.2 (Chinese HD QC; KDOQI)" },
  { code: "URR", low: 65, high: null, source: "URR ≥ 65 % (Chinese HD QC; KDOQI)" },
  { code: "HGB", low: 110, high: 130, source: "Hb 110–130 g/L (Chinese HD QC ≥ 110; KDIGO anemia: not above 130 on ESA)" },
  { code: "ALB", low: 35, high: null, source: "albumin ≥ 35 g/L (Chinese HD QC)" },
  { code: "P", low: 1.13, high: 1.78, source: "phosphorus 1.13–1.78 mmol/L (Chinese HD QC)" },
  { code: "CA", low: 2.1, high: 2.5, source: "calcium 2.10–2.50 mmol/L (Chinese HD QC; KDIGO CKD-MBD)" },
  { code: "IPTH", low: 150, high: 600, source: "iPTH 150–600 pg/mL (KDIGO CKD-MBD: 2–9 × upper normal)" },
];
