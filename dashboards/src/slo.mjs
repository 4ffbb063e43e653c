// The SLOs the dashboards draw, read from thresholds.json (the one home of every budget, read
// for k6 by lib/thresholds.js and validated by it here too), so a line on a panel is the number
// the run was judged by.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseJsonFile, sloLimit } from '../../lib/thresholds.js';

const FILE = fileURLToPath(new URL('../../thresholds.json', import.meta.url));
const doc = parseJsonFile(readFileSync(FILE, 'utf8'), 'thresholds.json');

/** The p(95) budget in ms of one entry, e.g. sloMs('cico', 'transactions', 'check-out'); null if unset. */
export function sloMs(workflow, section, key) {
  return sloLimit(doc, workflow, section, key, 'p(95)');
}
