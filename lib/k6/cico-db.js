// k6 side of DATA=db: the test-data pools and teardown's listing of what the run left, from the
// FOLIO database through k6/x/sql. Loaded only for DATA=db (lib/k6/cico-data.js loadDbData), so a
// DATA=csv run imports no extension. The SQL is lib/cico/data.js's.

import sql from 'k6/x/sql';
import driver from 'k6/x/sql/driver/postgres';
import { dbDsn } from '../config.js';
import { poolQueries, leftoverQueries } from '../cico/data.js';

// A k6 without the module still loads this file (its import yields nothing) and fails only after
// the init: loadDbData asks first, to stop with folio-perf's own message.
export const sqlAvailable = Boolean(sql && typeof sql.open === 'function');

function openDb(cfg) {
  return sql.open(driver, dbDsn(cfg.db));
}

function column(rows, name) {
  return rows.map((r) => String(r[name]));
}

/**
 * Pools from the database, each limited to `limit` rows. Returns { pools, servicePointId } or
 * throws an Error whose message names the cause and the fix (never the DSN: it holds the password).
 */
export function poolsFromDb(cfg, limit, servicePointOverride) {
  const db = openDb(cfg);
  const q = poolQueries(cfg.folio.tenant);
  const where = `${cfg.db.user}@${cfg.db.host}:${cfg.db.port}/${cfg.db.name}`;
  try {
    let sp = servicePointOverride || null;
    try {
      if (sp) {
        if (db.query(q.servicePointExists, sp).length === 0) throw new Error(`SERVICE_POINT_ID ${sp} is not a service point of tenant ${cfg.folio.tenant}; fix: unset it or use an id from GET /service-points`);
      } else {
        const home = db.query(q.homeServicePoint);
        sp = home.length ? String(home[0].id) : null;
        if (!sp) {
          const any = db.query(q.anyServicePoint);
          if (any.length === 0) throw new Error(`tenant ${cfg.folio.tenant} has no service point; fix: seed the tenant (bin/minifolio seed) or create one`);
          sp = String(any[0].id);
        }
      }
      const available = column(db.query(q.availableItems, limit, sp), 'barcode');
      // CHECKIN_POOL=own: only loans folio-perf made (see poolQueries.checkedOutItems).
      const since = new Date(Date.now() - cfg.checkinWindowMs).toISOString();
      const checkedOut = column(db.query(q.checkedOutItems, limit, cfg.checkinPool === 'any' ? null : cfg.folio.user, sp, since), 'barcode');
      const users = column(db.query(q.activeUsers, limit, cfg.folio.user), 'barcode');
      return { pools: { available, checkedOut, users }, servicePointId: sp };
    } catch (e) {
      const msg = String(e && e.message ? e.message : e);
      if (/fix:/.test(msg)) throw e;
      if (/does not exist/.test(msg)) {
        throw new Error(`the database ${where} has no FOLIO tables for tenant ${cfg.folio.tenant} (${firstLine(msg)}); fix: check FOLIO_TENANT and FOLIO_DB_NAME, or seed it (bin/minifolio seed)`);
      }
      throw new Error(`test data query on ${where} failed (${firstLine(msg)}); fix: check FOLIO_DB_* and FOLIO_DB_PASSWORD, or use DATA=csv:<dir>`);
    }
  } finally {
    db.close();
  }
}

/**
 * What the run left checked out (for teardown), as [{ barcode, why }]: its open loans (at the run's
 * service point, since it started, on an item of its pools; with CHECKIN_POOL=own only those the
 * operator created) and its items stranded Checked out without a loan. See leftoverQueries.
 */
export function runLeftoversFromDb(cfg, { servicePointId, sinceIso, barcodes }) {
  const db = openDb(cfg);
  const q = leftoverQueries(cfg.folio.tenant);
  const list = JSON.stringify(Array.from(barcodes));
  try {
    const loans = db.query(q.runOpenLoans, servicePointId, sinceIso, list, cfg.checkinPool === 'any' ? null : cfg.folio.user);
    const stranded = db.query(q.strandedItems, list);
    return [
      ...column(loans, 'barcode').map((barcode) => ({ barcode, why: 'open loan' })),
      ...column(stranded, 'barcode').map((barcode) => ({ barcode, why: 'Checked out without a loan' })),
    ];
  } finally {
    db.close();
  }
}

function firstLine(s) {
  return s.split('\n')[0].replace(/postgres(ql)?:\/\/[^\s]*/g, '<dsn>').slice(0, 200);
}
