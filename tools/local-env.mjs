// The Node side of tools/local-env.sh: the part of an environment that tools/local-env.allow keeps,
// for the child processes of the end-to-end tests and the benchmarks, so that a FOLIO_URL or
// FOLIO_PASSWORD the user exported for a real FOLIO never reaches a run they start.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isLoopbackHost } from '../lib/loopback.js';

const ALLOW_FILE = join(dirname(fileURLToPath(import.meta.url)), 'local-env.allow');

// A shell glob (only * and ?) as a RegExp.
const globRe = (g) => new RegExp(`^${g.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);

/**
 * The allow-list: keep and leave-out (`!`) globs, addresses kept only on this machine (`@`), and
 * the globs whose absence is said (`-`).
 */
export function readAllowList(text = readFileSync(ALLOW_FILE, 'utf8')) {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const of = (p) => lines.filter((l) => l.startsWith(p)).map((l) => globRe(l.slice(1)));
  return { keep: lines.filter((l) => !/^[!@-]/.test(l)).map(globRe), leaveOut: of('!'), addresses: of('@'), said: of('-') };
}

/**
 * The kept addresses (`@` globs) of env that are not on this machine, as "NAME (host)": the
 * user's own InfluxDB or database, which a test or the demo must not write to. Never the value
 * itself: a DSN carries a password.
 */
export function remoteAddresses(env = process.env, list = readAllowList()) {
  const out = [];
  for (const [k, v] of Object.entries(env)) {
    if (!v || !list.addresses.some((r) => r.test(k)) || !kept(k, list)) continue;
    const host = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(v)?.[1] ?? v;
    if (!isLoopbackHost(host)) out.push(`${k} (${host.replace(/^.*@/, '')})`);
  }
  return out.sort();
}

/** Whether the allow-list keeps the variable NAME. */
export function kept(name, list = readAllowList()) {
  return !list.leaveOut.some((r) => r.test(name)) && [...list.keep, ...list.addresses].some((r) => r.test(name));
}

/**
 * The kept part of env, with FP_LOCAL_ONLY=1 (the targets' guard) and then `extra` on top; and the
 * left-out names the entry point should say.
 */
export function localEnv(env = process.env, extra = {}) {
  const list = readAllowList();
  const out = {};
  const said = [];
  for (const [k, v] of Object.entries(env)) {
    if (kept(k, list)) out[k] = v;
    else if (list.said.some((r) => r.test(k))) said.push(k);
  }
  return { env: { ...out, FP_LOCAL_ONLY: '1', ...extra }, said: said.sort() };
}

// `node tools/local-env.mjs check`: tools/local-env.sh's address check (one line, exit 1).
if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'check') {
  const remote = remoteAddresses();
  if (remote.length) {
    process.stderr.write(`folio-perf: ${remote.join(', ')} is not on this machine; fix: unset it (tests, drills, the demo, the gate and the benchmarks use their own stack on 127.0.0.1)\n`);
    process.exit(1);
  }
}
