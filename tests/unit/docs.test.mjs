// The documentation stays readable and connected: README.md is short enough to read in ten minutes
// (details live in docs/), every relative Markdown link and anchor in README.md, docs/*.md and the
// per-directory READMEs leads somewhere, and no line of README.md or docs/ is wider than 120
// characters. Anchors are GitHub's heading ids, since that is where the files are read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const README_MAX_LINES = 250;
export const MAX_LINE = 120;

// Lines outside fenced code blocks, each with its 1-based line number.
function outsideFences(text) {
  const out = [];
  let fence = null;
  text.split('\n').forEach((line, i) => {
    const m = line.match(/^\s{0,3}(`{3,}|~{3,})/);
    if (fence) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length) fence = null;
    } else if (m) {
      fence = m[1];
    } else {
      out.push({ n: i + 1, line });
    }
  });
  return out;
}

// The same, with inline code spans blanked: a link inside backticks is text, not a link.
export function proseLines(text) {
  return outsideFences(text).map(({ n, line }) => ({ n, line: line.replace(/(`+)(?:(?!\1).)+?\1/g, (s) => ' '.repeat(s.length)) }));
}

// GitHub's heading id: the heading's text without markup, lower-cased, punctuation dropped except
// '-' and '_', each space a '-'; a repeated id gets -1, -2, ...
export function slug(heading) {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

export function anchors(text) {
  const seen = new Map();
  const ids = new Set();
  for (const { line } of outsideFences(text)) {
    for (const a of line.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) ids.add(a[1]);
    const h = line.match(/^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/);
    if (!h) continue;
    const base = slug(h[1]);
    const k = seen.get(base) ?? 0;
    seen.set(base, k + 1);
    ids.add(k === 0 ? base : `${base}-${k}`);
  }
  return ids;
}

// Every link target of a Markdown text: inline [text](target) and reference definitions
// [ref]: target; and [text][ref] uses whose ref is not defined.
export function links(text) {
  const found = [];
  const defs = new Set();
  const lines = proseLines(text);
  for (const { n, line } of lines) {
    const d = line.match(/^\s{0,3}\[([^\]]+)\]:\s*<?([^\s>]+)>?/);
    if (d) {
      defs.add(d[1].toLowerCase());
      found.push({ n, target: d[2] });
      continue;
    }
    for (const m of line.matchAll(/\]\(\s*<?([^\s)>]*)>?(?:\s+"[^"]*")?\s*\)/g)) found.push({ n, target: m[1] });
  }
  for (const { n, line } of lines) {
    for (const m of line.matchAll(/\[[^\]]+\]\[([^\]]+)\]/g)) {
      if (!defs.has(m[1].toLowerCase())) found.push({ n, undefinedRef: m[1] });
    }
  }
  return found;
}

// Problems of one file's links: a relative target that does not exist, an anchor that is no
// heading of the target, a reference that is not defined. read(path) returns the text of a path
// relative to the repository, or null when there is no such file.
export function brokenLinks(file, read, isDir = () => false) {
  const problems = [];
  const text = read(file);
  for (const l of links(text)) {
    if (l.undefinedRef) {
      problems.push(`${file}:${l.n}: [${l.undefinedRef}] is used but not defined`);
      continue;
    }
    const t = l.target;
    if (t === '' || /^[a-z][a-z0-9+.-]*:/i.test(t)) continue; // external (https:, mailto:)
    const hash = t.indexOf('#');
    const path = hash < 0 ? t : t.slice(0, hash);
    const anchor = hash < 0 ? null : decodeURIComponent(t.slice(hash + 1));
    const target = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
    if (target.startsWith('..')) {
      problems.push(`${file}:${l.n}: ${t} leaves the repository`);
      continue;
    }
    if (isDir(target)) {
      if (anchor !== null) problems.push(`${file}:${l.n}: ${t}: an anchor on a directory`);
      continue;
    }
    const body = read(target);
    if (body === null) {
      problems.push(`${file}:${l.n}: ${t}: no file ${target}`);
      continue;
    }
    if (anchor === null) continue;
    if (!target.endsWith('.md')) {
      if (!/^L\d+(-L\d+)?$/.test(anchor)) problems.push(`${file}:${l.n}: ${t}: anchor on a file that has no headings`);
      continue;
    }
    if (!anchors(body).has(anchor)) problems.push(`${file}:${l.n}: ${t}: no heading #${anchor} in ${target}`);
  }
  return problems;
}

