// The JMeter harness's I/O: lays out a plan's working copy, starts Apache JMeter (fetched by
// `make jmeter` into bin/jmeter) headless on it against a loopback FOLIO, and keeps every request
// to another host from leaving the machine. tools/jmeter/run.mjs is its command line; the
// benchmarks (tools/bench-jmeter.mjs) call runPlan() and sample the JVM's CPU while it runs.

import { spawn, spawnSync } from 'node:child_process';
import { createServer, request as httpRequest } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isLoopbackUrl, retarget, transactionNames, propertiesLine } from './plan.mjs';

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const jmeterHome = () => process.env.FP_JMETER_HOME || join(process.env.FP_BIN || join(repo, 'bin'), 'jmeter');

// JMeter 5.6.3's own start script (bin/jmeter, not shipped on Maven Central) runs the JVM with
// these; HEAP, GC_ALGO and JVM_ARGS replace or add to them as they do there.
export const JMETER_HEAP = '-Xms1g -Xmx1g -XX:MaxMetaspaceSize=256m';
export const JMETER_GC = '-XX:+UseG1GC -XX:MaxGCPauseMillis=100 -XX:G1ReservePercent=20';

/**
 * The answer to every request JMeter sends to a host other than the target's: JMeter is told to
 * use this as its proxy for every host but 127.0.0.1 and localhost, and it refuses (403). So a plan
 * that names another host (a CSV's, a hard-coded one) fails those samples instead of reaching it.
 */
async function startGuard() {
  const refused = [];
  const server = createServer((req, res) => {
    refused.push(req.url);
    res.writeHead(403, { 'content-type': 'text/plain' });
    res.end('folio-perf: the JMeter harness sends requests to the loopback target only\n');
  });
  server.on('connect', (req, socket) => {
    refused.push(`CONNECT ${req.url}`);
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { port: server.address().port, refused, close: () => new Promise((ok) => server.close(ok)) };
}

/**
 * A TLS front of the plain-HTTP target on loopback, for plans written for https FOLIO (--tls): the
 * plan keeps its https, so a cookie its login set `Secure` travels on its next requests as it does
 * on a real FOLIO (JMeter's cookie manager, like a browser's, keeps a Secure cookie for https).
 * The certificate is self-signed for 127.0.0.1, made for the run in `dir` (openssl) and removed
 * after; JMeter accepts any server certificate unless told otherwise. Every request and answer
 * passes byte for byte: header names as sent, every Set-Cookie, the body.
 */
async function startTlsFront(target, dir) {
  const key = join(dir, '.tls-key.pem');
  const cert = join(dir, '.tls-cert.pem');
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl could not make the TLS front's certificate (${(r.stderr || r.error?.message || '').trim().split('\n')[0]}); fix: install openssl (make deps)`);
  const t = new URL(target);
  const server = createTlsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    const up = httpRequest({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.rawHeaders }, (ans) => {
      res.writeHead(ans.statusCode, ans.statusMessage, ans.rawHeaders);
      ans.pipe(res);
    });
    up.on('error', (e) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`folio-perf: the TLS front could not reach ${target} (${e.message})\n`);
    });
    req.pipe(up);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    port: server.address().port,
    close: () => {
      rmSync(key, { force: true });
      rmSync(cert, { force: true });
      return new Promise((ok) => server.close(ok));
    },
  };
}

/**
 * The plan's working copy in `dir`: the plan pointed at the target (retarget), beside links to
 * every other file of the plan's directory, so the paths the plan builds from its own directory
 * (${__BeanShell(...getBaseDir())}/jmeter-supported-data/...) find them; `data`'s entries are
 * laid over those (generated CSVs). Returns the copy's path and the plan's transaction names.
 */
export function workingCopy({ plan, data, dir, port, tls = false }) {
  const planDir = dirname(resolve(plan));
  mkdirSync(dir, { recursive: true });
  const link = (from, name) => {
    rmSync(join(dir, name), { recursive: true, force: true });
    symlinkSync(join(from, name), join(dir, name));
  };
  for (const name of readdirSync(planDir)) if (name !== basename(plan)) link(planDir, name);
  if (data) for (const name of readdirSync(resolve(data))) link(resolve(data), name);
  const xml = readFileSync(plan, 'utf8');
  const r = retarget(xml, { port, tls });
  const copy = join(dir, basename(plan));
  rmSync(copy, { force: true });
  writeFileSync(copy, r.xml);
  return { copy, pointed: r.changed, transactions: transactionNames(xml) };
}

