// The record of what a run tested, taken by its setup() before the first user starts and kept in
// summary.json (meta.record): the platform (Okapi or Eureka) and the module versions the target
// announced, the folio-perf commit, the k6 version, the load profile and think time, the size of
// the data, the machine k6 ran on. The report describes the release from this record, never by
// asking the target later (which may by then run another release). Pure: lib/k6/record.js makes
// the requests, lib/k6/run.js reads the commit in init (open() works only there).
//
// Only ids, names, versions and counts are kept: nothing a response may carry beside them (a
// descriptor's environment, a barcode, a password) reaches the record.

// The requests setup() makes for the record carry this prefix in their `name` tag, so that the
// report's per-API and error tables leave them out (a probe's 404 on the other platform is an answer).
export const RECORD_PREFIX = 'record ';

// What the front door (folio-perf run) tells k6 about the machine: k6 cannot read /proc.
export const MACHINE_ENV = Object.freeze({ cores: 'FP_MACHINE_CORES', memoryBytes: 'FP_MACHINE_MEMORY_BYTES' });

// Where each platform lists what a tenant runs. Okapi: the tenant's enabled module ids; Eureka
// (mgr-tenant-entitlements behind Kong): the applications entitled for the tenant, each with its
// modules; there is no /_/proxy on Eureka.
export const OKAPI_MODULES = (tenant) => `/_/proxy/tenants/${encodeURIComponent(tenant)}/modules`;
export const EUREKA_APPLICATIONS = (tenant) => `/entitlements/${encodeURIComponent(tenant)}/applications?limit=500`;
export const EUREKA_VERSION = '/version';

// The data size: totalRecords of a zero-length page of each collection (RMB estimates it on large
// tables, as the release reports' "7.3 M instances" were).
export const DATA_COUNTS = Object.freeze([
  { key: 'items', path: '/item-storage/items?limit=0', name: 'GET /item-storage/items' },
  { key: 'users', path: '/users?limit=0', name: 'GET /users' },
  { key: 'instances', path: '/instance-storage/instances?limit=0', name: 'GET /instance-storage/instances' },
]);

const str = (v) => (typeof v === 'string' && v !== '' ? v : null);

/**
 * A FOLIO module id split as Okapi does: the version starts at the first "-" followed by a digit
 * ("mod-circulation-storage-14.0.0" -> mod-circulation-storage, 14.0.0).
 */
export function splitModuleId(id) {
  const m = /^(.+?)-(\d.*)$/.exec(String(id));
  return m ? { id: String(id), name: m[1], version: m[2] } : { id: String(id), name: String(id), version: null };
}

const byName = (a, b) => a.name.localeCompare(b.name) || String(a.id).localeCompare(String(b.id));

/** Okapi's GET /_/proxy/tenants/{t}/modules body ([{id, ...}]) -> [{id, name, version}], or null. */
export function okapiModules(body) {
  if (!Array.isArray(body)) return null;
  const out = body.map((m) => str(m && m.id)).filter(Boolean).map(splitModuleId);
  return out.length ? out.sort(byName) : null;
}

/**
 * Eureka's GET /entitlements/{t}/applications body -> {applications: [{id, name, version}],
 * modules: [{id, name, version, application}] (backend and UI modules)}, or null when it lists no
 * application.
 */
export function eurekaModules(body) {
  const apps = body && Array.isArray(body.applicationDescriptors) ? body.applicationDescriptors : null;
  if (!apps) return null;
  const applications = [];
  const modules = [];
  for (const a of apps) {
    if (!a || !str(a.id)) continue;
    const app = { id: a.id, name: str(a.name) || splitModuleId(a.id).name, version: str(a.version) || splitModuleId(a.id).version };
    applications.push(app);
    // Its UI modules too (folio_checkout, ...): which screens a run replays follows their versions.
    for (const m of [...(Array.isArray(a.modules) ? a.modules : []), ...(Array.isArray(a.uiModules) ? a.uiModules : [])]) {
      if (!m || !str(m.id)) continue;
      const s = splitModuleId(m.id);
      modules.push({ id: m.id, name: str(m.name) || s.name, version: str(m.version) || s.version, application: app.id });
    }
  }
  return applications.length ? { applications: applications.sort(byName), modules: modules.sort(byName) } : null;
}

/** The version in Eureka's GET /version ({"version": "..."}), or null. */
export function gatewayVersion(body) {
  return body && str(body.version);
}

/** k6's version from the User-Agent k6 sends by default ("Grafana k6/1.8.1"), or null when overridden. */
export function k6VersionFromUserAgent(ua) {
  const m = /\bk6\/(\d[^\s)]*)/.exec(String(Array.isArray(ua) ? ua[0] : ua || ''));
  return m ? m[1] : null;
}

/** totalRecords of a collection page, or null. */
export function totalRecords(body) {
  return body && Number.isInteger(body.totalRecords) && body.totalRecords >= 0 ? body.totalRecords : null;
}

