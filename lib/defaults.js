// defaults.env, the one file of folio-perf's defaults (ports, minifolio's tenants and operator,
// local-only passwords): its KEY=VALUE lines, and a lookup where the environment wins. Pure: k6
// reads the file with open() (lib/k6/run.js), Node with fs (tools/defaults.mjs); the shell sources
// it through tools/defaults.sh and docker compose reads it as .env.

export const DEFAULTS_FILE = 'defaults.env';

// What every reader takes alike: no quotes, spaces, $ or backslashes in a value.
const LINE = /^([A-Z][A-Z0-9_]*)=([^\s'"$`\\]*)$/;

/** { KEY: 'value' } of the file's text; a line that is neither KEY=VALUE, a comment nor blank throws. */
export function parseDefaults(text, file = DEFAULTS_FILE) {
  const out = {};
  String(text)
    .split('\n')
    .forEach((raw, i) => {
      const line = raw.replace(/\r$/, '');
      if (line.trim() === '' || line.startsWith('#')) return;
      const m = LINE.exec(line);
      if (!m) throw new Error(`${file}:${i + 1} is not a KEY=VALUE line (no quotes, spaces or $); fix: restore ${file} from the repository`);
      out[m[1]] = m[2];
    });
  return out;
}

/**
 * name -> value: the environment's when set and not empty, else the file's (read once, when first
 * needed: a target file without placeholders never reads it), else undefined.
 */
export function defaultsLookup(env, readFile) {
  let file = null;
  return (name) => {
    if (env[name] !== undefined && env[name] !== '') return String(env[name]);
    if (file === null) file = parseDefaults(readFile(DEFAULTS_FILE));
    return file[name];
  };
}
