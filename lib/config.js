// Target configuration: env/<FOLIO_ENV>.json merged with environment overrides, validated before any
// load is generated. Pure: k6 reads the file with open() in init context (lib/k6/run.js, scripts/smoke.js) and
// hands the text here, so Node's test runner checks every message without k6.

import { isLoopbackHost, LOCAL_ONLY_FIX } from './loopback.js';
import { durationMs } from './profiles.js';

export class ConfigError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ConfigError';
  }
}

// Environment variables a user may set; docs/settings.md lists the same names.
export const ENV_OVERRIDES = {
  FOLIO_URL: 'folio.url',
  FOLIO_TENANT: 'folio.tenant',
  FOLIO_USER: 'folio.user',
  FOLIO_DB_HOST: 'db.host',
  FOLIO_DB_PORT: 'db.port',
  FOLIO_DB_NAME: 'db.name',
  FOLIO_DB_USER: 'db.user',
  FOLIO_DB_SSLMODE: 'db.sslmode',
  DATA: 'data',
  CHECKIN_POOL: 'checkinPool',
  CHECKIN_WINDOW: 'checkinWindow',
  RELEASE: 'release',
};

// Secrets: accepted only from the environment, and never echoed in a message.
const SECRET_FIELDS = ['password', 'pass', 'secret', 'token'];

const ENV_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
// FOLIO tenant ids become PostgreSQL schema names (<tenant>_mod_users), so only what RMB allows.
const TENANT = /^[a-z][a-z0-9_]{0,62}$/;
const SSLMODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];
const RELEASE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function fail(field, problem, fix) {
  throw new ConfigError(`config: ${field} ${problem}; fix: ${fix}`);
}

// The setting that names the target's env file. FOLIO_ENV is folio-perf's own; K6_ENV, its old
// name, lies in k6's own K6_* option namespace (K6_OUT, K6_VUS, ...), where a future k6 option of
// that name would take it over: it is still read, with a warning.
export const TARGET_ENV = 'FOLIO_ENV';
export const OLD_TARGET_ENV = 'K6_ENV';

const isSet = (v) => v !== undefined && v !== '';

/**
 * The env name the environment asks for: { name (undefined: the default), warning (a line to print,
 * or null) }. FOLIO_ENV wins; K6_ENV alone is taken with a warning; both, differing, is refused.
 */
export function targetEnvName(env) {
  const now = env[TARGET_ENV];
  const old = env[OLD_TARGET_ENV];
  if (isSet(now) && isSet(old) && now !== old) {
    fail(OLD_TARGET_ENV, `"${old}" disagrees with ${TARGET_ENV} "${now}"`, `unset ${OLD_TARGET_ENV} (its new name is ${TARGET_ENV})`);
  }
  if (isSet(now)) return { name: String(now), warning: null };
  if (isSet(old)) {
    return { name: String(old), warning: `${OLD_TARGET_ENV} is the old name of ${TARGET_ENV} (K6_* names are k6's own options); fix: use ${TARGET_ENV}=${old}` };
  }
  return { name: undefined, warning: null };
}

// The file name for an environment, validated so FOLIO_ENV cannot walk out of env/.
export function envFileName(envName) {
  const name = envName === undefined || envName === '' ? 'local' : String(envName);
  if (!ENV_NAME.test(name)) {
    fail(TARGET_ENV, `"${name}" is not an environment name`, `use the base name of a file in env/, e.g. ${TARGET_ENV}=local`);
  }
  return { name, file: `env/${name}.json` };
}

/** envFileName of what env asks for (targetEnvName), with its warning: { name, file, warning }. */
export function envFileOf(env) {
  const { name, warning } = targetEnvName(env);
  return { ...envFileName(name), warning };
}

/**
 * The env file's object. A string value may name defaults: ${FP_MINIFOLIO_PORT} is replaced by
 * lookup('FP_MINIFOLIO_PORT'), the environment's value or defaults.env's (lib/defaults.js), so
 * env/local.json follows the native stack's ports and tenant from the one file that sets them.
 */
export function parseEnvFile(text, file, lookup = () => undefined) {
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    fail(file, `is not valid JSON (${e.message})`, `correct the JSON syntax in ${file}`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    fail(file, 'must hold a JSON object', `start from env/folio.example.json`);
  }
  return expand(doc, file, '', lookup);
}

const PLACEHOLDER = /\$\{([A-Z][A-Z0-9_]*)\}/g;

function expand(v, file, path, lookup) {
  if (typeof v === 'string') {
    return v.replace(PLACEHOLDER, (_, name) => {
      const value = lookup(name);
      if (value === undefined) fail(`${path} in ${file}`, `names \${${name}}, which neither the environment nor defaults.env sets`, `set ${name} or correct ${path}`);
      return value;
    });
  }
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const out = {};
    // "$comment" and the like are notes for the reader, never expanded.
    for (const [k, x] of Object.entries(v)) out[k] = k.startsWith('$') ? x : expand(x, file, path ? `${path}.${k}` : k, lookup);
    return out;
  }
  return v;
}