/**
 * The checkout's commit from its .git (a directory, or in a worktree a file "gitdir: <dir>"),
 * through read(path relative to the repository, or absolute) that throws on a missing file.
 * {commit, ref} or null (no .git: e.g. a k6-operator pod). Reads HEAD, then the ref in the
 * worktree's or the common directory, then packed-refs.
 */
export function gitCommit(read) {
  const tryRead = (p) => {
    try {
      return String(read(p));
    } catch (_) {
      return null;
    }
  };
  let gitDir = '.git';
  const dotGit = tryRead('.git');
  if (dotGit && /^gitdir: /.test(dotGit)) gitDir = dotGit.slice(8).trim();
  const head = tryRead(`${gitDir}/HEAD`);
  if (!head) return null;
  const h = head.trim();
  if (/^[0-9a-f]{40}$/.test(h)) return { commit: h, ref: null };
  const ref = /^ref: (\S+)$/.exec(h);
  if (!ref) return null;
  const common = tryRead(`${gitDir}/commondir`);
  const commonDir = common ? (common.trim().startsWith('/') ? common.trim() : `${gitDir}/${common.trim()}`) : gitDir;
  for (const dir of [gitDir, commonDir]) {
    const v = tryRead(`${dir}/${ref[1]}`);
    if (v && /^[0-9a-f]{40}$/.test(v.trim())) return { commit: v.trim(), ref: ref[1] };
  }
  const packed = tryRead(`${commonDir}/packed-refs`) || '';
  for (const line of packed.split('\n')) {
    const p = line.trim().split(' ');
    if (p.length === 2 && p[1] === ref[1] && /^[0-9a-f]{40}$/.test(p[0])) return { commit: p[0], ref: ref[1] };
  }
  return { commit: null, ref: ref[1] };
}

/** The machine from the front door's environment (MACHINE_ENV), or null when not given. */
export function machineFrom(env) {
  const cores = Number(env[MACHINE_ENV.cores]);
  const mem = Number(env[MACHINE_ENV.memoryBytes]);
  if (!(Number.isInteger(cores) && cores > 0) && !(Number.isFinite(mem) && mem > 0)) return null;
  return { cores: Number.isInteger(cores) && cores > 0 ? cores : null, memoryBytes: Number.isFinite(mem) && mem > 0 ? mem : null };
}

/**
 * The record from what setup() learnt. answers: {okapi: {status, body}, eureka: {status, body},
 * version: {status, body}, counts: {items: {status, body}, ...}, userAgent}; the rest is the run's
 * configuration. Every problem is named in `problems`, never thrown: a run proceeds without it.
 */
export function buildRecord({ tenant, answers, commit, load, env, now = new Date() }) {
  const problems = [];
  let platform = null;
  let gateway = null;
  let modules = [];
  let applications = null;
  let modulesSource = null;
  const ok = (a) => a && a.status === 200;
  const okapi = ok(answers.okapi) ? okapiModules(answers.okapi.body) : null;
  const eureka = !okapi && ok(answers.eureka) ? eurekaModules(answers.eureka.body) : null;
  if (okapi) {
    platform = 'Okapi';
    modules = okapi;
    modulesSource = `GET ${OKAPI_MODULES(tenant)}`;
    const o = okapi.find((m) => m.name === 'okapi');
    gateway = o ? `okapi ${o.version}` : null;
  } else if (eureka) {
    platform = 'Eureka';
    modules = eureka.modules;
    applications = eureka.applications;
    modulesSource = `GET ${EUREKA_APPLICATIONS(tenant)}`;
    const v = ok(answers.version) ? gatewayVersion(answers.version.body) : null;
    gateway = v ? `kong ${v}` : null;
  } else {
    const st = (a) => (a ? a.status : 'no request');
    problems.push(`module versions: GET ${OKAPI_MODULES(tenant)} answered ${st(answers.okapi)} and GET ${EUREKA_APPLICATIONS(tenant)} answered ${st(answers.eureka)}`);
  }
  const data = {};
  for (const c of DATA_COUNTS) {
    const a = answers.counts && answers.counts[c.key];
    data[c.key] = ok(a) ? totalRecords(a.body) : null;
    if (data[c.key] === null) problems.push(`${c.key}: ${c.name} answered ${a ? a.status : 'no request'}`);
  }
  const k6 = k6VersionFromUserAgent(answers.userAgent);
  if (!k6) problems.push('k6 version: the User-Agent was set (K6_USER_AGENT or --user-agent), which hides it');
  const machine = machineFrom(env);
  if (!machine) problems.push(`machine: not given (${MACHINE_ENV.cores}, ${MACHINE_ENV.memoryBytes}; folio-perf run sets them)`);
  if (!commit || !commit.commit) problems.push('folio-perf commit: no readable .git beside the scripts');
  return {
    capturedAt: now.toISOString(),
    platform,
    gateway,
    modulesSource,
    modules,
    ...(applications ? { applications } : {}),
    folioPerf: commit && commit.commit ? { commit: commit.commit, ref: commit.ref } : null,
    k6: k6 ? { version: k6 } : null,
    load,
    data,
    machine,
    problems,
  };
}
