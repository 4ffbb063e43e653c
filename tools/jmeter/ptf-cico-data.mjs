// The data files of PTF's CICO plan (tools/jmeter/ptf/check-in-check-out), written from a tenant's
// database the way the k6 scripts choose their test data (lib/cico/data.js's poolQueries), so that both
// clients work on the same patrons and items:
//   credentials.csv    username,password,tenant (the operator; this file is readable by its owner
//                      only: remove it after the run with removeCredentials)
//   user_barcodes.csv  active patrons without a block, the operator left out
//   available.csv      Available items without an open loan (at the home service point)
//   checked_out.csv    LAG items kept out of available.csv, then available.csv's items in its
//                      order: every thread reads the next line of each file, so check-ins (43 %)
//                      follow the check-outs (57 %) down the list at least LAG items behind and
//                      return items a check-out took, as PTF's seeded loans were returned, never
//                      one whose check-out is still under way (FOLIO answers 409 to that race); the
//                      first LAG check-ins find their item Available, which FOLIO accepts
//   service_point.csv  the service point most items are shelved under
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { poolQueries } from '../../lib/cico/data.js';

const LIMIT = 100000;
// More than the users a run has: how far the check-ins stay behind the check-outs.
const LAG = 50;

function psql(dsn, statement, params) {
  const u = new URL(dsn);
  // psql has no bind parameters on -c: the values are this file's own numbers and the operator's
  // username, quoted as SQL literals.
  const lit = (v) => (v === null ? 'NULL' : typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
  const sql = statement.replace(/\$(\d)/g, (_, i) => lit(params[Number(i) - 1]));
  const r = spawnSync('psql', ['-X', '-q', '-t', '-A', '-v', 'ON_ERROR_STOP=1', '-h', u.hostname, '-p', u.port, '-U', decodeURIComponent(u.username), '-d', u.pathname.slice(1), '-c', sql], {
    env: { ...process.env, PGPASSWORD: decodeURIComponent(u.password) },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`reading the test data failed: ${(r.stderr || r.error?.message || '').trim()}`);
  return r.stdout.split('\n').filter((l) => l !== '');
}

/** Writes DIR/jmeter-supported-data/*.csv; returns the counts. password: the operator's. */
export function writePtfCicoData({ dir, dsn, tenant, operator, password }) {
  const q = poolQueries(tenant);
  const sp = psql(dsn, q.homeServicePoint, []).map((l) => l.split('|')[0]);
  if (sp.length === 0) throw new Error(`tenant ${tenant} has no Available item at a service point; fix: seed it (bin/minifolio seed --tenant ${tenant})`);
  const available = psql(dsn, q.availableItems, [LIMIT, sp[0]]);
  const users = psql(dsn, q.activeUsers, [LIMIT, operator]);
  if (available.length <= LAG || users.length === 0) throw new Error(`tenant ${tenant} has ${available.length} available items and ${users.length} patrons; fix: reset or seed it`);
  const d = join(dir, 'jmeter-supported-data');
  mkdirSync(d, { recursive: true });
  const lines = (a) => a.join('\n') + '\n';
  writeFileSync(join(d, 'credentials.csv'), `${operator},${password},${tenant}\n`, { mode: 0o600 });
  writeFileSync(join(d, 'user_barcodes.csv'), lines(users));
  writeFileSync(join(d, 'available.csv'), lines(available.slice(LAG)));
  writeFileSync(join(d, 'checked_out.csv'), lines(available));
  writeFileSync(join(d, 'service_point.csv'), lines(sp.slice(0, 1)));
  return { available: available.length - LAG, users: users.length, servicePoint: sp[0] };
}

export function removeCredentials(dir) {
  rmSync(join(dir, 'jmeter-supported-data', 'credentials.csv'), { force: true });
}
