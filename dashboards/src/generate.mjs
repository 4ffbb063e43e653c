#!/usr/bin/env node
// Writes dashboards/*.json from the dashboard modules (`make dashboards`).
// With --check it writes nothing and exits 1 when a committed file differs
// from what the code generates, naming the stale files.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { render } from './index.mjs';

const outDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');

const stale = [];
for (const [file, text] of render()) {
  const path = join(outDir, file);
  if (check) {
    let current = null;
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      // missing counts as stale
    }
    if (current !== text) stale.push(file);
  } else {
    writeFileSync(path, text);
    console.log(`wrote dashboards/${file}`);
  }
}
if (stale.length > 0) {
  console.error(`stale dashboards: ${stale.join(', ')}; run \`make dashboards\` and commit the result`);
  process.exit(1);
}
