#!/usr/bin/env node
// Before k6 starts: can the run's operator log in to FOLIO? tools/run.sh calls
// this so a wrong password, user, tenant or URL stops the run with one line,
// before k6 prints a report and writes a summary of a run that never started.
// It resolves the settings as the k6 scripts do (lib/config.js: env/<K6_ENV>.json
// plus FOLIO_* overrides) and logs in as lib/k6/auth.js does: POST
// /authn/login-with-expiry, or the legacy /authn/login when that answers 404
// (mod-login : ramls/login.raml). Exit 0 logged in, 1 a bad setting, 108 (k6's
// code for a setup that aborted) FOLIO refused or did not answer.
// --target-only: only resolve the settings (exit 1 with the cause when they are wrong, e.g. a
// target off this machine under FP_LOCAL_ONLY=1), contacting nothing.
import { readFileSync } from 'node:fs';
import { envFileName, parseEnvFile, resolveConfig } from '../lib/config.js';
import { defaultsFor } from './defaults.mjs';
import { errorDetail } from '../lib/folio.js';

const TIMEOUT_MS = 30000;

function stop(code, msg) {
  process.stderr.write(`folio-perf: ${msg}\n`);
  process.exit(code);
}

let cfg;
try {
  const where = envFileName(process.env.K6_ENV);
  let text;
  try {
    text = readFileSync(where.file, 'utf8');
  } catch {
    stop(1, `${where.file} does not exist; fix: use K6_ENV=<a file in env/>, e.g. K6_ENV=local`);
  }
  cfg = resolveConfig(parseEnvFile(text, where.file, defaultsFor), process.env, where, { noData: true });
} catch (e) {
  stop(1, String(e.message || e).replace(/^folio-perf: /, ''));
}
if (process.argv.includes('--target-only')) process.exit(0);

// The same causes and fixes as lib/k6/auth.js's loginFailure.
function failure(status, body, path) {
  const detail = errorDetail(status, body);
  if (status === 400 && /tenant/i.test(detail)) return `FOLIO rejected tenant "${cfg.folio.tenant}" (${detail}); fix: set FOLIO_TENANT / folio.tenant to an existing tenant`;
  if (status === 422 || status === 401 || status === 403) return `FOLIO rejected the login of user "${cfg.folio.user}" (${status}); fix: check FOLIO_USER and FOLIO_PASSWORD`;
  if (status === 404) return `FOLIO has no login endpoint at ${cfg.folio.url}${path} (${detail}); fix: check that FOLIO_URL points at Okapi (or Kong on Eureka) and that tenant "${cfg.folio.tenant}" has mod-login enabled`;
  return `login at ${cfg.folio.url}${path} failed (${detail}); fix: check the target's logs`;
}

async function login(path) {
  try {
    const res = await fetch(`${cfg.folio.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-Okapi-Tenant': cfg.folio.tenant },
      body: JSON.stringify({ username: cfg.folio.user, password: cfg.folio.password }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    return { status: res.status, body: await res.text() };
  } catch (e) {
    const why = (e.cause && (e.cause.code || e.cause.message)) || e.message;
    stop(108, `FOLIO is not reachable at ${cfg.folio.url} (${why}); fix: start it (make run) or correct FOLIO_URL / folio.url in ${cfg.file}`);
  }
}

let path = '/authn/login-with-expiry';
let res = await login(path);
if (res.status === 404) res = await login((path = '/authn/login'));
if (res.status !== 201) stop(108, failure(res.status, res.body, path));
