import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { Client, Message } from "node-hl7-client";
import { createPool } from "../../db/pool.ts";
import { allProjections } from "../../src/app/allProjections.ts";
import { MAX_FRAME_BYTES } from "../../src/ingestion/hl7/mllpFrames.ts";
import { oruR01, withSecurity } from "../support/hl7Messages.ts";
import { connectRaw, END, mllpFrame, rawExchange, START } from "../support/mllpPeer.ts";
import { ingestionTenant, useIngestionService } from "../support/ingestion.ts";
import { startTestService, until } from "../support/service.ts";

/*
 * HL7 v2 over MLLP (contract D.5): messages sent with node-hl7-client, an MLLP client this
 * project did not write, and framing faults with raw sockets.
 */

const REQUEST_TIMEOUT_MS = 1500;
describe("HL7 v2 over MLLP", function () {
  this.timeout(60_000);
  const hub = useIngestionService({ env: { HL7_MLLP_PORT: "0", REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) } });

  it("stores the messages a laboratory system sends on one connection, and ACKs each in order", async () => {
    const client = new Client({ host: "127.0.0.1", version: "2.5.1" } as ConstructorParameters<typeof Client>[0]);
    const acks: string[] = [];
    const connection = client.createConnection(
      { port: hub.service.mllpPort! } as Parameters<typeof client.createConnection>[0],
      async (res) => {
        const ack = res.getMessage();
        acks.push(`${ack.get("MSA.1").toString()} ${ack.get("MSA.2").toString()}`);
      },
    );
    try {
      // One message at a time, each after its ACK: sent as a burst, node-hl7-client stalled its process in our runs.
      for (let i = 1; i <= 3; i++) {
        await connection.sendMessage(
          new Message({
            text: withSecurity(oruR01({ controlId: `MLLP-${i}`, externalId: `MLLP-R${i}` }), hub.tenant.client.key),
          }),
        );
        await until(async () => acks.length === i, 10_000);
      }
    } finally {
      await connection.close();
    }
    expect(acks).to.deep.equal(["AA MLLP-1", "AA MLLP-2", "AA MLLP-3"]);
    const { rows } = await hub.service.db.query(
      "select count(*)::int as n from events where tenant = 'h1' and stream_id like 'lab-report:MLLP-%'",
    );
    expect(rows[0].n).to.equal(3);
  });

  it(
    "takes messages sent without waiting for each ACK, on two connections at once: each ACKed in order, a report " +
      "sent twice stored in the order sent",
    async () => {
      // Raw sockets: node-hl7-client, sending without waiting for each ACK, stalls its process (the loop never yields).
      const [first, second] = [await connectRaw(hub.service.mllpPort!), await connectRaw(hub.service.mllpPort!)];
      const sent = (connection: number, i: number) => `BURST-${connection}-${i}`;
      // The first connection sends one report twice: preliminary (long: 490 more results, slow to
      // store), then, while it is being stored, corrected with another value, alone.
      const longResults = Array.from({ length: 490 }, (_, i) => `OBX|${i + 7}|NM|X${i}^项目${i}||${i}|g/L|1-500|N|||P`);
      const messages = (connection: number) =>
        Array.from({ length: 20 }, (_, i) => {
          if (connection === 1 && i === 0)
            return [
              oruR01({ controlId: sent(1, 0), externalId: "BURST-TWICE", status: "P", hgb: "99" }),
              ...longResults,
            ].join("\r");
          if (connection === 1 && i === 1)
            return oruR01({ controlId: sent(1, 1), externalId: "BURST-TWICE", status: "C", hgb: "101" });
          return oruR01({ controlId: sent(connection, i), externalId: `BURST-R${connection}-${i}` });
        });
      const frame = (er7: string) => mllpFrame(withSecurity(er7, hub.tenant.client.key));
      try {
        const [preliminary, corrected, ...rest] = messages(1);
        first.socket.write(frame(preliminary!));
        await new Promise((resolve) => setTimeout(resolve, 2));
        first.socket.write(frame(corrected!));
        await new Promise((resolve) => setTimeout(resolve, 5));
        for (const er7 of rest) first.socket.write(frame(er7));
        for (const er7 of messages(2)) second.socket.write(frame(er7));
        await until(async () => first.acks.length === 20 && second.acks.length === 20, 20_000);
      } finally {
        first.socket.destroy();
        second.socket.destroy();
      }
      expect(first.acks).to.deep.equal(Array.from({ length: 20 }, (_, i) => `AA ${sent(1, i)}`));
      expect(second.acks).to.deep.equal(Array.from({ length: 20 }, (_, i) => `AA ${sent(2, i)}`));
      const twice = await hub.service.db.query(
        "select data->'report'->>'status' as status, data->>'outcome' as outcome, " +
          "metadata->'origin'->>'controlId' as control_id from events where tenant = 'h1' and stream_id = " +
          "'lab-report:BURST-TWICE' order by stream_version",
      );
      expect(twice.rows).to.deep.equal([
        { status: "PRELIMINARY", outcome: "CREATED", control_id: sent(1, 0) },
        { status: "CORRECTED", outcome: "UPDATED", control_id: sent(1, 1) },
      ]);
      const { rows } = await hub.service.db.query(
        "select count(*)::int as reports, count(distinct transaction_id)::int as commits from events where " +
          "tenant = 'h1' and stream_id like 'lab-report:BURST-%'",
      );
      expect(rows[0].reports).to.equal(40);
      expect(rows[0].commits, "messages that arrive together are stored together").to.be.below(30);
    },
  );

  it("refuses a message without a valid key in MSH-8 with AR", async () => {
    const frames = [
      withSecurity(oruR01({ controlId: "NO-KEY" }), ""),
      withSecurity(oruR01({ controlId: "BAD-KEY" }), "not-a-key"),
    ];
    const { received } = await rawExchange(hub.service.mllpPort!, frames.map(mllpFrame), 2000);
    expect(received).to.match(/\rMSA\|AR\|NO-KEY\|Send your client key in MSH-8/);
    expect(received).to.match(/\rMSA\|AR\|BAD-KEY\|The key in MSH-8 is unknown or revoked/);
    const { rows } = await hub.service.db.query(
      "select count(*)::int as n from events where stream_id = 'lab-report:L20260301-0001'",
    );
    expect(rows[0].n, "nothing stored").to.equal(0);
  });

  it("refuses a frame over 4 MB with AR and closes the connection", async () => {
    const huge = Buffer.alloc(MAX_FRAME_BYTES + 1024, "A");
    const { received, closedAfterMs } = await rawExchange(
      hub.service.mllpPort!,
      [START, Buffer.from(withSecurity(oruR01(), hub.tenant.client.key)), huge],
      5000,
    );
    expect(received).to.match(/\rMSA\|AR\|[^\r]*over 4 MB/);
    expect(closedAfterMs, "closed by the service").to.not.equal(null);
  });

  it("cuts a connection that leaves a frame unfinished for REQUEST_TIMEOUT_MS", async () => {
    const { received, closedAfterMs } = await rawExchange(
      hub.service.mllpPort!,
      [START, Buffer.from("MSH|^~\\&|LIS")],
      REQUEST_TIMEOUT_MS * 4,
    );
    expect(received).to.equal("");
    expect(closedAfterMs)
      .to.be.a("number")
      .within(REQUEST_TIMEOUT_MS * 0.8, REQUEST_TIMEOUT_MS * 3);
  });

  it("answers raw frames byte for byte framed, bytes between frames ignored", async () => {
    const message = Buffer.from(
      withSecurity(oruR01({ controlId: "RAW-1", externalId: "MLLP-RAW" }), hub.tenant.client.key),
      "utf8",
    );
    const { received } = await rawExchange(
      hub.service.mllpPort!,
      [Buffer.from("\r\n"), START, message.subarray(0, 100), message.subarray(100), END],
      3000,
    );
    expect(received.startsWith("\x0bMSH|")).to.equal(true);
    expect(received.endsWith("\x1c\r")).to.equal(true);
    expect(received).to.include("\rMSA|AA|RAW-1|");
  });

  it("ends a frame whose end block comes split over two reads", async () => {
    const peer = await connectRaw(hub.service.mllpPort!);
    try {
      peer.socket.write(
        Buffer.concat([
          START,
          Buffer.from(withSecurity(oruR01({ controlId: "SPLIT-1", externalId: "MLLP-SPLIT" }), hub.tenant.client.key)),
          END.subarray(0, 1),
        ]),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      peer.socket.write(END.subarray(1));
      await until(async () => peer.acks.length === 1, 5000);
    } finally {
      peer.socket.destroy();
    }
    expect(peer.acks).to.deep.equal(["AA SPLIT-1"]);
  });
});

