import { expect } from "chai";
import parsePrometheusTextFormat, { type PrometheusFamily } from "parse-prometheus-text-format";

/* /metrics read with a text-format parser this project did not write (a port of Prometheus's own). */

/** Scrapes `url` (answered 200 in the text format) into its metric families by name. */
export async function scrape(url: string, token?: string): Promise<Map<string, PrometheusFamily>> {
  const answer = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  expect(answer.status, await answer.clone().text()).to.equal(200);
  expect(answer.headers.get("content-type")).to.match(/^text\/plain; version=0\.0\.4/);
  return new Map(parsePrometheusTextFormat(await answer.text()).map((family) => [family.name, family]));
}

/** The value of the one sample of `name` whose labels include `labels`. */
export function sample(
  families: Map<string, PrometheusFamily>,
  name: string,
  labels: Record<string, string> = {},
): number {
  const family = families.get(name);
  expect(family, `${name} is exposed`).to.not.equal(undefined);
  const found = family!.metrics.filter((metric) =>
    Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value),
  );
  expect(found, `${name} ${JSON.stringify(labels)}`).to.have.length(1);
  return Number(found[0]!.value ?? found[0]!.count);
}
