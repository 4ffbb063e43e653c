#!/usr/bin/env node
// Writes the mod-search workflow's query files (PTF's CSV shapes, one value per row) from the
// wamerican word list, deterministically: the same list, rows and seed give the same bytes.
//   node tools/search-data.mjs [--out data/search] [--rows 1000] [--seed N] [--words FILE]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { WORDLIST, DEFAULT_ROWS, DEFAULT_SEED, vocabulary, generateFiles } from '../lib/search/data.js';

function die(cause, fix) {
  console.error(`folio-perf: search-data: ${cause}; fix: ${fix}`);
  process.exit(2);
}

let args;
try {
  const options = { out: { type: 'string', default: 'data/search' }, rows: { type: 'string', default: String(DEFAULT_ROWS) }, seed: { type: 'string', default: String(DEFAULT_SEED) }, words: { type: 'string', default: WORDLIST } };
  args = parseArgs({ options, strict: true }).values;
} catch (e) {
  die(String(e.message).split('\n')[0].replace(/\. To specify a positional argument.*$/, ''), 'use --out DIR --rows N --seed N --words FILE');
}
const rows = Number(args.rows);
const seed = Number(args.seed);
if (!Number.isInteger(rows) || rows < 1 || rows > 1000000) die(`--rows ${args.rows} is not a count`, 'use 1..1000000');
if (!Number.isInteger(seed) || seed < 0) die(`--seed ${args.seed} is not a seed`, 'use a non-negative integer');
let text;
try {
  text = readFileSync(args.words, 'utf8');
} catch (e) {
  die(`the word list ${args.words} cannot be read (${e.code || e.message})`, 'install the Debian package wamerican (make deps), or pass --words FILE');
}
let files;
try {
  files = generateFiles(vocabulary(text), { rows, seed });
} catch (e) {
  die(e.message.replace(/; fix: .*/, ''), e.message.replace(/.*; fix: /, ''));
}
mkdirSync(args.out, { recursive: true });
for (const [name, body] of files) writeFileSync(join(args.out, name), body);
console.log(`==> search-data: ${files.size} files x ${rows} rows in ${args.out} (seed ${seed}, words ${args.words})`);
