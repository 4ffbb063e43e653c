// lib/'s layout: a workflow lives in files named after it (lib/workflows/<name>.js, lib/<name>/,
// lib/k6/<name>.js and lib/k6/<name>-*.js), and the shared core (every other file under lib/)
// imports none of them, so adding or removing a workflow never edits the core. Modules outside
// lib/k6/ are pure: no k6 import, so node's tests load them as they are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const lib = join(repo, 'lib');

function jsFiles(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(...jsFiles(join(dir, e.name)));
    else if (e.name.endsWith('.js')) out.push(join(dir, e.name));
  }
  return out;
}

// Every module specifier a file imports statically, re-exports, or loads with require().
export function specifiers(text) {
  const out = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm)) out.push(m[1]);
  for (const m of text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) out.push(m[1]);
  for (const m of text.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1]);
  return out;
}

export const workflowNames = () =>
  readdirSync(join(lib, 'workflows'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => f.slice(0, -3));

// The workflow a file under lib/ belongs to, or null for the shared core.
export function ownerOf(rel, names) {
  const [top, second] = rel.split('/');
  if (top === 'workflows') return second.slice(0, -3);
  if (names.includes(top)) return top;
  if (top === 'k6') return names.find((n) => second === `${n}.js` || second.startsWith(`${n}-`)) || null;
  return null;
}

test('lib/workflows/ holds only descriptors, and each workflow has its own folder', () => {
  const names = workflowNames();
  assert.ok(names.length >= 2, `workflows: ${names}`);
  for (const n of names) assert.ok(readdirSync(join(lib, n)).some((f) => f.endsWith('.js')), `lib/${n}/ holds the ${n} workflow's pure modules`);
});

test('the shared core imports no workflow, and no workflow imports another', () => {
  const names = workflowNames();
  const bad = [];
  for (const file of jsFiles(lib)) {
    const rel = relative(lib, file);
    const owner = ownerOf(rel, names);
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = relative(lib, resolve(dirname(file), spec));
      if (target.startsWith('..')) continue;
      const of = ownerOf(target, names);
      if (of !== null && of !== owner) bad.push(`lib/${rel} imports lib/${target} (workflow ${of})`);
    }
  }
  assert.deepEqual(bad, [], `move what both need to the shared core:\n${bad.join('\n')}`);
});

test('modules outside lib/k6/ are pure: no k6 import', () => {
  const bad = [];
  for (const file of jsFiles(lib)) {
    const rel = relative(lib, file);
    if (rel.startsWith('k6/')) continue;
    for (const spec of specifiers(readFileSync(file, 'utf8'))) if (spec === 'k6' || spec.startsWith('k6/')) bad.push(`lib/${rel} imports ${spec}`);
  }
  assert.deepEqual(bad, [], `k6 adapters belong in lib/k6/:\n${bad.join('\n')}`);
});

test('the checks see a violation', () => {
  const names = ['cico', 'search'];
  assert.equal(ownerOf('summary.js', names), null);
  assert.equal(ownerOf('k6/run.js', names), null);
  assert.equal(ownerOf('k6/cico-data.js', names), 'cico');
  assert.equal(ownerOf('search/templates.js', names), 'search');
  assert.equal(ownerOf('workflows/search.js', names), 'search');
  assert.deepEqual(specifiers("import { a } from '../cico/api.js';\nexport { b } from './x.js';\nconst r = require('../search/summary.js');\nimport http from 'k6/http';"), ['../cico/api.js', './x.js', 'k6/http', '../search/summary.js']);
});
