import { buildServer } from "../../src/buildServer.ts";
import { dropTestDatabases } from "./database.ts";

export const mochaHooks = {
  async beforeAll() {
    // Tests that start the service or the command line as a process run the build, as production does.
    await buildServer();
  },
  async afterAll() {
    await dropTestDatabases();
  },
};
