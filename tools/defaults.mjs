// folio-perf's defaults for Node: a value of defaults.env (lib/defaults.js parses it), the
// environment's when set. The shell's twin is tools/defaults.sh.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultsLookup } from '../lib/defaults.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Reads a file relative to the repository (defaults.env), for defaultsLookup. */
export const readRepoFile = (f) => readFileSync(join(REPO, f), 'utf8');

const lookup = defaultsLookup(process.env, readRepoFile);

/** A setting of defaults.env (e.g. FP_MINIFOLIO_PORT), the environment's value when set. */
export function setting(name) {
  const v = lookup(name);
  if (v === undefined) throw new Error(`defaults.env has no ${name}; fix: restore defaults.env from the repository`);
  return v;
}

/** name -> value or undefined, for lib/config.js's parseEnvFile. */
export { lookup as defaultsFor };
