import client from "prom-client";
import type pg from "pg";
import type { Db } from "../../db/pool.ts";
import { collectStoreGauges } from "./storeGauges.ts";

/** What the push route leaves in `ctx.state.push` for the count: who pushed, and each report's outcome once answered. */
export interface PushTally {
  kind: string;
  tenant: string;
  client: string;
  /** CREATED, UPDATED, UNCHANGED or REJECTED per report; empty when the whole push was refused. */
  outcomes: string[];
  /** HL7 v2 over HTTP: the ACK code (AA, AE, AR) of each message. */
  hl7Acks?: string[];
}

/** Seconds: a report query or a request of a few milliseconds up to the 10 s statement timeout and beyond. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export type ReportQueryOutcome = "ok" | "error";

/**
 * Why an access record was not kept (docs/operations.md, "Access log"): the queue waiting for the
 * database was full, or the service stopped before it could write it.
 */
export type AccessDropReason = "queue_full" | "shutdown";

/** Why the HTTP server cut a response before its end (docs/operations.md, "Exports nobody reads"). */
export type ResponseCutReason = "stalled";

/** Why the MLLP listener closed a connection of its own accord (docs/operations.md, "MLLP limits"). */
export type MllpCloseReason =
  | "cap"
  | "keyless_per_address"
  | "evicted"
  | "keyless"
  | "idle"
  | "frame_deadline"
  | "unauthenticated_bytes"
  | "frame_size"
  | "credential_ended";

function tallied(values: readonly string[]): Map<string, number> {
  const counted = new Map<string, number>();
  for (const value of values) counted.set(value, (counted.get(value) ?? 0) + 1);
  return counted;
}

/**
 * What `/metrics` shows (docs/operations.md names each figure and the alert rules over them). A
 * registry of its own per running service, not prom-client's global one: a test process runs
 * several services, and each must count only its own requests.
 *
 * Counters and histograms are kept as things happen; what the database knows (projection lag,
 * the store's head, bulk jobs, the unsealed ledger) is read when scraped, so that a process that
 * did not do the work (an API process beside the workers) shows it all the same.
 */
