// psql on this stack's database (folio@127.0.0.1:<FP_PG_PORT>/folio): the password through
// PGPASSWORD, never the command line. Only ever minifolio's own database.
import { runChild } from './children.mjs';

/** Runs one statement; resolves { ok, out } (out: psql's rows, or its error's first line). */
export async function stackSql(defaults, statement) {
  const r = await runChild('psql', ['-X', '-q', '-t', '-A', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', defaults.FP_PG_PORT, '-U', 'folio', '-d', 'folio', '-c', statement], {
    capture: true,
    env: { ...process.env, PGPASSWORD: defaults.FOLIO_DB_PASSWORD },
  });
  if (r.code !== 0) return { ok: false, out: (r.stderr.trim() || `psql exit ${r.code}`).split('\n')[0] };
  return { ok: true, out: r.stdout.trim() };
}
