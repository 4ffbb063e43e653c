// k6 side of test data: pools from the FOLIO database (lib/k6/cico-db.js, through k6/x/sql), or
// from PTF's CSV files. Either way they live in SharedArrays: loaded once, in the first init
// context, and shared read-only by all VUs. (Data returned by setup() is copied into every VU
// instead: at 200 VUs that copy was three quarters of k6's memory, make bench-k6.) The SQL,
// parsing and partitioning are in lib/cico/data.js.
//
// Nothing here imports k6/x/sql: k6 finds the extensions a script needs from its static imports,
// and a stock k6 (>= 1.2) would otherwise fetch a k6 build with k6/x/sql, or fail without network,
// even for DATA=csv. DATA=db loads cico-db.js through init-context require() (loadDbData).

import { SharedArray } from 'k6/data';
import { parseCsvColumn } from '../cico/data.js';

export const CSV_FILES = { available: 'available.csv', checkedOut: 'checked_out.csv', users: 'user_barcodes.csv' };

/**
 * The database pools as SharedArrays, for init context. k6 runs a SharedArray's callback once per
 * test (in the init that reads the options) and hands every later VU the stored result, so the
 * queries run once: only that first init needs dbData (loadDbData()'s module). A failure does not
 * throw here: it is kept in `error`, and setup() reports it after the login, so a run with a wrong
 * password still says so first.
 * Returns { available, checkedOut, users, servicePointId, error }.
 */
export function sharedPoolsFromDb(cfg, limit, servicePointOverride, dbData) {
  let loaded = null; // filled by the first callback; the others run right after it, in the same init
  const load = () => {
    if (loaded === null) {
      try {
        loaded = dbData.poolsFromDb(cfg, limit, servicePointOverride);
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

/**
 * lib/k6/cico-db.js, for DATA=db, in init context. A k6 without the k6/x/sql module stops here with
 * one line and the fixes.
 */
export function loadDbData() {
  let m = null;
  let cause = 'k6/x/sql is not one of its modules';
  try {
    m = require('./cico-db.js');
  } catch (e) {
    const msg = String(e && e.message ? e.message : e);
    if (!/k6\/x\/sql/.test(msg)) throw e;
    cause = msg.split('\n')[0];
  }
  if (m && m.sqlAvailable) return m;
  throw `folio-perf: DATA=db reads FOLIO's database through the k6/x/sql module, which this k6 lacks (${cause}); fix: use DATA=csv:<dir>, or a k6 with k6/x/sql: the project's (make k6, bin/k6; docs/stock-k6.md)`;
}
