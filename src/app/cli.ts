import { Command, Option } from "commander";
import type { Role } from "./service.ts";

/*
 * The command line's shape: its commands, options and help. Each command loads what it does when
 * it runs (src/app/cliCommands/), so that `--help`, a mistyped option and every command but the
 * one chosen cost no more than commander: loading the whole service up front (the HTTP interface,
 * the queues, every projection) made `--help` take seconds (issue #34, `web.cli_help_ms`).
 */

const program = new Command("dialysis-hub").description("Dialysis Hub: clinical report ingestion and report viewing");

program
  .command("start")
  .description("run the service (HTTP and projection workers)")
  .addOption(
    new Option("--role <role>", "which part of the service this process runs")
      .choices(["all", "api", "worker"])
      .default("all"),
  )
  .option("--demo", "load the demo tenant (patients, lab reports, two published reports) also when DATABASE_URL is set")
  .action(async (options: { role: Role; demo?: boolean }) => (await import("./cliCommands/start.ts")).start(options));

program
  .command("migrate")
  .description("apply pending database migrations")
  .action(async () => (await import("./cliCommands/operations.ts")).migrateCommand());

program
  .command("ledger")
  .description("the tamper-evident ledger of the event store")
  .command("verify")
  .description("check every sealed block against the events as they are now; exit code 1 on any problem")
  .action(async () => (await import("./cliCommands/operations.ts")).verifyLedgerCommand());

program
  .command("backup <file>")
  .description(
    "write the events, the ledger and unfinished bulk job bodies to <file> (pg_dump's custom format) while the service runs",
  )
  .action(async (file: string) => (await import("./cliCommands/operations.ts")).backupCommand(file));

program
  .command("restore <file>")
  .description(
    "restore a backup into an empty database (DATABASE_URL), rebuild every read model by replay, and verify the ledger",
  )
  .action(async (file: string) => (await import("./cliCommands/operations.ts")).restoreCommand(file));

const projections = program.command("projections").description("inspect and rebuild read models");

projections
  .command("status")
  .description("position, lag and errors of every projection")
  .action(async () => (await import("./cliCommands/projections.ts")).projectionsStatus());

projections
  .command("rebuild <name>")
  .description("replay every event into fresh tables, then switch (name or 'all'); the old tables serve meanwhile")
  .action(async (name: string) => (await import("./cliCommands/projections.ts")).rebuildProjections(name));

projections
  .command("retry <name>")
  .description("let a projection stopped by an error try its event again (after a fix)")
  .action(async (name: string) => (await import("./cliCommands/projections.ts")).retryProjection(name));

const keys = program.command("keys").description("open-API keys of sending systems (laboratory, examination)");

keys
  .command("create")
  .description("create a client and its open-API key (printed once, as JSON)")
  .requiredOption("--tenant <tenant>", "the tenant the key sends reports for")
  .requiredOption("--name <name>", "the sending system's name, e.g. 'Central lab LIS'")
  .option(
    "--expires-in-days <days>",
    "days until the key stops working (fractions allowed); left out: it does not expire",
  )
  .action(async (options: { tenant: string; name: string; expiresInDays?: string }) =>
    (await import("./cliCommands/credentials.ts")).createKey(options),
  );

keys
  .command("list")
  .description("the tenant's clients with when each was made, expires, was last used and revoked (JSON); never a key")
  .requiredOption("--tenant <tenant>", "the tenant whose clients to list")
  .action(async (options: { tenant: string }) => (await import("./cliCommands/credentials.ts")).listKeys(options));

keys
  .command("revoke <clientId>")
  .description("revoke a client's key at once")
  .action(async (clientId: string) => (await import("./cliCommands/credentials.ts")).revokeKey(clientId));

keys
  .command("rotate <clientId>")
  .description("give a client a new key (printed once, as JSON); the former key keeps working for the overlap")
  .option("--overlap-hours <hours>", "hours the former key keeps working (0: it stops at once)", "24")
  .action(async (clientId: string, options: { overlapHours: string }) =>
    (await import("./cliCommands/credentials.ts")).rotateKey(clientId, options),
  );

const authors = program.command("authors").description("authoring credentials (reports and patients through /api)");

authors
  .command("create")
  .description("create an author and their token (printed once, as JSON)")
  .requiredOption("--tenant <tenant>", "the tenant the author works for")
  .requiredOption("--name <name>", "the author's name, shown as 'who' on what they publish")
  .option(
    "--expires-in-days <days>",
    "days until the token stops working (fractions allowed); left out: it does not expire",
  )
  .option(
    "--roles <roles>",
    "what the token may do, comma-separated: admin, author, clinician, viewer; left out: author",
  )
  .option("--wards <wards>", "the wards whose patients the token sees, comma-separated; left out: every ward")
  .action(async (options: { tenant: string; name: string; expiresInDays?: string; roles?: string; wards?: string }) =>
    (await import("./cliCommands/credentials.ts")).createAuthorToken(options),
  );

authors
  .command("list")
  .description(
    "the tenant's authors with their roles, wards and when each was made, expires, was last used and revoked (JSON); never a token",
  )
  .requiredOption("--tenant <tenant>", "the tenant whose authors to list")
  .action(async (options: { tenant: string }) =>
    (await import("./cliCommands/credentials.ts")).listAuthorTokens(options),
  );

authors
  .command("revoke <authorId>")
  .description("revoke an author's tokens at once")
  .action(async (authorId: string) => (await import("./cliCommands/credentials.ts")).revokeAuthorTokens(authorId));

authors
  .command("rotate <authorId>")
  .description("give an author a new token (printed once, as JSON); the former token keeps working for the overlap")
  .option("--overlap-hours <hours>", "hours the former token keeps working (0: it stops at once)", "24")
  .action(async (authorId: string, options: { overlapHours: string }) =>
    (await import("./cliCommands/credentials.ts")).rotateAuthor(authorId, options),
  );

program
  .command("import <kind> <file>")
  .description(
    "submit a local NDJSON file (gzip recognised) of lab or exam reports as a bulk job and follow it to its end",
  )
  .requiredOption("--tenant <tenant>", "the tenant the reports belong to")
  .requiredOption(
    "--client <name>",
    "the sending system the reports come from (the name of a client with a working key)",
  )
  .option("--no-wait", "print the job id and return; the service's workers import it")
  .action(async (kind: string, file: string, options: { tenant: string; client: string; wait: boolean }) =>
    (await import("./cliCommands/imports.ts")).importReports(kind, file, options),
  );

const patients = program.command("patients").description("dialysis patients");

patients
  .command("import <file>")
  .description("register or update patients from a UTF-8 CSV file: patientRef,name,idCard[,hisPatientId,ward,active]")
  .requiredOption("--tenant <tenant>", "the tenant the patients belong to")
  .action(async (file: string, options: { tenant: string }) =>
    (await import("./cliCommands/imports.ts")).importPatients(file, options),
  );

program.parseAsync().catch((error: unknown) => {
  console.error(`dialysis-hub: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
