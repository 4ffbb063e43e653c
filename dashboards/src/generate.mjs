#!/usr/bin/env node
// Writes dashboards/generated/*.json from the dashboard modules (`make dashboards`).
// With --check it writes nothing and exits 1 when a committed file differs
// from what the code generates, naming the stale files.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { render, OUT_DIR } from './index.mjs';

const outDir = join(dirname(fileURLToPath(import.meta.url)), '..', OUT_DIR);
const check = process.argv.includes('--check');

const stale = [];
let files;
try {
  files = await render();
} catch (e) {
  console.error(`folio-perf: ${e.message}`);
  process.exit(1);
}
for (const [file, text] of files) {
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
    console.log(`wrote dashboards/${OUT_DIR}/${file}`);
  }
}
// A dashboard no module writes any more (e.g. of a removed workflow).
for (const file of readdirSync(outDir).filter((f) => f.endsWith('.json') && !files.has(f))) {
  if (check) stale.push(file);
  else rmSync(join(outDir, file));
}
if (stale.length > 0) {
  console.error(`stale dashboards: ${stale.join(', ')}; run \`make dashboards\` and commit the result`);
  process.exit(1);
}
