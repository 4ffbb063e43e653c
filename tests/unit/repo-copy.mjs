// A scratch copy of the repository's code (tracked and new files, not node_modules), for tests
// that change the code itself: add a workflow, rename or break a module. The dashboard generator's
// packages are linked, not copied.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CODE = /^(lib|scripts|tools|env|dashboards\/src|dashboards\/generated|k8s\/base)\/|^(thresholds\.json|package\.json|defaults\.env|dashboards\/package\.json)$/;

/** Copies the code into a new temporary directory; returns it and the files copied. */
export function copyRepo(prefix) {
  const copy = mkdtempSync(join(tmpdir(), prefix));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repo, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f && CODE.test(f) && !f.includes('node_modules/') && existsSync(join(repo, f)));
  for (const f of files) {
    mkdirSync(dirname(join(copy, f)), { recursive: true });
    cpSync(join(repo, f), join(copy, f));
  }
  if (existsSync(join(repo, 'dashboards', 'node_modules'))) symlinkSync(join(repo, 'dashboards', 'node_modules'), join(copy, 'dashboards', 'node_modules'));
  return { copy, files };
}
