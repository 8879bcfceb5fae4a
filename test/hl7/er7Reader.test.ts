import { expect } from "chai";
import { HL7Message } from "hl7v2";
import { Er7Message, Er7Unreadable } from "../../src/ingestion/hl7/er7Reader.ts";
import { oruR01, oruR01v23 } from "../support/hl7Messages.ts";

/*
 * The reader cuts a message at its declared delimiters by itself (hl7v2's parser is too slow for a
 * laboratory's rate): hl7v2's parser, a reader this project did not write, is the measure of
 * every value it reads.
 */

/**
 * What hl7v2's parser reads at field `field`, repetition `repetition`, component `component`: its
 * value typed by the field's definition (a number for NM, a Date for a timestamp), undefined when
 * empty or when the field has no such component.
 */
function libraryReads(
  message: HL7Message,
  segmentIndex: number,
  field: number,
  component: number,
  repetition: number,
): unknown {
  try {
    const value = message.segments[segmentIndex]!.field(field).repetition(repetition).comp(component).getValue();
    return value === "" || value === null ? undefined : value;
  } catch {
    return undefined;
  }
}

/** Ours as hl7v2 types it: a number read as a number; a timestamp as the instant it names (hl7v2 reads it as local time), or at its precision. */
function asTyped(text: string | undefined, typed: unknown): unknown {
  if (text === undefined) return undefined;
  if (typeof typed === "number") return Number(text);
  if (typed instanceof Date) {
    const [, y, mo = "01", d = "01", h = "00", mi = "00", s = "00"] =
      /^(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?/.exec(text)!;
    return new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}`).getTime() === typed.getTime() ? typed : text;
  }
  // A timestamp hl7v2 writes back at the precision it holds (20260301074500 as 202603010745).
  if (typeof typed === "string" && /^\d{14}$/.test(text) && text.endsWith("00") && typed === text.slice(0, 12))
    return typed;
  return text;
}

describe("an HL7 v2 message read by position", () => {
  const messages = {
    "a Chinese LIS's ORU^R01 (v2.5.1)": oruR01(),
    "an older LIS's ORU^R01 (v2.3) with escape sequences": oruR01v23(),
    "delimiters of its own": oruR01().replace(/\|/g, "#").replace("#^~\\&#", "#^~\\&#"),
  };

  for (const [name, er7] of Object.entries(messages)) {
    it(`reads every field, repetition and component as hl7v2's parser does: ${name}`, () => {
      const ours = new Er7Message(er7);
      const theirs = HL7Message.parse(er7);
      let compared = 0;
      ours.segments.forEach((segment, s) => {
        expect(segment.type).to.equal(theirs.segments[s]!.segmentType);
        for (let field = segment.type === "MSH" ? 3 : 1; field <= 25; field++) {
          for (let repetition = 0; repetition < Math.max(1, segment.repetitions(field)); repetition++) {
            for (let component = 1; component <= 6; component++) {
              const at = `${segment.type} ${s}: ${field}.${component} repetition ${repetition}`;
              const typed = libraryReads(theirs, s, field, component, repetition);
              expect(asTyped(segment.text(field, component, repetition), typed), at).to.deep.equal(typed);
              compared++;
            }
          }
        }
      });
      expect(compared).to.be.greaterThan(500);
    });
  }

  it("undoes escape sequences and keeps an escaped delimiter as text", () => {
    const obx = new Er7Message(oruR01v23()).all("OBX")[1]!;
    expect(obx.text(5)).to.equal("样本轻度溶血&复查|已通知^张医生\\");
  });

  it("refuses what does not begin with an MSH segment declaring its delimiters", () => {
    for (const text of ["MSH", "MSH|", "PID|1||X", "MSH|^~\\&|LIS".slice(0, 6)]) {
      expect(() => new Er7Message(text), text).to.throw(Er7Unreadable);
    }
  });
});
