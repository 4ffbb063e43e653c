// Licences (LICENSE, NOTICE): folio-perf is Apache-2.0, k6 is AGPL-3.0. A binary that links
// go.k6.io/k6 is AGPL-3.0, so only the k6 build (k6/) may import it: a Go file elsewhere that imports
// it, or another go.mod that requires it (directly or as an indirect dependency), would put that
// part of folio-perf under the AGPL too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// The one directory whose Go may link k6.
const K6_DIR = 'k6/';
// An import of k6 or any of its packages: `import "go.k6.io/k6/js/modules"`, a line of an import
// block, with or without a name (`k6lib "go.k6.io/k6/lib"`, `_ "go.k6.io/k6/..."`).
const GO_IMPORT = /^\s*(?:import\s+)?(?:[\w.]+\s+)?"go\.k6\.io\/k6(?:\/[^"]*)?"/m;
// A require of the k6 module in a go.mod, in a require block or on its own line.
const GO_MOD_REQUIRE = /^\s*(?:require\s+)?go\.k6\.io\/k6\s+v/m;

export function k6Importers(files, read) {
  return files.filter((f) => {
    if (f.startsWith(K6_DIR)) return false;
    if (f.endsWith('.go')) return GO_IMPORT.test(read(f));
    if (f === 'go.mod' || f.endsWith('/go.mod')) return GO_MOD_REQUIRE.test(read(f));
    return false;
  });
}

const tracked = () => execFileSync('git', ['ls-files', '*.go', '*go.mod'], { cwd: repo, encoding: 'utf8' }).split('\n').filter(Boolean);
const readRepo = (f) => readFileSync(join(repo, f), 'utf8');

test('the rule catches each way of linking k6 outside k6/', () => {
  const files = {
    'minifolio/a.go': 'package a\n\nimport "go.k6.io/k6/js/modules"\n',
    'minifolio/b.go': 'package b\n\nimport (\n\t"fmt"\n\tk6lib "go.k6.io/k6/lib"\n)\n',
    'tools/c/go.mod': 'module c\n\nrequire (\n\tgo.k6.io/k6 v1.8.1 // indirect\n)\n',
    'tools/d/go.mod': 'module d\n\nrequire go.k6.io/k6 v1.8.1\n',
    // Not linking: k6/ itself, a string that only names k6, another module with a k6 prefix.
    'k6/main.go': 'package main\n\nimport "go.k6.io/k6/cmd"\n',
    'minifolio/e.go': 'package e\n\nconst url = "https://go.k6.io/k6 is AGPL"\n',
    'minifolio/go.mod': 'module m\n\nrequire go.k6.io/k6x v1.0.0\n',
  };
  assert.deepEqual(k6Importers(Object.keys(files), (f) => files[f]), ['minifolio/a.go', 'minifolio/b.go', 'tools/c/go.mod', 'tools/d/go.mod']);
});

test('only k6/ imports go.k6.io/k6', () => {
  const files = tracked();
  assert.deepEqual(k6Importers(files, readRepo), [], 'linking k6 makes that part AGPL-3.0: keep it in k6/ (NOTICE)');
  // The rule has something to hold: the k6 build does require k6.
  assert.match(readRepo('k6/go.mod'), GO_MOD_REQUIRE);
});

test('LICENSE is Apache-2.0, and NOTICE says the k6 binary built by k6/ is AGPL-3.0', () => {
  assert.match(readRepo('LICENSE'), /^\s+Apache License\n\s+Version 2\.0, January 2004\n/);
  assert.equal(JSON.parse(readRepo('package.json')).license, 'Apache-2.0');
  const notice = readRepo('NOTICE').replace(/\s+/g, ' ');
  assert.match(notice, /Apache License, Version 2\.0/);
  assert.match(notice, /k6\/ builds bin\/k6.*AGPL-3\.0/);
  assert.match(notice, /tools\/jmeter\/ptf\/.*folio-org\/perf-testing/);
});
