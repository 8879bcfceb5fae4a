/*
 * An ER7 body (HL7 v2's pipe-delimited text) as the messages it holds. Segments end with \r, \n
 * or \r\n, as laboratory systems send them. A batch wraps messages in FHS/BHS … BTS/FTS
 * segments: the envelope is dropped and each MSH starts a message. A message goes to the parser
 * as its segments joined by \r, the terminator the standard names.
 */

const ENVELOPE = /^(FHS|BHS|BTS|FTS)\|/;

/** The messages of the body in order, and the segments found before any MSH (nothing to answer them with). */
export function er7Messages(body: string): { messages: string[]; stray: string[] } {
  const blocks: string[][] = [];
  const stray: string[] = [];
  for (const segment of body.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/)) {
    if (segment.trim() === "" || ENVELOPE.test(segment)) continue;
    if (segment.startsWith("MSH")) blocks.push([segment]);
    else if (blocks.length > 0) blocks.at(-1)!.push(segment);
    else stray.push(segment);
  }
  return { messages: blocks.map((segments) => segments.join("\r")), stray };
}

/**
 * The fields of a message's MSH segment as written, read without parsing the message (to answer
 * one that cannot be parsed, or to find the key before parsing): `[n - 1]` is MSH-n. MSH-1 is the
 * field separator itself (the character after MSH), so MSH-n is the n-th piece of the line split on it.
 */
export function mshFields(er7: string): string[] {
  const line = er7.split("\r", 1)[0]!;
  return line.split(line.startsWith("MSH") && line.length > 3 ? line[3]! : "|");
}

/** MSH-n as written (mshFields). */
export function mshField(er7: string, n: number): string {
  return mshFields(er7)[n - 1] ?? "";
}
