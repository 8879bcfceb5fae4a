/**
 * boot.js: under a kilobyte, run (deferred, in order) before the main bundle with ECharts is
 * evaluated; it starts the view and data calls so they travel while that bundle is parsed.
 */
import { bootOf, firstCalls } from "./request.ts";

firstCalls(bootOf(document.body));
