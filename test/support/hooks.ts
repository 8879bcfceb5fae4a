import { dropTestDatabases } from "./database.ts";

export const mochaHooks = {
  async afterAll() {
    await dropTestDatabases();
  },
};
