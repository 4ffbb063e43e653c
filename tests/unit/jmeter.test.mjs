// The JMeter harness's pure parts (tools/jmeter/plan.mjs): what it changes in a plan, which
// targets it accepts, its command line, and how it reads JMeter's results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isLoopbackUrl, retarget, transactionNames, parseArgs, propertiesLine, parseJtl, summarize } from '../../tools/jmeter/plan.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ptfPlan = join(repo, 'tools', 'jmeter', 'ptf', 'check-in-check-out', 'circulation_checkInCheckOut_orchid.jmx');

const el = (tag, props) =>
  `<${tag} guiclass="X" testclass="${tag}" testname="t" enabled="true">\n` +
  Object.entries(props).map(([k, v]) => `  <stringProp name="HTTPSampler.${k}">${v}</stringProp>\n`).join('') +
  `</${tag}>`;

test('retarget: an https element on port 443 or no port gets http and the target port', () => {
  for (const port of ['', '443']) {
    const r = retarget(el('ConfigTestElement', { domain: '${HOSTNAME}', port, protocol: 'https', path: '' }), { port: 10030 });
    assert.equal(r.changed, 1);
    assert.match(r.xml, /name="HTTPSampler.protocol">http</);
    assert.match(r.xml, /name="HTTPSampler.port">10030</);
    assert.match(r.xml, /name="HTTPSampler.domain">\$\{HOSTNAME\}</, 'the host stays the plan\'s');
  }
});

test('retarget with tls: the https stays, only the port becomes the TLS front\'s', () => {
  const r = retarget(el('ConfigTestElement', { domain: '${hostName}', port: '443', protocol: 'https', path: '' }), { port: 40443, tls: true });
  assert.equal(r.changed, 1);
  assert.match(r.xml, /name="HTTPSampler.protocol">https</);
  assert.match(r.xml, /name="HTTPSampler.port">40443</);
  assert.equal(parseArgs(['p.jmx', '--tls']).tls, true);
  assert.equal(parseArgs(['p.jmx']).tls, false);
});

test('retarget: a port property JMeter left out (empty) is added', () => {
  const r = retarget(el('HTTPSamplerProxy', { domain: '${hostname}', protocol: 'https', path: '/authn/login' }), { port: 9130 });
  assert.equal(r.changed, 1);
  assert.match(r.xml, /name="HTTPSampler.protocol">http<\/stringProp>\n<stringProp name="HTTPSampler.port">9130</);
});

test('retarget: http, inherited (no protocol) and other ports are left alone', () => {
  const xml = [
    el('HTTPSamplerProxy', { domain: '${dms}', port: '${dms_port}', protocol: 'http', path: '/x' }),
    el('HTTPSamplerProxy', { domain: '', port: '', protocol: '', path: '/circulation/loans' }),
    el('HTTPSamplerProxy', { domain: 'h', port: '8443', protocol: 'https', path: '/y' }),
    '<HTTPSamplerProxy guiclass="X" testclass="HTTPSamplerProxy" testname="empty" enabled="true"/>',
  ].join('\n');
  const r = retarget(xml, { port: 9130 });
  assert.equal(r.changed, 0);
  assert.equal(r.xml, xml);
});

test('retarget: PTF\'s Orchid CICO plan changes in its HTTP Request Defaults only', () => {
  const xml = readFileSync(ptfPlan, 'utf8');
  const r = retarget(xml, { port: 9130 });
  assert.equal(r.changed, 1);
  const a = xml.split('\n');
  const b = r.xml.split('\n');
  assert.equal(a.length, b.length);
  const diff = a.map((l, i) => [l, b[i]]).filter(([x, y]) => x !== y);
  assert.deepEqual(diff.map(([, y]) => y.trim()), ['<stringProp name="HTTPSampler.port">9130</stringProp>', '<stringProp name="HTTPSampler.protocol">http</stringProp>']);
  assert.throws(() => retarget(xml, { port: 0 }), /not a TCP port/);
});

test('transactionNames: the enabled transaction controllers of the plan', () => {
  assert.deepEqual(transactionNames(readFileSync(ptfPlan, 'utf8')), ['Check-In Controller', 'Check-Out Controller']);
  assert.deepEqual(transactionNames('<TransactionController testname="A &amp; B" enabled="false"/>'), []);
});

