import type { Projection } from "./projection.ts";

/** Every read model of the service, in no particular order: each one stands alone. */
export const allProjections: readonly Projection[] = [];
