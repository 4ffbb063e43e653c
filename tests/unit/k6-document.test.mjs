// lib/folio.js reads responses through a document: in k6, res.json(path) (gjson); under node,
// jsonDocument. The rules are only as good as the two agreeing, so the real k6 answers every path
// for every fixture body and the answers are compared (bin/k6 must be built: make k6).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { bin, runAsync } from '../e2e/helpers.mjs';
import { localEnv } from '../../tools/local-env.mjs';

const FIXTURES = [
  '{"users":[{"id":"u1","patronGroup":"g1"}],"totalRecords":1}',
  '{"users":[],"totalRecords":0,"resultInfo":{"totalRecords":0}}',
  '{"item":{"id":"i1","status":{"name":"Available"}},"loan":{"id":"l1","userId":"u1","status":{"name":"Closed"},"lostItemPolicyId":null}}',
  '{"errors":[{"message":"Item is already checked out","parameters":[{"key":"itemBarcode","value":"i1"}]}]}',
  '{"a":{"0":"zero"},"b":[1,[2,3]],"n":null,"t":true,"f":1.5,"totalRecords":"12"}',
  '[1,2,{"id":"x"}]',
  '{"users":[{"id":"u1"}',
  'Invalid token',
  '',
];
const PATHS = [
  'totalRecords', 'users.#', 'users.0.id', 'users.0.patronGroup', 'users.1.id', 'resultInfo.totalRecords',
  'item.id', 'item.status.name', 'loan.id', 'loan.status.name', 'loan.lostItemPolicyId', 'loan.missing',
  'errors', 'errors.#', 'errors.0.message', 'errors.0.parameters.0.key',
  'a.0', 'b.#', 'b.1.#', 'b.1.0', 'b.2', 'n', 'n.x', 't', 'f', 'f.x',
  '0', '2.id', '#', 'missing', 'id', 'status.name',
];

test('k6 (res.json, gjson) and jsonDocument answer every path of every body alike', async () => {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(FIXTURES[Number(req.url.slice(1))]);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    // Not spawnSync: this process's server must answer k6 meanwhile.
    const k6 = await runAsync(bin('k6'), ['run', '--quiet', '--address=', '--log-format=raw', 'tests/unit/k6/document.js'], { env: {
      ...localEnv().env, // never the shell's K6_OUT, FOLIO_URL, ... (tools/local-env.allow)
      K6_AUTO_EXTENSION_RESOLUTION: 'false',
      K6_NO_USAGE_REPORT: 'true',
      DOC_URL: `http://127.0.0.1:${server.address().port}`,
      DOC_FIXTURES: JSON.stringify(FIXTURES),
      DOC_PATHS: JSON.stringify(PATHS),
    } });
    assert.equal(k6.status, 0, k6.stderr + k6.stdout);
    const line = (k6.stderr + k6.stdout).split('\n').find((l) => l.startsWith('DOCUMENT '));
    assert.ok(line, `k6 printed no result:\n${k6.stderr}`);
    const result = JSON.parse(line.slice('DOCUMENT '.length));
    assert.equal(result.compared, FIXTURES.length * PATHS.length);
    assert.deepEqual(result.mismatches, []);
  } finally {
    server.close();
  }
});