test('isLoopbackUrl: only hosts on this machine', () => {
  for (const u of ['http://127.0.0.1:9130', 'http://localhost:1', 'http://127.1.2.3', 'http://[::1]:80']) assert.ok(isLoopbackUrl(u), u);
  for (const u of ['http://10.0.0.1:9130', 'https://folio.example.org', 'http://127.0.0.1.example.org', 'ftp://127.0.0.1', 'nonsense']) assert.ok(!isLoopbackUrl(u), u);
});

test('parseArgs: the plan, options, -J properties; bad input names the fix', () => {
  const o = parseArgs(['p.jmx', '--target', 'http://127.0.0.1:1', '-JVUSERS=8', '-Jq=a=b', '--secret', 'password=FOLIO_PASSWORD', '--data', 'd']);
  assert.equal(o.plan, 'p.jmx');
  assert.equal(o.target, 'http://127.0.0.1:1');
  assert.equal(o.data, 'd');
  assert.deepEqual(o.props, [{ name: 'VUSERS', value: '8' }, { name: 'q', value: 'a=b' }]);
  assert.deepEqual(o.secrets, [{ name: 'password', env: 'FOLIO_PASSWORD' }]);
  assert.throws(() => parseArgs([]), /no plan given; fix/);
  assert.throws(() => parseArgs(['p.txt']), /not a \.jmx file/);
  assert.throws(() => parseArgs(['p.jmx', '-JVUSERS']), /fix: write -Jname=value/);
  assert.throws(() => parseArgs(['p.jmx', '--secret', 'password=s3cret!']), /PROPERTY=ENVIRONMENT_VARIABLE/);
  assert.throws(() => parseArgs(['p.jmx', '--target']), /needs a value/);
  assert.throws(() => parseArgs(['p.jmx', '-x']), /unknown option/);
});

test('propertiesLine: a value Java reads back unchanged', () => {
  assert.equal(propertiesLine('password', 'a\\b=c:d #e'), 'password=a\\\\b\\=c\\:d \\#e\n');
  assert.equal(propertiesLine('p', ' lead\nnext'), 'p=\\ lead\\nnext\n');
});

const JTL = [
  'timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,URL',
  '1000,100,GET_groups,200,OK,t1,text,true,,10,http://127.0.0.1:9130/groups',
  '1100,50,POST_circulation/check-out-by-barcode,422,Unprocessable,t1,text,false,"Test failed: code expected to equal /\n\n****** received, ""422""",10,http://127.0.0.1:9130/circulation/check-out-by-barcode',
  '900,3,Util_Branch selector randomizer,200,OK,t1,text,true,,0,null',
  '1000,150,Check-Out Controller,200,"Number of samples in transaction : 2, number of failing samples : 1",t1,,false,,20,null',
  '2000,80,Check-In Controller,200,ok,t1,,true,,20,null',
  '3000,90,Check-In Controller,200,ok,t1,,true,,20,null',
  '',
].join('\n');

test('parseJtl: quoted fields with commas, quotes and newlines', () => {
  const rows = parseJtl(JTL);
  assert.equal(rows.length, 6);
  assert.equal(rows[1].label, 'POST_circulation/check-out-by-barcode');
  assert.equal(rows[1].ok, false);
  assert.match(rows[1].message, /received, "422"/);
  assert.throws(() => parseJtl('<?xml version="1.0"?><testResults/>'), /not a CSV JTL/);
});

test('summarize: transactions apart from HTTP requests (not script samplers), failures, quantiles, a window', () => {
  const rows = parseJtl(JTL);
  const all = summarize(rows, ['Check-In Controller', 'Check-Out Controller']);
  assert.deepEqual(all.transactions, [
    { name: 'Check-In Controller', count: 2, failed: 0, p50: 80, p95: 90 },
    { name: 'Check-Out Controller', count: 1, failed: 1, p50: null, p95: null },
  ]);
  assert.equal(all.requests, 2);
  assert.equal(all.requestErrors, 1);
  const late = summarize(rows, ['Check-In Controller'], { from: 2050, to: 3089 });
  assert.deepEqual(late.transactions.map((t) => t.count), [1]);
  assert.equal(late.requests, 0);
});
