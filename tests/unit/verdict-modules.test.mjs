// The verdict fails loudly when one of its check modules is missing or broken: a verdict without
// its SLO rows would otherwise pass a run nobody judged (exit 0 with an empty table). The test
// renames, then breaks, a module in a copy of the repository and runs `folio-perf verdict` there;
// neither case may reach InfluxDB (it points at a closed port) or exit 0.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyRepo } from './repo-copy.mjs';

const { copy } = copyRepo('fp-verdict-modules-');
after(() => rmSync(copy, { recursive: true, force: true }));
const verdict = () => spawnSync('node', ['tools/folio-perf.mjs', 'verdict', 'cico-20261122T030000Z-x', '--influx', 'http://127.0.0.1:9'], { cwd: copy, encoding: 'utf8', timeout: 60_000 });

test('a renamed check module stops the verdict, naming it', () => {
  renameSync(join(copy, 'tools/verdict/slo.mjs'), join(copy, 'tools/verdict/slo-renamed.mjs'));
  const r = verdict();
  assert.notEqual(r.status, 0, r.stdout);
  assert.match(r.stderr, /slo\.mjs/);
  renameSync(join(copy, 'tools/verdict/slo-renamed.mjs'), join(copy, 'tools/verdict/slo.mjs'));
});

test('a broken check module stops the verdict', () => {
  writeFileSync(join(copy, 'tools/verdict/baseline.mjs'), 'export async function rows( {\n');
  const r = verdict();
  assert.notEqual(r.status, 0, r.stdout);
  assert.match(r.stderr, /SyntaxError/);
});
