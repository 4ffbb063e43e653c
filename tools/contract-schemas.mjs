#!/usr/bin/env node
// Refreshes minifolio/contract/schemas/ from the folio-org module repositories: for each
// endpoint of the CICO sequence and each release, the JSON schema its module publishes (ramls/)
// at the module's release tag, plus every schema it references ($ref, followed transitively). Files under
// ramls/raml-util/ are a git submodule (folio-org/raml): they are read from the raml repository at
// the commit the module's tag pins. Writes minifolio/contract/SOURCES (repo, tag, commit, path
// per file). Needs local clones of the repositories:
//
//   FP_MIRRORS=<dir> node tools/contract-schemas.mjs
//
// where <dir>/folio-org+<repo>/repo is a (bare) clone with tags (default /work/.mirror).
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTRACT_RELEASES } from '../minifolio/contract/endpoints.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const mirrors = process.env.FP_MIRRORS || '/work/.mirror';
const out = join(repo, 'minifolio', 'contract', 'schemas');

function fail(msg, fix) {
  console.error(`contract-schemas: ${msg}. Fix: ${fix}`);
  process.exit(1);
}

function gitDir(name) {
  const d = join(mirrors, `folio-org+${name}`, 'repo');
  if (!existsSync(d)) fail(`no clone of folio-org/${name} at ${d}`, `clone it there (git clone --mirror https://github.com/folio-org/${name} ${d}) or set FP_MIRRORS`);
  return d;
}

function git(dir, ...args) {
  return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
}

// The $ref targets of a schema document (without fragments, local #/... refs skipped).
function refsOf(doc) {
  const refs = [];
  const walk = (v) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === '$ref' && typeof x === 'string' && !x.startsWith('#')) refs.push(x.split('#')[0]);
        else walk(x);
      }
    }
  };
  walk(doc);
  return refs;
}

rmSync(out, { recursive: true, force: true });
const sources = [];
for (const { release, modules } of CONTRACT_RELEASES) for (const m of modules) {
  const dir = gitDir(m.module);
  let commit;
  try {
    commit = git(dir, 'rev-parse', `${m.tag}^{commit}`).trim();
  } catch {
    fail(`folio-org/${m.module} has no tag ${m.tag}`, 'fetch the repository\'s tags or correct the tag in minifolio/contract/endpoints.mjs');
  }
  let utilCommit = null;
  const seen = new Set();
  const queue = m.endpoints.map((e) => e.schema);
  while (queue.length) {
    const path = posix.normalize(queue.shift());
    if (seen.has(path)) continue;
    seen.add(path);
    let text;
    let source;
    if (path.startsWith('ramls/raml-util/')) {
      if (utilCommit === null) {
        const line = git(dir, 'ls-tree', m.tag, 'ramls/raml-util').trim();
        utilCommit = line.split(/\s+/)[2];
        if (!utilCommit) fail(`${m.module} ${m.tag} has no ramls/raml-util submodule`, 'check the tag');
      }
      const inner = path.slice('ramls/raml-util/'.length);
      try {
        text = git(gitDir('raml'), 'show', `${utilCommit}:${inner}`);
      } catch {
        fail(`folio-org/raml has no ${inner} at ${utilCommit}`, 'fetch folio-org/raml');
      }
      source = ['folio-org/raml', `(raml-util of ${m.module} ${m.tag})`, utilCommit, inner];
    } else {
      try {
        text = git(dir, 'show', `${m.tag}:${path}`);
      } catch {
        fail(`folio-org/${m.module} ${m.tag} has no ${path}`, 'correct the schema path in minifolio/contract/endpoints.mjs');
      }
      source = [`folio-org/${m.module}`, m.tag, commit, path];
    }
    let doc;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      fail(`${m.module} ${m.tag}:${path} is not JSON (${e.message})`, 'pick the JSON schema, not the RAML type');
    }
    const file = join(out, release, m.module, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    sources.push(`${release}/${m.module}/${path}\t${source.join('\t')}`);
    for (const r of refsOf(doc)) queue.push(posix.join(posix.dirname(path), r));
  }
}
writeFileSync(
  join(repo, 'minifolio', 'contract', 'SOURCES'),
  `# FOLIO's published JSON schemas of the CICO endpoints per release (${CONTRACT_RELEASES.map((r) => r.release).join(', ')}), written by\n` +
    '# tools/contract-schemas.mjs (do not edit by hand). One line per file under schemas/:\n' +
    '# file<TAB>repository<TAB>tag<TAB>commit<TAB>path in the repository\n' +
    sources.sort().join('\n') +
    '\n',
);
console.log(`contract-schemas: ${sources.length} files for ${CONTRACT_RELEASES.length} releases into ${posix.relative(repo, out) || out}`);
