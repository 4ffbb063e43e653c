// k6 side of test data: pools from the FOLIO database through k6/x/sql, or from PTF's CSV files.
// Either way they live in SharedArrays: loaded once, in the first init context, and shared
// read-only by all VUs. (Data returned by setup() is copied into every VU instead: at 200 VUs
// that copy was three quarters of k6's memory, make bench-k6.) The SQL, parsing and partitioning
// are in lib/cico/data.js.

import sql from 'k6/x/sql';
import driver from 'k6/x/sql/driver/postgres';
import { SharedArray } from 'k6/data';
import { dbDsn } from '../config.js';
import { poolQueries, leftoverQueries, parseCsvColumn } from '../cico/data.js';

export const CSV_FILES = { available: 'available.csv', checkedOut: 'checked_out.csv', users: 'user_barcodes.csv' };

export function openDb(cfg) {
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
      const checkedOut = column(db.query(q.checkedOutItems, limit, cfg.checkinPool === 'any' ? null : cfg.folio.user), 'barcode');
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

/**
 * The database pools as SharedArrays, for init context. k6 runs a SharedArray's callback once per
 * test (in the init that reads the options) and hands every later VU the stored result, so the
 * queries run once. A failure does not throw here: it is kept in `error`, and setup() reports it
 * after the login, so a run with a wrong password still says so first.
 * Returns { available, checkedOut, users, servicePointId, error }.
 */
export function sharedPoolsFromDb(cfg, limit, servicePointOverride) {
  let loaded = null; // filled by the first callback; the others run right after it, in the same init
  const load = () => {
    if (loaded === null) {
      try {
        loaded = poolsFromDb(cfg, limit, servicePointOverride);
      } catch (e) {
        loaded = { error: e && e.message ? e.message : String(e) };
      }
    }
    return loaded;
  };
  const meta = new SharedArray('db:meta', () => {
    const r = load();
    return [{ servicePointId: r.servicePointId || null, error: r.error || null }];
  })[0];
  const pool = (key) => new SharedArray(`db:${key}`, () => (load().pools || {})[key] || []);
  return { available: pool('available'), checkedOut: pool('checkedOut'), users: pool('users'), servicePointId: meta.servicePointId, error: meta.error };
}

function firstLine(s) {
  return s.split('\n')[0].replace(/postgres(ql)?:\/\/[^\s]*/g, '<dsn>').slice(0, 200);
}

/**
 * CSV pools (PTF's files in `dir`, relative to the repository root). Must run in init context.
 * A missing checked_out.csv is allowed (the run then starts with check-outs only).
 */
export function poolsFromCsv(read, dir) {
  const load = (key, required) =>
    new SharedArray(`csv:${key}`, () => {
      const path = `${dir}/${CSV_FILES[key]}`;
      let text;
      try {
        text = read(path);
      } catch (_) {
        if (!required) return [];
        throw `folio-perf: ${path} cannot be read; fix: put PTF's ${CSV_FILES[key]} in ${dir} or use DATA=db`;
      }
      return parseCsvColumn(text);
    });
  const servicePoint = (() => {
    try {
      const v = parseCsvColumn(read(`${dir}/service_point.csv`));
      return v.length ? v[0] : null;
    } catch (_) {
      return null;
    }
  })();
  return { available: load('available', true), checkedOut: load('checkedOut', false), users: load('users', true), servicePoint };
}