/**
 * Runs `plan` headless: opts { plan, target, out, data, props: [{name, value}], secrets: [{name,
 * env}], onStart(pid), quiet }. Writes out/results.jtl and out/jmeter.log; resolves to { code,
 * jtl, log, transactions, refused (requests the guard stopped), pointed }.
 */
export async function runPlan(opts) {
  const home = jmeterHome();
  const launcher = join(home, 'bin', 'ApacheJMeter.jar');
  if (!existsSync(launcher)) throw new Error(`JMeter is not fetched (${launcher} is missing); fix: run make jmeter`);
  if (!isLoopbackUrl(opts.target)) throw new Error(`target ${opts.target} is not on this machine; fix: point --target at a loopback FOLIO, e.g. http://127.0.0.1:9130`);
  const target = new URL(opts.target);
  if (target.protocol !== 'http:') throw new Error(`target ${opts.target} is not plain http; fix: give minifolio's http://127.0.0.1:<port>`);
  if (!existsSync(opts.plan)) throw new Error(`plan ${opts.plan} does not exist; fix: give the path of a .jmx file`);
  const out = resolve(opts.out);
  mkdirSync(out, { recursive: true });
  const front = opts.tls ? await startTlsFront(opts.target, out) : null;
  try {
    return await runPointed(opts, out, front ? { port: front.port, tls: true } : { port: Number(target.port || 80), tls: false });
  } finally {
    if (front) await front.close();
  }
}

async function runPointed(opts, out, { port, tls }) {
  const home = jmeterHome();
  const launcher = join(home, 'bin', 'ApacheJMeter.jar');
  const wc = workingCopy({ plan: opts.plan, data: opts.data, dir: join(out, 'plan'), port, tls });

  // Secrets reach JMeter through a property file only this user can read, deleted after the run,
  // never through the command line (ps shows it) or the JTL.
  const secretFile = join(out, '.secret.properties');
  const secrets = opts.secrets || [];
  for (const s of secrets) if (process.env[s.env] === undefined) throw new Error(`--secret ${s.name}=${s.env}: ${s.env} is not set; fix: export ${s.env}`);
  if (secrets.length) writeFileSync(secretFile, secrets.map((s) => propertiesLine(s.name, process.env[s.env])).join(''), { mode: 0o600 });

  const guard = await startGuard();
  const jtl = join(out, 'results.jtl');
  const log = join(out, 'jmeter.log');
  rmSync(jtl, { force: true });
  const words = (s) => s.split(/\s+/).filter(Boolean);
  const jvm = [...words(process.env.HEAP ?? JMETER_HEAP), ...words(process.env.GC_ALGO ?? JMETER_GC), ...words(process.env.JVM_ARGS || '')];
  const args = [
    ...jvm,
    '-jar', launcher,
    '-n', '-t', wc.copy, '-l', jtl, '-j', log,
    // every host but the loopback target goes to the guard
    '-H', '127.0.0.1', '-P', String(guard.port), '-N', '127.0.0.1|localhost',
    ...(secrets.length ? ['-q', secretFile] : []),
    // no UDP shutdown listener (ports 4445+, shared by every JMeter on the machine); CSV results
    '-Jjmeterengine.nongui.port=0', '-Jjmeter.save.saveservice.output_format=csv',
    ...(opts.props || []).map((p) => `-J${p.name}=${p.value}`),
  ];
  try {
    const code = await new Promise((ok, fail) => {
      const child = spawn('java', args, { cwd: out, stdio: ['ignore', opts.quiet ? 'ignore' : 'inherit', opts.quiet ? 'ignore' : 'inherit'] });
      child.on('error', (e) => fail(new Error(`cannot start java (${e.message}); fix: run make deps (installs openjdk-17-jdk-headless)`)));
      child.on('spawn', () => opts.onStart && opts.onStart(child.pid));
      child.on('exit', (c, sig) => ok(c === null ? 128 + (sig === 'SIGKILL' ? 9 : 15) : c));
    });
    return { code, jtl, log, transactions: wc.transactions, refused: guard.refused, pointed: wc.pointed, copy: wc.copy };
  } finally {
    await guard.close();
    rmSync(secretFile, { force: true });
  }
}
