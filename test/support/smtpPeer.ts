import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/*
 * A real SMTP server in the test process (smtp-server, the peer nodemailer's authors test with):
 * it asks for the user and password the service was given, keeps every mail it accepted, and
 * refuses on demand, so that a test sees what a hospital's mail server would have taken.
 */

export interface AcceptedMail {
  from: string;
  to: string[];
  headers: Map<string, string>;
  subject: string;
  text: string;
  /** The escalation's alert and step, as the mail's headers name them. */
  alertId: string | undefined;
  step: number | undefined;
  /** When the server took it (Date.now()). */
  acceptedAt: number;
}

export interface SmtpPeer {
  url: string;
  mails: AcceptedMail[];
  /** Answers the next `count` mails with this SMTP reply instead of taking them. */
  refuseNext(count: number, reply?: string): void;
  /** Every mail refused until `acceptAgain` (a server that is down for a while). */
  refuseAll(reply?: string): void;
  acceptAgain(): void;
  refused: number;
  /** Holds every conversation at its recipient, unanswered, until `release` (a server that hangs). */
  hold(): void;
  release(): void;
  /** Conversations held now. */
  held: number;
  /** How many mails were taken for this alert and step. */
  countOf(alertId: string, step: number): number;
  close(): Promise<void>;
}

export const SMTP_USER = "dialysis-hub";
export const SMTP_PASSWORD = "smtp-pass-0123456789";

export async function startSmtpPeer(): Promise<SmtpPeer> {
  const mails: AcceptedMail[] = [];
  let refuseCount = 0;
  let refuseForever = false;
  let reply = "451 4.3.0 Mail server temporarily rejected message";
  let holding = false;
  const heldReplies: Array<() => void> = [];
  const peer = {
    held: 0,
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      peer.held = 0;
      for (const answer of heldReplies.splice(0)) answer();
    },
    url: "",
    mails,
    refused: 0,
    refuseNext(count: number, answer = "451 4.3.0 Mail server temporarily rejected message") {
      refuseCount = count;
      reply = answer;
    },
    refuseAll(answer = "421 4.3.2 Service not available") {
      refuseForever = true;
      reply = answer;
    },
    acceptAgain() {
      refuseForever = false;
      refuseCount = 0;
    },
    countOf: (alertId: string, step: number) =>
      mails.filter((mail) => mail.alertId === alertId && mail.step === step).length,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    // Plain SMTP on localhost: no STARTTLS to offer a certificate nobody trusts, login allowed without it.
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD)
        return callback(null, { user: auth.username });
      callback(Object.assign(new Error("535 5.7.8 Authentication credentials invalid"), { responseCode: 535 }));
    },
    onRcptTo(_address, _session, callback) {
      if (!holding) return callback();
      peer.held++;
      heldReplies.push(() => callback());
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        if (refuseForever || refuseCount > 0) {
          if (!refuseForever) refuseCount--;
          peer.refused++;
          const [, code, text] = /^(\d{3}) (.*)$/.exec(reply)!;
          return callback(Object.assign(new Error(text), { responseCode: Number(code) }));
        }
        const parsed = parseMail(Buffer.concat(chunks).toString("utf8"));
        const step = parsed.headers.get("x-dialysis-hub-step");
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          ...parsed,
          alertId: parsed.headers.get("x-dialysis-hub-alert"),
          step: step === undefined ? undefined : Number(step),
          acceptedAt: Date.now(),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  peer.url = `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${port}`;
  return peer;
}

/** Headers (unfolded, RFC 2047 words decoded) and the text body (quoted-printable or base64) of a single-part mail. */
function parseMail(raw: string): { headers: Map<string, string>; subject: string; text: string } {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ");
  const headers = new Map<string, string>();
  for (const line of head.split("\r\n")) {
    const colon = line.indexOf(":");
    headers.set(line.slice(0, colon).trim().toLowerCase(), decodeWords(line.slice(colon + 1).trim()));
  }
  const body = raw.slice(split + 4);
  const encoding = (headers.get("content-transfer-encoding") ?? "7bit").toLowerCase();
  const text =
    encoding === "base64"
      ? Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8")
      : encoding === "quoted-printable"
        ? decodeQuotedPrintable(body)
        : body;
  return { headers, subject: headers.get("subject") ?? "", text: text.replace(/\r\n/g, "\n") };
}

function decodeQuotedPrintable(body: string): string {
  const bytes = body.replace(/=\r\n/g, "").replace(/=([0-9A-F]{2})/gi, (_, hex: string) => `%${hex}`);
  return decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/gi, "%25"));
}

function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?utf-8\?([BQ])\?([^?]*)\?=/gi, (_, kind: string, text: string) =>
      kind.toUpperCase() === "B"
        ? Buffer.from(text, "base64").toString("utf8")
        : decodeQuotedPrintable(text.replace(/_/g, " ")),
    );
}