export function longLines(file, text, max = MAX_LINE) {
  const out = [];
  text.split('\n').forEach((line, i) => {
    const len = [...line].length;
    if (len > max) out.push(`${file}:${i + 1}: ${len} characters`);
  });
  return out;
}

function tracked() {
  return execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repo, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f && !f.includes('node_modules/') && existsSync(join(repo, f)));
}

const readRepo = (f) => {
  try {
    return readFileSync(join(repo, f), 'utf8');
  } catch {
    return null;
  }
};
const isRepoDir = (f) => {
  try {
    return statSync(join(repo, f)).isDirectory();
  } catch {
    return false;
  }
};

test('the rules catch a broken link, a missing anchor, an undefined reference and a long line', () => {
  const files = {
    'README.md': [
      '# Top',
      '## A run (`make run`)',
      'See [settings](docs/settings.md#load), [gone](docs/gone.md), [anchor](docs/settings.md#nope),',
      '[same](#a-run-make-run), [bad same](#nowhere), [web](https://example.org/x#y), [ref][r], [undef][u].',
      '`[in code](docs/gone.md)` is not a link.',
      '```',
      '[in a fence](docs/gone.md)',
      '```',
      '[r]: docs/settings.md',
      '[dir](docs), [up](../outside.md)',
    ].join('\n'),
    'docs/settings.md': '# Settings\n\n## Load\n\n## Load\n\n[back](../README.md#top) [dup](#load-1)',
  };
  const read = (f) => files[f] ?? null;
  const isDir = (f) => f === 'docs';
  assert.deepEqual(brokenLinks('README.md', read, isDir), [
    'README.md:3: docs/gone.md: no file docs/gone.md',
    'README.md:3: docs/settings.md#nope: no heading #nope in docs/settings.md',
    'README.md:4: #nowhere: no heading #nowhere in README.md',
    'README.md:10: ../outside.md leaves the repository',
    'README.md:4: [u] is used but not defined',
  ]);
  assert.deepEqual(brokenLinks('docs/settings.md', read, isDir), []);
  assert.deepEqual(longLines('x.md', `ok\n${'é'.repeat(120)}\n${'a'.repeat(121)}`), ['x.md:3: 121 characters']);
});

test('GitHub heading ids', () => {
  assert.equal(slug('Release profiles (`minifolio/profiles/*.json`, `up --profile`)'),
    'release-profiles-minifolioprofilesjson-up---profile');
  assert.equal(slug('`regression`: the coarse in-run rule (`BASELINE=`)'), 'regression-the-coarse-in-run-rule-baseline');
  assert.equal(slug('Check-in/check-out'), 'check-incheck-out');
  assert.equal(slug('See [the docs](docs/x.md) **now**'), 'see-the-docs-now');
});

test(`README.md has at most ${README_MAX_LINES} lines`, () => {
  const lines = readRepo('README.md').replace(/\n$/, '').split('\n').length;
  assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines; move details to docs/*.md`);
});

test('every relative link and anchor of README.md, docs/*.md and the per-directory READMEs resolves', () => {
  const files = tracked().filter((f) => f === 'README.md' || /^docs\/[^/]+\.md$/.test(f) || /(^|\/)README\.md$/.test(f));
  assert.ok(files.includes('README.md') && files.includes('lib/README.md'), `found only ${files.join(', ')}`);
  assert.ok(files.some((f) => f.startsWith('docs/')), 'no docs/*.md found');
  const problems = files.flatMap((f) => brokenLinks(f, readRepo, isRepoDir));
  assert.deepEqual(problems, [], problems.join('\n'));
});

test(`no line of README.md or docs/ is over ${MAX_LINE} characters`, () => {
  const files = tracked().filter((f) => f === 'README.md' || f.startsWith('docs/'));
  const problems = files.flatMap((f) => longLines(relative(repo, join(repo, f)), readRepo(f) ?? ''));
  assert.deepEqual(problems, [], `wrap these lines:\n${problems.join('\n')}`);
});
