import { hl7UnEscape, type HL7Message } from "hl7v2";

/*
 * A message read by position, for the few fields D.5 maps: cut at the delimiters its MSH segment
 * declares, a value unescaped (hl7v2's hl7UnEscape: \F\ \S\ \T\ \R\ \E\, hex) when asked for.
 * hl7v2's own parser builds and types every field of the message, 0.8 ms of CPU for an ORU^R01
 * of 20 OBX (more than storing its report); this reads the same in a twentieth of that.
 * test/hl7/er7Reader.test.ts checks it against hl7v2's parser, field by field.
 */

/** MSH-1 and MSH-2: the delimiters a message declares, named as hl7v2 names them. */
export interface Delimiters {
  fieldSeparator: string;
  componentSeparator: string;
  repetitionSeparator: string;
  escapeCharacter: string;
  subComponentSeparator: string;
}

export class Er7Unreadable extends Error {}

export class Er7Message {
  readonly segments: Er7Segment[];

  /** Throws Er7Unreadable unless the text begins with an MSH segment declaring its delimiters. */
  constructor(er7: string) {
    const delimiters = declaredDelimiters(er7);
    this.segments = er7
      .split("\r")
      .filter((line) => line !== "")
      .map((line) => new Er7Segment(line, delimiters));
  }

  /** The segments of a type, in order. */
  all(type: string): Er7Segment[] {
    return this.segments.filter((segment) => segment.type === type);
  }
}

/** `MSH|^~\&|…`: the field separator, then component, repetition, escape and subcomponent characters. */
function declaredDelimiters(er7: string): Delimiters {
  const [field, component, repetition, escape, subComponent] = [...er7.slice(3, 8)];
  if (!er7.startsWith("MSH") || !field || !component || !repetition || !escape || /[\r\n\w]/.test(er7.slice(3, 7))) {
    throw new Er7Unreadable("not an MSH segment with its delimiters");
  }
  // A sender that uses no subcomponents may leave their delimiter out.
  const declared = subComponent && subComponent !== field ? subComponent : "&";
  return {
    fieldSeparator: field,
    componentSeparator: component,
    repetitionSeparator: repetition,
    escapeCharacter: escape,
    subComponentSeparator: declared,
  };
}

export class Er7Segment {
  readonly type: string;
  private readonly fields: string[];

  constructor(
    line: string,
    private readonly delimiters: Delimiters,
  ) {
    this.fields = line.split(delimiters.fieldSeparator);
    this.type = this.fields[0]!;
    // MSH-1 is the field separator itself: MSH-n is then the n-th piece, as in every other segment.
    if (this.type === "MSH") this.fields.splice(1, 0, delimiters.fieldSeparator);
  }

  /** How many repetitions field `field` has (0 when empty). */
  repetitions(field: number): number {
    const raw = this.fields[field];
    return raw ? raw.split(this.delimiters.repetitionSeparator).length : 0;
  }

  /**
   * Component `component` of repetition `repetition` (from 0) of field `field`, subcomponents and
   * all (as hl7v2 reads a component), escapes undone; undefined when empty or sent as "" (HL7's
   * explicit null).
   */
  text(field: number, component = 1, repetition = 0): string | undefined {
    const raw = this.fields[field];
    if (!raw) return undefined;
    const { repetitionSeparator, componentSeparator, escapeCharacter } = this.delimiters;
    const value = piece(piece(raw, repetitionSeparator, repetition), componentSeparator, component - 1);
    if (!value || value === '""') return undefined;
    if (!value.includes(escapeCharacter)) return value;
    // hl7UnEscape reads only the delimiters of the message it is given.
    const unescaped = hl7UnEscape(value, this.delimiters as HL7Message);
    if (unescaped === null) return undefined;
    return typeof unescaped === "string" ? unescaped : unescaped.toString("utf8");
  }
}

/** The `index`-th (from 0) piece of `text` cut at `separator`, "" when there is none; found without cutting the rest. */
function piece(text: string, separator: string, index: number): string {
  let start = 0;
  for (let i = 0; i < index; i++) {
    const next = text.indexOf(separator, start);
    if (next < 0) return "";
    start = next + 1;
  }
  const end = text.indexOf(separator, start);
  return end < 0 ? text.slice(start) : text.slice(start, end);
}
