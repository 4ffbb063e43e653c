// The errors every workflow's report shows after its own tables: failed requests by API and
// status, from InfluxDB. Pure.
import { int } from './format.mjs';

/** errors: [{name, status, requests}] from the errors query. */
export function errorsBlock(errors) {
  const rows = [...errors].sort((a, b) => b.requests - a.requests || a.name.localeCompare(b.name) || String(a.status).localeCompare(String(b.status)));
  return {
    type: 'table',
    id: 'errors',
    caption: 'Errors by API and status (status 0: no response)',
    columns: [{ label: 'API', wrap: true }, { label: 'Status', align: 'r' }, { label: 'Requests', align: 'r' }],
    rows: rows.map((e) => [e.name || '(unnamed)', String(e.status ?? '-'), int(e.requests)]),
    empty: 'No request failed.',
    source: 'InfluxDB: errors',
  };
}
