// `make lint` (docs/lint.md): a finding is fixed, or silenced where it stands with the reason beside
// it. A directive that silences shellcheck, ESLint or staticcheck without saying why is refused here.
// The directives below are assembled from parts so this file does not match itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

// Each directive, and what must follow it on its line: a reason.
const RULES = [
  // shellcheck: `# shellcheck disable=SC2086 # why` (source= and shell= directives need no reason).
  { kind: 'shellcheck', directive: /#\s*shellcheck\s+disable=[\w,]+(.*)$/, reason: /^\s*#\s*\S/ },
  // ESLint: `// eslint-disable-next-line rule -- why` (ESLint's own syntax for the reason).
  { kind: 'eslint', directive: new RegExp('eslint' + '-disable(?:-next-line|-line)?\\b(.*)$'), reason: /\s--\s*\S/ },
  // staticcheck: `//lint:ignore CHECK why`, and golangci-lint's `//nolint:x // why` should it come.
  { kind: 'staticcheck', directive: /\/\/lint:(?:file-)?ignore\s+\S+(.*)$/, reason: /^\s+\S/ },
  { kind: 'nolint', directive: /\/\/nolint\b\S*(.*)$/, reason: /^\s*\/\/\s*\S/ },
];

export function unexplained(files, read) {
  const found = [];
  for (const f of files) {
    read(f)
      .split('\n')
      .forEach((line, i) => {
        for (const { kind, directive, reason } of RULES) {
          const m = directive.exec(line);
          if (m && !reason.test(m[1])) found.push(`${f}:${i + 1}: ${kind}: ${line.trim()}`);
        }
      });
  }
  return found;
}

const SC = '# shell' + 'check disable=SC2086';
const ES = '// eslint' + '-disable-next-line no-console';
const ST = '//lint' + ':ignore ST1005';
const NL = '//no' + 'lint:errcheck';

test('the rule catches a directive without a reason, and passes one with', () => {
  const bad = { 'a.sh': `${SC}\nset -- $x\n`, 'b.mjs': `${ES}\nconsole.log(1);\n`, 'c.go': `\t${ST}\n`, 'd.go': `\tf() ${NL}\n` };
  assert.deepEqual(
    unexplained(Object.keys(bad), (f) => bad[f]).map((x) => x.split(':')[0]),
    ['a.sh', 'b.mjs', 'c.go', 'd.go'],
  );
  const good = {
    'a.sh': `${SC} # split into fields on purpose\n# shell` + 'check source=tools/defaults.sh\n',
    'b.mjs': `${ES} -- the CLI prints its result\n`,
    'c.go': `\t${ST} FOLIO's message, byte for byte\n`,
    'd.go': `\tf() ${NL} // closing a read-only file\n`,
  };
  assert.deepEqual(unexplained(Object.keys(good), (f) => good[f]), []);
});

test('every lint directive in the repository says why', () => {
  const files = execFileSync('git', ['ls-files', '*.sh', '*.js', '*.mjs', '*.go', '*.mk', 'Makefile', '.ci/run'], { cwd: repo, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
  assert.ok(files.length > 100, `${files.length} files listed`);
  assert.deepEqual(unexplained(files, (f) => readFileSync(join(repo, f), 'utf8')), []);
});