describe("HL7 v2 over MLLP: TLS and shutdown", function () {
  this.timeout(60_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), "dialysis-hub-mllp-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("speaks TLS with HL7_MLLP_TLS_CERT and _KEY, to a client that checks the certificate", async () => {
    const [cert, key] = [path.join(dir, "cert.pem"), path.join(dir, "key.pem")];
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        key,
        "-out",
        cert,
        "-days",
        "1",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=IP:127.0.0.1,DNS:localhost",
      ],
      { stdio: "ignore" },
    );
    const service = await startTestService({
      projections: allProjections,
      env: { HL7_MLLP_PORT: "0", HL7_MLLP_TLS_CERT: cert, HL7_MLLP_TLS_KEY: key },
    });
    try {
      const tenant = await ingestionTenant(service, "h1");
      const client = new Client({
        host: "127.0.0.1",
        version: "2.5.1",
        tls: { ca: readFileSync(cert), rejectUnauthorized: true },
      } as ConstructorParameters<typeof Client>[0]);
      const acks: string[] = [];
      const connection = client.createConnection(
        { port: service.mllpPort! } as Parameters<typeof client.createConnection>[0],
        async (res) => {
          acks.push(res.getMessage().get("MSA.1").toString());
        },
      );
      try {
        await connection.sendMessage(
          new Message({
            text: withSecurity(oruR01({ controlId: "TLS-1", externalId: "MLLP-TLS" }), tenant.client.key),
          }),
        );
        await until(async () => acks.length === 1, 10_000);
      } finally {
        await connection.close();
      }
      expect(acks).to.deep.equal(["AA"]);
    } finally {
      await service.stop();
    }
  });

  it("answers the messages in flight before it stops, then closes their connection", async () => {
    const service = await startTestService({ projections: allProjections, env: { HL7_MLLP_PORT: "0" } });
    const tenant = await ingestionTenant(service, "h1");
    const socket = net.connect(service.mllpPort!, "127.0.0.1");
    let received = "";
    socket.on("data", (data) => (received += data.toString("utf8")));
    socket.on("error", () => {});
    const closed = new Promise((resolve) => socket.on("close", resolve));
    await new Promise((resolve) => socket.once("connect", resolve));
    // A message of 400 results takes the service a while: the stop comes while it is handled.
    const results = Array.from({ length: 400 }, (_, i) => `OBX|${i + 7}|NM|X${i}^项目${i}||${i}|g/L|1-500|N|||F`);
    socket.write(
      Buffer.concat([
        START,
        Buffer.from(
          [withSecurity(oruR01({ controlId: "LAST-1", externalId: "MLLP-LAST" }), tenant.client.key), ...results].join(
            "\r",
          ),
        ),
        END,
      ]),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    await service.stop();
    await closed;
    expect(received).to.include("\rMSA|AA|LAST-1|");
    const db = createPool(service.databaseUrl, { max: 1 });
    try {
      expect(
        (await db.query("select count(*)::int as n from events where stream_id = 'lab-report:MLLP-LAST'")).rows[0].n,
      ).to.equal(1);
    } finally {
      await db.end();
    }
  });
});
