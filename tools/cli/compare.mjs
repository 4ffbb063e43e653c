// `folio-perf compare`: two runs side by side (tools/report/compare.mjs).
import { INFLUX_OPTION, influxFor } from './influx.mjs';

export const command = {
  name: 'compare',
  summary: 'results/compare-<A>-vs-<B>/: two finished runs side by side (A the reference)',
  usage: '<testid A> <testid B> [--influx <url>]',
  about: "Compares run B with the reference run A (e.g. the previous release): the same tables as the report, each with A's value, B's and the change.",
  positionals: { min: 2, max: 2, what: 'test ids (A the reference, B the candidate)' },
  options: { influx: INFLUX_OPTION },
  async run({ values, positionals, env }) {
    const { writeComparison } = await import('../report/compare.mjs');
    const r = await writeComparison(positionals[0], positionals[1], { influxUrl: influxFor(values.influx, env) });
    console.log(`comparison: ${r.md}, ${r.html}`);
    return 0;
  },
};
