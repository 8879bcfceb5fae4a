// Gives JSON.parse and JSON.stringify frames of their own in a V8 CPU profile: V8 counts the time
// of a builtin as its caller's own, so without these wrappers JSON work would be spread over
// whoever called it (the pg driver, the push command, a projection). Loaded into the service's
// process with `node --import <this file>` by the floor group's profiled runs
// (bench/profiledRuns.ts) and by nothing else; cpuProfileSummary.ts counts these frames as JSON.
const parse = JSON.parse;
const stringify = JSON.stringify;

JSON.parse = function jsonParse(text, reviver) {
  return parse(text, reviver);
};
JSON.stringify = function jsonStringify(value, replacer, space) {
  return stringify(value, replacer, space);
};
