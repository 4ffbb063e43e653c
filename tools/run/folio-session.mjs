// The front door's own few calls to FOLIO, outside k6: the login before k6 starts (a wrong password,
// user, tenant or URL stops the run with one line, before k6 prints a report of a run that never
// started) and, after a run on your FOLIO that did not end cleanly, the listing of the run's own
// open loans. Settings resolve as the k6 scripts resolve them (lib/config.js: env/<FOLIO_ENV>.json
// plus FOLIO_* overrides); the login is lib/k6/auth.js's: POST /authn/login-with-expiry, or the
// legacy /authn/login when that answers 404 (mod-login : ramls/login.raml).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { envFileOf, parseEnvFile, resolveConfig, TARGET_ENV } from '../../lib/config.js';
import { errorDetail, cqlQuote, cqlId } from '../../lib/folio.js';
import { sessionFromExpiryResponse } from '../../lib/auth.js';
import { ROOT } from '../cli/stack-defaults.mjs';
import { defaultsFor } from '../defaults.mjs';

const TIMEOUT_MS = 30000;
// The first login to a Eureka tenant has its Keycloak realm set up (mod-login-keycloak on minifolio,
// mgr-tenants on FOLIO): a minute or more on a busy machine.
const LOGIN_TIMEOUT_MS = 180000;

/** A failure with the exit code the run ends with: 1 a bad setting, 108 FOLIO refused or is away. */
export class TargetError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'TargetError';
    this.code = code;
  }
}

/** The run's target settings, as k6 will resolve them. */
export function targetConfig(env) {
  try {
    const where = envFileOf(env);
    let text;
    try {
      text = readFileSync(join(ROOT, where.file), 'utf8');
    } catch {
      throw new TargetError(1, `${where.file} does not exist; fix: use ${TARGET_ENV}=<a file in env/>, e.g. ${TARGET_ENV}=local`);
    }
    return resolveConfig(parseEnvFile(text, where.file, defaultsFor), env, where, { noData: true });
  } catch (e) {
    if (e instanceof TargetError) throw e;
    throw new TargetError(1, String(e.message || e).replace(/^folio-perf: /, ''));
  }
}

// The same causes and fixes as lib/k6/auth.js's loginFailure.
function failure(cfg, status, body, path) {
  const detail = errorDetail(status, body);
  if (status === 400 && /tenant/i.test(detail)) return `FOLIO rejected tenant "${cfg.folio.tenant}" (${detail}); fix: set FOLIO_TENANT / folio.tenant to an existing tenant`;
  if (status === 422 || status === 401 || status === 403) return `FOLIO rejected the login of user "${cfg.folio.user}" (${status}); fix: check FOLIO_USER and FOLIO_PASSWORD`;
  if (status === 404) return `FOLIO has no login endpoint at ${cfg.folio.url}${path} (${detail}); fix: check that FOLIO_URL points at Okapi (or Kong on Eureka) and that tenant "${cfg.folio.tenant}" has mod-login enabled`;
  return `login at ${cfg.folio.url}${path} failed (${detail}); fix: check the target's logs`;
}

async function call(cfg, method, path, { body, token, timeoutMs = TIMEOUT_MS } = {}) {
  const headers = { Accept: 'application/json', 'X-Okapi-Tenant': cfg.folio.tenant };
  if (body) headers['Content-Type'] = 'application/json';
  if (token) headers['X-Okapi-Token'] = token;
  try {
    const res = await fetch(`${cfg.folio.url}${path}`, { method, headers, body: body ? JSON.stringify(body) : undefined, signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status, headers: res.headers, body: await res.text() };
  } catch (e) {
    const why = (e.cause && (e.cause.code || e.cause.message)) || e.message;
    throw new TargetError(108, `FOLIO is not reachable at ${cfg.folio.url} (${why}); fix: start it (make run) or correct FOLIO_URL / folio.url in ${cfg.file}`);
  }
}

/** Logs in as the run's operator; returns the access token. Throws TargetError(108). */
export async function logIn(cfg) {
  const creds = { username: cfg.folio.user, password: cfg.folio.password };
  let path = '/authn/login-with-expiry';
  let res = await call(cfg, 'POST', path, { body: creds, timeoutMs: LOGIN_TIMEOUT_MS });
  if (res.status === 404) res = await call(cfg, 'POST', (path = '/authn/login'), { body: creds, timeoutMs: LOGIN_TIMEOUT_MS });
  if (res.status !== 201) throw new TargetError(108, failure(cfg, res.status, res.body, path));
  const legacy = res.headers.get('x-okapi-token');
  if (legacy) return legacy;
  const s = sessionFromExpiryResponse({ 'set-cookie': res.headers.getSetCookie() }, res.body, Date.now());
  if (s.error) throw new TargetError(108, `FOLIO's login answer at ${cfg.folio.url}${path} has ${s.error}; fix: check that FOLIO_URL points at Okapi (or Kong on Eureka)`);
  return s.accessToken;
}

async function getJson(cfg, token, path) {
  const res = await call(cfg, 'GET', path, { token });
  if (res.status !== 200) throw new TargetError(1, `GET ${path.split('?')[0]} answered ${res.status} ${errorDetail(res.status, res.body)}`);
  return JSON.parse(res.body);
}

const PAGE = 500;

/**
 * The barcodes of the open loans the operator made since sinceIso: what a run that did not end
 * cleanly can have left on your FOLIO. Scoped by FOLIO's own record of each loan (who created it,
 * when), so a loan of another account or from before the run is never listed.
 */
export async function openLoansOfRun(cfg, sinceIso) {
  const token = await logIn(cfg);
  const q = (cql, extra = '') => `query=${encodeURIComponent(cql)}${extra}`;
  const users = await getJson(cfg, token, `/users?${q(`username==${cqlQuote(cfg.folio.user)}`, '&limit=1')}`);
  const operator = users.users?.[0]?.id;
  if (!operator) throw new TargetError(1, `user "${cfg.folio.user}" is not in /users`);
  const cql = `status.name=="Open" and metadata.createdByUserId==${cqlId(operator)} and loanDate>=${cqlQuote(sinceIso)}`;
  const barcodes = new Set();
  for (let offset = 0; offset < 100 * PAGE; offset += PAGE) {
    const page = await getJson(cfg, token, `/circulation/loans?${q(cql, `&limit=${PAGE}&offset=${offset}`)}`);
    const loans = page.loans || [];
    for (const l of loans) barcodes.add(l.item?.barcode || `(item ${l.itemId}, no barcode)`);
    if (loans.length < PAGE) break;
  }
  return [...barcodes].sort();
}