export class ServiceMetrics {
  readonly registry = new client.Registry();
  private readonly httpRequests = new client.Counter({
    name: "http_requests_total",
    help: "HTTP requests answered, by method, route pattern and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [this.registry],
  });
  private readonly httpDuration = new client.Histogram({
    name: "http_request_duration_seconds",
    help: "Time from a request's arrival to its answer, by method, route pattern and status",
    labelNames: ["method", "route", "status"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly pushes = new client.Counter({
    name: "dialysis_hub_pushes_total",
    help:
      "Pushes of reports (/open/v1/{kind}/reports; HL7 v2 bodies to /open/v1/hl7 and FHIR Bundles to /fhir/r4 as " +
      "kind lab), by kind, tenant, client and HTTP status",
    labelNames: ["kind", "tenant", "client", "status"] as const,
    registers: [this.registry],
  });
  private readonly reports = new client.Counter({
    name: "dialysis_hub_reports_total",
    help:
      "Reports received (pushed as JSON, sent as HL7 v2 over HTTP or MLLP, or as FHIR R4), by kind, tenant, " +
      "client and outcome (CREATED, UPDATED, UNCHANGED, REJECTED)",
    labelNames: ["kind", "tenant", "client", "outcome"] as const,
    registers: [this.registry],
  });
  private readonly hl7Messages = new client.Counter({
    name: "dialysis_hub_hl7_messages_total",
    help: "HL7 v2 messages answered, by transport (http, mllp), tenant, client (empty when the key was missing or unknown) and ACK code (AA, AE, AR)",
    labelNames: ["transport", "tenant", "client", "ack"] as const,
    registers: [this.registry],
  });
  private readonly reportQueries = new client.Histogram({
    name: "dialysis_hub_report_query_duration_seconds",
    help: "Report queries (the named SQL of a report spec), by data source and outcome",
    labelNames: ["datasource", "outcome"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly mllpClosed = new client.Counter({
    name: "dialysis_hub_mllp_connections_closed_total",
    help:
      "MLLP connections the service closed for a limit, by reason: cap (closed as accepted, " +
      "HL7_MLLP_MAX_CONNECTIONS being open and none keyless to close), keyless_per_address (closed as accepted, " +
      "its address holding HL7_MLLP_KEYLESS_PER_ADDRESS keyless connections all being answered), evicted " +
      "(keyless, closed to make room for a new one), keyless (no valid key shown within " +
      "HL7_MLLP_KEYLESS_TIMEOUT_MS), idle, frame_deadline, unauthenticated_bytes, frame_size, credential_ended " +
      "(its client key stopped working)",
    labelNames: ["reason"] as const,
    registers: [this.registry],
  });
  private readonly responsesCut = new client.Counter({
    name: "dialysis_hub_http_responses_cut_total",
    help: "HTTP responses the service cut before their end, by reason: stalled (none of their bytes taken by the reader for RESPONSE_STALL_MS)",
    labelNames: ["reason"] as const,
    registers: [this.registry],
  });
  private readonly accessWritten = new client.Counter({
    name: "dialysis_hub_access_records_written_total",
    help: "Access records (who was shown which patients, contract E.4) written to the event store by this process",
    registers: [this.registry],
  });
  private readonly accessWriteFailures = new client.Counter({
    name: "dialysis_hub_access_record_write_failures_total",
    help: "Writes of a batch of access records that the database refused or did not answer; the batch stays queued and is tried again",
    registers: [this.registry],
  });
  private readonly messagesKeptTotal = new client.Counter({
    name: "dialysis_hub_messages_kept_total",
    help: "Received messages (contract G.5) written to the message store by this process, by channel and outcome",
    labelNames: ["channel", "outcome"] as const,
    registers: [this.registry],
  });
  private readonly messageWriteFailures = new client.Counter({
    name: "dialysis_hub_message_write_failures_total",
    help: "Writes of received messages the database refused (each is tried again)",
    registers: [this.registry],
  });
  private readonly messagesLostTotal = new client.Counter({
    name: "dialysis_hub_messages_lost_total",
    help: "Received messages still unwritten when the service stopped (the database refused them to the end)",
    registers: [this.registry],
  });
  private readonly accessDropped = new client.Counter({
    name: "dialysis_hub_access_records_dropped_total",
    help:
      "Access records this process could not keep, by reason: queue_full (ACCESS_LOG_QUEUE_BYTES reached while " +
      "the database refused writes), shutdown (still unwritten when the service stopped)",
    labelNames: ["reason"] as const,
    registers: [this.registry],
  });
  private readonly pools = new Map<string, pg.Pool>();

  /** `processMetrics`: also prom-client's process figures (they watch the event loop and GC for the life of the process: only when scraped). */
  constructor(serviceDb: Db, { processMetrics }: { processMetrics: boolean }) {
    if (processMetrics) client.collectDefaultMetrics({ register: this.registry });
    const pools = this.pools;
    new client.Gauge({
      name: "dialysis_hub_db_pool_connections",
      help: "Database connections of each of the service's pools: open (total), idle, and requests waiting for one",
      labelNames: ["pool", "state"] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [name, pool] of pools) {
          this.set({ pool: name, state: "total" }, pool.totalCount);
          this.set({ pool: name, state: "idle" }, pool.idleCount);
          this.set({ pool: name, state: "waiting" }, pool.waitingCount);
        }
      },
    });
    this.watchPool("service", serviceDb);
    // At zero from the start, so that an alert rule over them has a series before the first drop.
    for (const reason of ["queue_full", "shutdown"] as const) this.accessDropped.inc({ reason }, 0);
    this.responsesCut.inc({ reason: "stalled" }, 0);
    collectStoreGauges(this.registry, serviceDb);
  }

  /** Shows a pool's connections under `name` (the report data sources' pools, for one). */
  watchPool(name: string, pool: pg.Pool): void {
    this.pools.set(name, pool);
  }

  /** Shows the MLLP listener's open connections (`open` is read when scraped). */
  watchMllpConnections(open: () => number): void {
    new client.Gauge({
      name: "dialysis_hub_mllp_connections",
      help: "MLLP connections open now (at most HL7_MLLP_MAX_CONNECTIONS)",
      registers: [this.registry],
      collect() {
        this.set(open());
      },
    });
  }

  /** Shows the access records waiting to be written (`queued` is read when scraped). */
  watchAccessQueue(queued: () => number): void {
    new client.Gauge({
      name: "dialysis_hub_access_records_queued",
      help: "Access records waiting in this process to be written to the event store",
      registers: [this.registry],
      collect() {
        this.set(queued());
      },
    });
  }

  /** Shows the received messages waiting to be written (`queued` is read when scraped). */
  watchMessageQueue(queued: () => number): void {
    new client.Gauge({
      name: "dialysis_hub_messages_queued",
      help: "Received messages waiting in this process to be written to the message store",
      registers: [this.registry],
      collect() {
        this.set(queued());
      },
    });
  }

  messagesKept(channel: string, outcome: string, count: number): void {
    this.messagesKeptTotal.inc({ channel, outcome }, count);
  }

  messageWriteFailed(): void {
    this.messageWriteFailures.inc();
  }

  messagesLost(count: number): void {
    this.messagesLostTotal.inc(count);
  }

  accessRecordsWritten(count: number): void {
    this.accessWritten.inc(count);
  }

  accessWriteFailed(): void {
    this.accessWriteFailures.inc();
  }

  accessRecordsDropped(reason: AccessDropReason, count: number): void {
    this.accessDropped.inc({ reason }, count);
  }

  responseCut(reason: ResponseCutReason): void {
    this.responsesCut.inc({ reason });
  }

  mllpConnectionClosed(reason: MllpCloseReason): void {
    this.mllpClosed.inc({ reason });
  }

  requestAnswered(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  pushAnswered(tally: PushTally, status: number): void {
    this.pushes.inc({ kind: tally.kind, tenant: tally.tenant, client: tally.client, status: String(status) });
    this.reportsReceived(tally);
  }

  /** Reports by outcome; counted with their push, or as MLLP messages are answered. */
  reportsReceived({
    kind,
    tenant,
    client: clientId,
    outcomes,
  }: Pick<PushTally, "kind" | "tenant" | "client" | "outcomes">): void {
    for (const [outcome, count] of tallied(outcomes))
      this.reports.inc({ kind, tenant, client: clientId, outcome }, count);
  }

  hl7Answered(
    transport: "http" | "mllp",
    { tenant, client: clientId }: { tenant: string; client: string },
    ackCodes: readonly string[],
  ): void {
    for (const [ack, count] of tallied(ackCodes))
      this.hl7Messages.inc({ transport, tenant, client: clientId, ack }, count);
  }

  reportQueryRan(datasource: string, outcome: ReportQueryOutcome, seconds: number): void {
    this.reportQueries.observe({ datasource, outcome }, seconds);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
