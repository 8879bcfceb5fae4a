import type { NonUtf8At } from "../../firstNonUtf8.ts";
import type { AckProblem } from "./acks.ts";
import { mshField } from "./er7Messages.ts";
import { locationText, type Hl7Location } from "./oruToLabReport.ts";

/*
 * HL7 v2 text that is not UTF-8 (issue #52). The service reads every message as UTF-8, the HTTP
 * body and the MLLP frame alike, and answers in UTF-8 (MSH-18 UNICODE UTF-8 in every ACK): a
 * message in another character set would be stored with U+FFFD for its names and values, so it is
 * refused, naming the first bad byte, the field it stands in, and the character set its MSH-18
 * names when that is not UTF-8 (a laboratory system writing GB 18030 says so there).
 */

/** HL7 table 0357: data type error, the code an AE gives a field it cannot read. */
const DATA_TYPE_ERROR = 102;

/** Where the first bad byte of ER7 text stands: its field, the control id (MSH-10) and MSH-18 of its message. */
export interface Er7NotUtf8 {
  byte: number;
  location: Hl7Location | null;
  controlId: string;
  /** MSH-18 when it names a character set other than UTF-8, else null. */
  charset: string | null;
}

/** Reads, in the text decoded (U+FFFD for the bad bytes), where its first bad bytes stand. */
export function er7NotUtf8(text: string, bad: NonUtf8At): Er7NotUtf8 {
  // Segments end with \r, \n or \r\n (er7Messages.ts).
  const lineStart = (at: number) => Math.max(text.lastIndexOf("\r", at - 1), text.lastIndexOf("\n", at - 1)) + 1;
  const segmentStart = lineStart(bad.char);
  let mshStart = segmentStart;
  while (!text.startsWith("MSH", mshStart) && mshStart > 0) mshStart = lineStart(mshStart - 1);
  const msh = text.startsWith("MSH", mshStart) ? text.slice(mshStart).split(/\r|\n/, 1)[0]! : "";
  const separator = msh.length > 3 ? msh[3]! : "|";
  const current = text.slice(segmentStart, bad.char);
  const segment =
    /^[A-Z][A-Z0-9]{2}$/.test(current.slice(0, 3)) && (current.length === 3 || current[3] === separator)
      ? current.slice(0, 3)
      : null;
  const separators = current.split(separator).length - 1;
  // MSH-1 is the separator itself: in MSH, the n-th separator begins MSH-(n+1).
  const field = segment === "MSH" ? separators + 1 : separators;
  const sequence = msh
    ? text
        .slice(mshStart, segmentStart)
        .split(/\r\n|\r|\n/)
        .filter((line) => line.startsWith(`${segment}${separator}`)).length + (segment === "MSH" ? 0 : 1)
    : 1;
  const charset = msh ? mshField(msh, 18).trim() : "";
  return {
    byte: bad.byte,
    location: segment && field > 0 ? { segment, sequence: Math.max(sequence, 1), field } : null,
    controlId: msh ? mshField(msh, 10) : "",
    charset: charset && !/utf-?8/i.test(charset) ? charset : null,
  };
}

/** `, in PID-5 of message LIS001 (its MSH-18 says GB 18030-2000; messages are read as UTF-8 only)`. */
function whereAndWhy(bad: Er7NotUtf8, ofMessage: boolean): string {
  const field = bad.location
    ? `, in ${locationText(bad.location)}${ofMessage && bad.controlId ? ` of message ${bad.controlId}` : ""}`
    : "";
  const charset = bad.charset ? ` (its MSH-18 says ${bad.charset}; messages are read as UTF-8 only)` : "";
  return `${field}${charset}`;
}

/** The 400 of an HTTP body of HL7 v2 that is not UTF-8. */
export function notUtf8Body(text: string, at: NonUtf8At): string {
  const bad = er7NotUtf8(text, at);
  return (
    `The body is not valid UTF-8 at byte ${bad.byte}${whereAndWhy(bad, true)}: nothing of it was stored; send ` +
    "the messages encoded as UTF-8, MSH-18 UNICODE UTF-8."
  );
}

/** The reason of the AR that answers each message of an MLLP frame that is not UTF-8 (the byte counted from the frame's first), and its ERR. */
export function notUtf8Frame(
  text: string,
  at: NonUtf8At,
  messages: number,
): { reason: string; problems: AckProblem[] } {
  const bad = er7NotUtf8(text, at);
  const what = messages > 1 ? "The frame" : "The message";
  return {
    reason:
      `${what} is not valid UTF-8 at byte ${bad.byte}${whereAndWhy(bad, messages > 1)}: nothing of it was ` +
      "stored; send it encoded as UTF-8, MSH-18 UNICODE UTF-8.",
    problems: bad.location
      ? [
          {
            location: bad.location,
            code: DATA_TYPE_ERROR,
            text: `${locationText(bad.location)}: not valid UTF-8 at byte ${bad.byte}`,
          },
        ]
      : [],
  };
}
