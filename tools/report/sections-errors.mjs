// The errors every workflow's report shows after its own tables: failed requests by API and
// status, from InfluxDB. Pure.
import { int } from './format.mjs';
import { table } from './doc.mjs';

/** errors: [{name, status, requests}] from the errors query. */
export function errorsBlock(errors) {
  const rows = [...errors].sort((a, b) => b.requests - a.requests || a.name.localeCompare(b.name) || String(a.status).localeCompare(String(b.status)));
  return table({
    id: 'errors',
    caption: 'Errors by API and status (status 0: no response)',
    columns: [
      { label: 'API', wrap: true, get: (e) => e.name || '(unnamed)' },
      { label: 'Status', align: 'r', get: (e) => String(e.status ?? '-') },
      { label: 'Requests', align: 'r', fmt: int, get: (e) => e.requests },
    ],
    data: rows,
    key: (e) => `${e.name}|${e.status}`,
    labelCols: 2,
    empty: 'No request failed.',
    source: 'InfluxDB: errors',
  });
}
