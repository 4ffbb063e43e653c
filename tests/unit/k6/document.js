// Run by tests/unit/k6-document.test.mjs: fetches each fixture body from the test's own HTTP
// server and compares, path by path, what k6 answers (res.json(path), gjson in Go: what the
// scripts read responses with) with lib/folio.js's jsonDocument (what the unit tests use).
// Prints one line, DOCUMENT <json of {compared, mismatches}> (run with --log-format=raw).

import http from 'k6/http';
import { jsonDocument } from '../../../lib/folio.js';

export const options = { vus: 1, iterations: 1 };

const fixtures = JSON.parse(__ENV.DOC_FIXTURES);
const paths = JSON.parse(__ENV.DOC_PATHS);
// Objects compare with sorted keys: res.json hands back Go maps, whose key order is random.
function show(v) {
  if (v === undefined) return 'undefined';
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v) || typeof v.length === 'number') return `[${Array.from(v, show).join(',')}]`;
  return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${show(v[k])}`).join(',')}}`;
}

export default function () {
  const result = { compared: 0, mismatches: [] };
  for (let i = 0; i < fixtures.length; i++) {
    const res = http.get(`${__ENV.DOC_URL}/${i}`);
    const doc = jsonDocument(res.body);
    for (const p of paths) {
      const k6 = show(res.json(p));
      const js = show(doc.get(p));
      result.compared++;
      if (k6 !== js) result.mismatches.push({ body: fixtures[i], path: p, k6, js });
    }
  }
  console.log(`DOCUMENT ${JSON.stringify(result)}`);
}
