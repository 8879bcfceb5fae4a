import { isUtf8 } from "node:buffer";

/** Where the first bytes that are not UTF-8 stand: their offset, and the index of their U+FFFD in the bytes decoded. */
export interface NonUtf8At {
  byte: number;
  char: number;
}

/**
 * Where the first bytes that are not UTF-8 stand, or null when every byte is UTF-8. `decoded` is
 * the bytes decoded as Node does (each bad sequence a U+FFFD), so that a caller can name the field
 * around it. Text that is not UTF-8 would be stored with U+FFFD in it, the sender never told: a
 * body, an HL7 message or frame is refused, saying where.
 */
export function firstNonUtf8(bytes: Buffer, decoded = bytes.toString("utf8")): NonUtf8At | null {
  if (isUtf8(bytes)) return null;
  let byte = 0;
  let char = 0;
  for (const codePoint of decoded) {
    // A U+FFFD the sender wrote is three bytes of valid UTF-8; any other stands for bytes that were not.
    if (codePoint === "\uFFFD" && !(bytes[byte] === 0xef && bytes[byte + 1] === 0xbf && bytes[byte + 2] === 0xbd))
      break;
    byte += Buffer.byteLength(codePoint);
    char += codePoint.length;
  }
  return { byte, char };
}