function findSecret(obj, path) {
  for (const [k, v] of Object.entries(obj)) {
    const p = path ? `${path}.${k}` : k;
    if (SECRET_FIELDS.some((s) => k.toLowerCase().includes(s))) return p;
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const found = findSecret(v, p);
      if (found) return found;
    }
  }
  return null;
}


// Where a value came from, so the message tells the user what to edit.
function origin(envVar, file, path, env) {
  return env[envVar] !== undefined && env[envVar] !== '' ? envVar : `${path} in ${file}`;
}

function nonEmpty(v) {
  return typeof v === 'string' && v.trim() !== '';
}

/**
 * Resolves and validates the configuration.
 * @param {object} doc parsed env/<name>.json
 * @param {object} env environment (k6 __ENV or process.env)
 * @param {{name: string, file: string}} where which file doc came from
 * @param {{needDb?: boolean, noData?: boolean}} opts needDb: require the database settings even
 *   with CSV data; noData: the script loads no test data (smoke), so DATA and db are not checked
 */
export function resolveConfig(doc, env, where, opts = {}) {
  const file = where.file;
  const secret = findSecret(doc, '');
  if (secret) {
    fail(file, `holds a secret field "${secret}"`, `remove it; passwords come only from FOLIO_PASSWORD / FOLIO_DB_PASSWORD`);
  }
  const merged = JSON.parse(JSON.stringify(doc));
  merged.folio = merged.folio || {};
  merged.db = merged.db || {};
  for (const [envVar, path] of Object.entries(ENV_OVERRIDES)) {
    const v = env[envVar];
    if (v === undefined || v === '') continue;
    const [a, b] = path.split('.');
    if (b) merged[a][b] = v;
    else merged[a] = v;
  }
  const src = (envVar, path) => origin(envVar, file, path, env);

  const url = merged.folio.url;
  if (!nonEmpty(url)) fail(src('FOLIO_URL', 'folio.url'), 'is missing', 'set FOLIO_URL or folio.url to the Okapi URL, e.g. http://127.0.0.1:9130');
  const m = /^(https?):\/\/([^/\s?#]+)(\/[^\s?#]*)?$/.exec(url.trim());
  if (!m) fail(src('FOLIO_URL', 'folio.url'), `"${url}" is not an http(s) URL`, 'use the form http://host:port[/path], e.g. http://127.0.0.1:9130');
  const folioUrl = url.trim().replace(/\/+$/, '');
  const localOnly = env.FP_LOCAL_ONLY === '1';
  if (localOnly && !isLoopbackHost(m[2])) fail(src('FOLIO_URL', 'folio.url'), `"${folioUrl}" is not on this machine`, LOCAL_ONLY_FIX);
  // The database too (k6/x/sql connects to it in setup), whether or not this run reads it.
  if (localOnly && nonEmpty(merged.db.host) && !isLoopbackHost(merged.db.host)) {
    fail(src('FOLIO_DB_HOST', 'db.host'), `"${merged.db.host}" is not on this machine`, LOCAL_ONLY_FIX);
  }

  const tenant = merged.folio.tenant;
  if (!nonEmpty(tenant)) fail(src('FOLIO_TENANT', 'folio.tenant'), 'is missing', 'set FOLIO_TENANT or folio.tenant, e.g. fs09000000');
  if (!TENANT.test(tenant)) fail(src('FOLIO_TENANT', 'folio.tenant'), `"${tenant}" is not a FOLIO tenant id`, 'use lower-case letters, digits and _ starting with a letter, e.g. fs09000000');

  const user = merged.folio.user;
  if (!nonEmpty(user)) fail(src('FOLIO_USER', 'folio.user'), 'is missing', 'set FOLIO_USER or folio.user to the operator username');

  const password = env.FOLIO_PASSWORD;
  if (!nonEmpty(password)) fail('FOLIO_PASSWORD', 'is not set', 'export FOLIO_PASSWORD=<password of the FOLIO operator user> (secrets are read only from the environment)');

  const data = merged.data === undefined ? 'db' : merged.data;
  let dataSource;
  if (opts.noData) dataSource = { kind: 'none' };
  else if (data === 'db') dataSource = { kind: 'db' };
  else if (typeof data === 'string' && data.startsWith('csv:') && data.length > 4) dataSource = { kind: 'csv', dir: data.slice(4).replace(/\/+$/, '') };
  else fail(src('DATA', 'data'), `"${data}" is not a data source`, 'use DATA=db (FOLIO database via k6/x/sql) or DATA=csv:<dir> (available.csv, checked_out.csv, user_barcodes.csv)');

  // Which open loans DATA=db may check in: "own" (default) only those folio-perf made, so a run
  // against a shared FOLIO never returns real patrons' items: made by the operator account, at the
  // run's service point, within CHECKIN_WINDOW (default 24h: what an earlier run left, as its
  // teardown checks in the rest) before the run (lib/cico/data.js poolQueries.checkedOutItems);
  // "any" is PTF's behaviour (every open loan), for a performance environment whose loans are all
  // test data.
  const checkinPool = merged.checkinPool === undefined ? 'own' : String(merged.checkinPool);
  if (checkinPool !== 'own' && checkinPool !== 'any') {
    fail(src('CHECKIN_POOL', 'checkinPool'), `"${checkinPool}" is not a check-in pool`, 'use CHECKIN_POOL=own (loans the operator made at the run\'s service point within CHECKIN_WINDOW) or CHECKIN_POOL=any (every open loan, as PTF)');
  }
  const windowText = merged.checkinWindow === undefined ? '24h' : String(merged.checkinWindow);
  const checkinWindowMs = durationMs(windowText);
  if (checkinWindowMs === null || checkinWindowMs <= 0) {
    fail(src('CHECKIN_WINDOW', 'checkinWindow'), `"${windowText}" is not a duration`, 'use e.g. CHECKIN_WINDOW=24h or 720h (how far back CHECKIN_POOL=own takes the operator\'s open loans)');
  }

  let db = null;
  if ((dataSource.kind === 'db' && !opts.noData) || opts.needDb) {
    const host = merged.db.host;
    if (!nonEmpty(host)) fail(src('FOLIO_DB_HOST', 'db.host'), 'is missing', 'set FOLIO_DB_HOST or db.host, or use DATA=csv:<dir>');
    const portRaw = merged.db.port === undefined ? 5432 : merged.db.port;
    const port = Number(portRaw);
    if (!Number.isInteger(port) || port < 1 || port > 65535) fail(src('FOLIO_DB_PORT', 'db.port'), `"${portRaw}" is not a TCP port`, 'use a number between 1 and 65535, e.g. 5432');
    const name = merged.db.name;
    if (!nonEmpty(name)) fail(src('FOLIO_DB_NAME', 'db.name'), 'is missing', 'set FOLIO_DB_NAME or db.name to the FOLIO database name, e.g. folio');
    const dbUser = merged.db.user;
    if (!nonEmpty(dbUser)) fail(src('FOLIO_DB_USER', 'db.user'), 'is missing', 'set FOLIO_DB_USER or db.user');
    const sslmode = merged.db.sslmode === undefined ? 'prefer' : merged.db.sslmode;
    if (!SSLMODES.includes(sslmode)) fail(src('FOLIO_DB_SSLMODE', 'db.sslmode'), `"${sslmode}" is not a PostgreSQL sslmode`, `use one of ${SSLMODES.join(', ')}`);
    const dbPassword = env.FOLIO_DB_PASSWORD;
    if (!nonEmpty(dbPassword)) fail('FOLIO_DB_PASSWORD', 'is not set', 'export FOLIO_DB_PASSWORD=<database password>, or use DATA=csv:<dir> without database access');
    db = { host, port, name, user: dbUser, sslmode, password: dbPassword };
  }

  const release = merged.release === undefined ? where.name : String(merged.release);
  if (!RELEASE.test(release)) fail(src('RELEASE', 'release'), `"${release}" is not a release label`, 'use letters, digits, . _ - (max 64), e.g. RELEASE=lotus');

  return {
    target: where.name,
    file,
    folio: { url: folioUrl, tenant, user, password },
    db,
    data: dataSource,
    checkinPool,
    checkinWindowMs,
    release,
  };
}

// libpq URL for k6/x/sql; the password is percent-encoded and never logged.
export function dbDsn(db) {
  const enc = encodeURIComponent;
  return `postgres://${enc(db.user)}:${enc(db.password)}@${db.host}:${db.port}/${enc(db.name)}?sslmode=${db.sslmode}`;
}

// What may be printed: everything but the secrets.
export function describeConfig(cfg) {
  const db = cfg.db ? `${cfg.db.user}@${cfg.db.host}:${cfg.db.port}/${cfg.db.name}` : 'none';
  const data = cfg.data.kind === 'csv' ? `csv:${cfg.data.dir}` : cfg.data.kind;
  return `target=${cfg.target} url=${cfg.folio.url} tenant=${cfg.folio.tenant} user=${cfg.folio.user} db=${db} data=${data} checkin-pool=${cfg.checkinPool === 'own' ? `own(${cfg.checkinWindowMs / 3600000}h)` : cfg.checkinPool} release=${cfg.release}`;
}
