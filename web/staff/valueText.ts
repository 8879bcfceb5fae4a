/*
 * A result's value as the staff pages show it (issue #54: a urea converted from mg/dL read
 * "31.4173 mmol/L"): rounded to the decimals the dictionary gives the item, half away from zero,
 * its trailing zeros kept as a laboratory prints them (K 5.60, never 5.6 beside 5.61), then its
 * unit. Display only: the stored value keeps the converter's six significant digits. Without
 * decimals (an item the dictionary gives none) the value is shown as stored.
 */

/** What a value needs of its item: the standard unit and the dictionary's decimals. */
export interface ValueFormat {
  unit: string;
  decimals?: number | null;
}

/** `value` rounded to `decimals`, as text; as stored when `decimals` is null. */
export function roundedValue(value: number, decimals: number | null | undefined): string {
  if (decimals === null || decimals === undefined || !Number.isFinite(value)) return String(value);
  const shifted = Math.round(Number(`${Math.abs(value)}e${decimals}`));
  const rounded = Math.sign(value) * Number(`${shifted}e-${decimals}`);
  return (Object.is(rounded, -0) ? 0 : rounded).toFixed(decimals);
}

/** `31.4 mmol/L`: the value rounded, then its unit when it has one. */
export function valueInUnit(format: ValueFormat, value: number): string {
  const text = roundedValue(value, format.decimals);
  return format.unit ? `${text} ${format.unit}` : text;
}
