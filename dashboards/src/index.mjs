// The list of dashboards the generator writes. Add a dashboard here and it is
// generated, linted, checked for staleness and query-tested against InfluxDB.
import * as cico from './cico.mjs';
import * as comparison from './comparison.mjs';
import * as search from './search.mjs';
import { toJSON } from './panels.mjs';

export const DASHBOARDS = [cico, comparison, search];

/** Map of file name (under dashboards/) → file text, exactly as committed. */
export function render() {
  const files = new Map();
  for (const d of DASHBOARDS) files.set(d.FILE, `${JSON.stringify(toJSON(d.build()), null, 2)}\n`);
  return files;
}
