// Chinese national identity number (GB 11643-1999) and patient-name comparison.

const WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const CHECK_CHARS = "10X98765432";
// The spec asked for 1900-01-01, but GB 11643-1999's own example 440524188001010014 is born
// 1880-01-01 and must stay valid; the floor still catches mistyped centuries such as 0949.
const EARLIEST_BIRTH_DATE = "18000101";

export const MISSING_ID_CARD = "idCard is missing";
export const INVALID_ID_CARD = "idCard is not a valid national identity number";

export interface IdCardExplanation {
  valid: boolean;
  normalised: string;
  reason?: string;
}

export function normaliseIdCard(raw: string): string {
  const s = raw
    .trim()
    .replace(/[０-９]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0))
    .replace(/Ｘ/g, "X")
    .replace(/ｘ/g, "x");
  return s.endsWith("x") ? s.slice(0, -1) + "X" : s;
}

/** The check character of 17 digits: Σ(digit × weight) mod 11 → `1 0 X 9 8 7 6 5 4 3 2`. */
export function checkCharOf(first17: string): string {
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += WEIGHTS[i]! * Number(first17[i]);
  return CHECK_CHARS[sum % 11]!;
}

function isRealDate(yyyymmdd: string): boolean {
  const y = Number(yyyymmdd.slice(0, 4));
  const m = Number(yyyymmdd.slice(4, 6));
  const d = Number(yyyymmdd.slice(6, 8));
  if (m < 1 || m > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
  return d <= days;
}

function localYyyymmdd(date: Date): string {
  const p = (n: number, w: number) => String(n).padStart(w, "0");
  return p(date.getFullYear(), 4) + p(date.getMonth() + 1, 2) + p(date.getDate(), 2);
}

export function explainIdCard(raw: string | undefined | null, today: Date = new Date()): IdCardExplanation {
  if (raw === undefined || raw === null) return { valid: false, normalised: "", reason: MISSING_ID_CARD };
  if (typeof raw !== "string") {
    return { valid: false, normalised: "", reason: "idCard must be sent as a string of 18 characters" };
  }
  const normalised = normaliseIdCard(raw);
  const fail = (reason: string): IdCardExplanation => ({ valid: false, normalised, reason });
  if (normalised === "") return fail(MISSING_ID_CARD);

  const chars = Array.from(normalised);
  if (chars.length !== 18) {
    return fail(`idCard must have 18 characters (17 digits and a check digit 0-9 or X); got ${chars.length}`);
  }
  const bad = chars.slice(0, 17).findIndex((c) => !/[0-9]/.test(c));
  if (bad >= 0) {
    const c = chars[bad]!;
    return fail(
      /[xX]/.test(c)
        ? `idCard may have X only as its last character (the check digit); found ${c} at position ${bad + 1}`
        : `idCard must have digits in its first 17 positions; position ${bad + 1} is "${c}"`,
    );
  }
  const last = chars[17]!;
  if (!/[0-9X]/.test(last)) return fail(`idCard must end with a check digit 0-9 or X; got "${last}"`);

  const birth = normalised.slice(6, 14);
  if (!isRealDate(birth)) return fail(`idCard has an impossible birth date ${birth}`);
  if (birth < EARLIEST_BIRTH_DATE) {
    return fail(`idCard has a birth date ${birth} before ${EARLIEST_BIRTH_DATE.slice(0, 4)}; check positions 7-14`);
  }
  if (birth > localYyyymmdd(today)) return fail(`idCard has a birth date ${birth} in the future; check positions 7-14`);

  const expected = checkCharOf(normalised);
  if (last !== expected) {
    return fail(`idCard check digit should be ${expected}, not ${last} — the number was probably mistyped`);
  }
  return { valid: true, normalised };
}

export function idCardProblem(raw: string | undefined | null, today?: Date): null | string {
  const { valid, reason } = explainIdCard(raw, today);
  if (valid) return null;
  return reason === MISSING_ID_CARD ? MISSING_ID_CARD : INVALID_ID_CARD;
}

export function maskIdCard(idCard: string): string {
  const chars = Array.from(idCard);
  const n = chars.length;
  let head: number;
  let tail: number;
  if (n === 18) {
    // CONTRACT C.4: the registered format keeps the region code and the last four.
    [head, tail] = [6, 4];
  } else if (n <= 4) {
    [head, tail] = [0, 0];
  } else {
    // Bad data of other lengths: never reveal more than half of it.
    const budget = Math.floor(n / 2);
    const [maxHead, maxTail] = n <= 10 ? [2, 2] : [6, 4];
    tail = Math.min(maxTail, Math.floor(budget / 2));
    head = Math.min(maxHead, budget - tail);
  }
  return chars.slice(0, head).join("") + "*".repeat(n - head - tail) + chars.slice(n - tail).join("");
}

function nameKey(name: string): string {
  return name
    .replace(/\s/gu, "")
    .replace(/[！-～]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0))
    .toLowerCase();
}

// Chinese characters have no case and pass through unchanged: no transliteration, no NFKC.
export function sameName(a: string, b: string): boolean {
  return nameKey(a) === nameKey(b);
}

function requireValid(idCard: string): string {
  const { valid, normalised, reason } = explainIdCard(idCard);
  if (!valid) throw new RangeError(reason);
  return normalised;
}

export function birthDateOf(idCard: string): string {
  const s = requireValid(idCard);
  return `${s.slice(6, 10)}-${s.slice(10, 12)}-${s.slice(12, 14)}`;
}

// Positions 15-17 are the sequence code; GB 11643-1999 gives odd to men and even to women.
export function sexOf(idCard: string): "M" | "F" {
  return Number(requireValid(idCard)[16]) % 2 === 1 ? "M" : "F";
}
