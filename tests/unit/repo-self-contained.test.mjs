// The repository stands on its own: no tracked file may send the reader to a
// document that is not in it (the team's internal design and reference notes,
// or tracker issue numbers). Facts the code relies on are written here, with
// their folio-org sources. The names are assembled so this file does not match.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const md = (n) => new RegExp(`\\b${n}\\.md\\b`);
const FORBIDDEN = [
  md('folio-api'), md('DESIGN'), md('STYLE'), md('release-reports'), md('mod-search-report'), md('k6-ecosystem'),
  new RegExp('DESIGN' + ' §'),
  new RegExp('\\b' + 'reference' + '/[\\w.-]+\\.md'),
  new RegExp('\\b[Ii]ssue' + ' #?\\d+'),
  new RegExp('§' + '\\d'),
];
const TEXT = /\.(js|mjs|go|md|sh|mk|json|ya?ml|conf|txt|html)$|(^|\/)Makefile$/;

export function offenders(files, read) {
  const found = [];
  for (const f of files) {
    read(f).split('\n').forEach((line, i) => {
      if (FORBIDDEN.some((re) => re.test(line))) found.push(`${f}:${i + 1}: ${line.trim()}`);
    });
  }
  return found;
}

test('the rule catches each kind of citation', () => {
  const cites = ['see ' + 'folio-api' + '.md', 'DESIGN' + ' §' + '4', '(' + 'issue' + ' 3)', 'Orchid ' + '§' + '2.2', 'reference' + '/k6-eco' + 'system.md'];
  const hits = offenders(['x.md'], () => cites.join('\n'));
  assert.equal(hits.length, cites.length, hits.join('\n'));
  assert.deepEqual(offenders(['y.js'], () => 'mod-circulation : ramls/loan.json; the issue with retries'), []);
});

test('no tracked file cites a document outside the repository', () => {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: repo, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f && TEXT.test(f) && !f.includes('node_modules/'));
  assert.ok(files.length > 50, `git ls-files listed only ${files.length} files`);
  const found = offenders(files, (f) => {
    try {
      return readFileSync(join(repo, f), 'utf8');
    } catch {
      return ''; // deleted in the work tree, not yet committed
    }
  });
  assert.deepEqual(found, [], `cite the fact and its folio-org source instead:\n${found.join('\n')}`);
});
