// The committed dashboards/generated/*.json must be exactly what the generator writes,
// and the generator must be deterministic (stable uids, ids and layout).
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dashboards', 'generated');

// The generator needs the foundation SDK (dashboards/node_modules, installed by
// `make dashboards-deps`); say so instead of a module-not-found trace.
async function loadGenerator() {
  try {
    return await import('../../dashboards/src/index.mjs');
  } catch (err) {
    if (err.code === 'ERR_MODULE_NOT_FOUND') {
      assert.fail(`dashboard generator dependencies missing (${err.message.split('\n')[0]}); run \`make dashboards-deps\``);
    }
    throw err;
  }
}

test('committed dashboards are up to date with the generator', async () => {
  const { render } = await loadGenerator();
  const files = await render();
  const stale = [...files].filter(([file, text]) => {
    try {
      return readFileSync(join(dir, file), 'utf8') !== text;
    } catch {
      return true;
    }
  });
  assert.deepEqual(stale.map(([f]) => f), [], 'stale dashboards: run `make dashboards` and commit the result');
  // Nothing generated-looking lies around that the generator no longer writes.
  const onDisk = readdirSync(dir).filter((f) => f.endsWith('.json'));
  assert.deepEqual(onDisk.sort(), [...files.keys()].sort());
});

test('generation is deterministic', async () => {
  const { render } = await loadGenerator();
  assert.deepEqual([...(await render())], [...(await render())]);
});
