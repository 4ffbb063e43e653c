#!/usr/bin/env node
// Runs a JMeter plan (.jmx) headless, unchanged but for its target, against a loopback FOLIO
// (minifolio), and returns its results: results/<id>/results.jtl (JMeter's CSV results),
// jmeter.log, and a summary line per transaction controller. A client written by FOLIO's own
// performance team, run as they ran it, is the check that minifolio answers like FOLIO.
//
//   make jmeter                                  # once: Apache JMeter 5.6.3 from Maven Central
//   node tools/jmeter/run.mjs PLAN.jmx [--target http://127.0.0.1:9130] [--data DIR] [--out DIR]
//        [--tls] [--secret NAME=ENV_VAR]... [-Jname=value]...
//
// --target  the FOLIO to load: on this machine only (default minifolio's, FP_MINIFOLIO_PORT of
//           defaults.env or the environment)
// --data    a directory whose entries are laid over the plan's own (e.g. jmeter-supported-data/)
// --out     where the results go (default results/jmeter-<plan>-<UTC time>)
// --tls     keep the plan's https: a TLS front of the target on loopback (Secure cookies flow)
// --secret  JMeter property NAME from environment variable ENV_VAR, through a private file
// -J...     JMeter properties, as on JMeter's command line (-JVUSERS=8 -JDURATION=300 ...;
//           -Jtimer.factor=0 removes the uniform random timers' think time)
// docs/jmeter.md says what the harness changes in a plan (the scheme and port of https elements)
// and how it keeps requests on this machine. Exit: JMeter's code; 1 on bad input; 2 when no
// sample was recorded; 3 when the plan tried to reach another host.

import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs, parseJtl, summarize } from './plan.mjs';
import { repo, runPlan } from './harness.mjs';
import { makeTestId } from '../../lib/testid.js';
import { setting } from '../defaults.mjs';

const die = (msg, code = 1) => {
  console.error(`folio-perf jmeter: ${msg}`);
  process.exit(code);
};

let o;
try {
  o = parseArgs(process.argv.slice(2));
} catch (e) {
  die(e.message);
}
const target = o.target || `http://127.0.0.1:${setting('FP_MINIFOLIO_PORT')}`;
const out = o.out || join(repo, 'results', makeTestId(`jmeter-${basename(o.plan, '.jmx').replace(/[^\w.-]/g, '_')}`));

let r;
try {
  r = await runPlan({ plan: o.plan, target, out, data: o.data, props: o.props, secrets: o.secrets, tls: o.tls });
} catch (e) {
  die(e.message);
}
if (!existsSync(r.jtl)) die(`JMeter wrote no results (exit ${r.code}); fix: read ${r.log}`, r.code || 2);
const rows = parseJtl(readFileSync(r.jtl, 'utf8'));
const s = summarize(rows, r.transactions);
console.log(`results: ${r.jtl} (${rows.length} samples; ${r.pointed} HTTP elements pointed at ${target})`);
console.log(`requests: ${s.requests}, failed ${s.requestErrors}`);
for (const t of s.transactions) console.log(`transaction ${t.name}: ${t.count}, failed ${t.failed}, p50 ${t.p50 ?? '-'} ms, p95 ${t.p95 ?? '-'} ms`);
if (r.refused.length) die(`the plan sent ${r.refused.length} requests to hosts other than ${target}, refused (first: ${r.refused[0]}); fix: set the plan's host properties to the target`, 3);
if (rows.length === 0) die(`no sample recorded; fix: read ${r.log}`, 2);
process.exit(r.code);
