// Pure parts of the JMeter harness (tools/jmeter/run.mjs): pointing a plan written for an https
// FOLIO at a loopback one, the command-line arguments, the loopback rule, and reading the results
// (JTL). No I/O here, so node's tests check each rule directly (tests/unit/jmeter.test.mjs).

/** True when the URL's host is on this machine: 127.0.0.0/8, localhost or [::1]. */
export function isLoopbackUrl(text) {
  let u;
  try {
    u = new URL(text);
  } catch {
    return false;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
  const h = u.hostname;
  return h === 'localhost' || h === '[::1]' || /^127(\.\d{1,3}){3}$/.test(h);
}

// An HTTP element of a plan: a sampler or the "HTTP Request Defaults" (a ConfigTestElement). They
// never nest in each other, so each runs from its opening tag to its own closing tag.
const HTTP_ELEMENT = /<(HTTPSamplerProxy|ConfigTestElement)\b([^>]*?)(\/>|>([\s\S]*?)<\/\1>)/g;
const prop = (name) => new RegExp(`<stringProp name="HTTPSampler\\.${name}"(?:/>|>([^<]*)</stringProp>)`);

/**
 * Points a plan at a loopback FOLIO that speaks plain HTTP on `port`. PTF's plans name the FOLIO
 * host through a property (HOSTNAME, hostname, ...) but write the scheme as https and the port as
 * 443 or empty (https's default) into the plan itself, where no -J property reaches. Every HTTP
 * element whose protocol is https on port 443 or no port gets http and the given port; an element
 * with another port (another service), with no protocol (it inherits the defaults') or with http
 * already is left as it is. Nothing else changes: requests, headers, assertions, timers.
 * tls: the port is the harness's TLS front of the target, and the scheme stays https.
 * Returns { xml, changed } (changed: how many elements were pointed).
 */
export function retarget(xml, { port, tls = false }) {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`port ${port} is not a TCP port`);
  let changed = 0;
  const out = xml.replace(HTTP_ELEMENT, (whole, tag, attrs, rest, body) => {
    if (body === undefined) return whole;
    const protocol = prop('protocol').exec(body);
    if (!protocol || (protocol[1] || '').trim().toLowerCase() !== 'https') return whole;
    const portNow = prop('port').exec(body);
    const portText = portNow ? (portNow[1] || '').trim() : '';
    if (portText !== '' && portText !== '443') return whole;
    let b = tls ? body : body.replace(prop('protocol'), '<stringProp name="HTTPSampler.protocol">http</stringProp>');
    const p = `<stringProp name="HTTPSampler.port">${port}</stringProp>`;
    b = portNow ? b.replace(prop('port'), p) : b.replace(prop('protocol'), (m) => `${m}\n${p}`);
    changed++;
    return `<${tag}${attrs}>${b}</${tag}>`;
  });
  return { xml: out, changed };
}

/** The names of the plan's transaction controllers (their samples are the transactions in the JTL). */
export function transactionNames(xml) {
  const names = new Set();
  for (const m of xml.matchAll(/<TransactionController\b[^>]*\btestname="([^"]*)"[^>]*\benabled="true"/g)) names.add(unescapeXml(m[1]));
  return [...names];
}

function unescapeXml(s) {
  return s.replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/**
 * The harness's command line: run.mjs PLAN.jmx [--target URL] [--out DIR] [--data DIR] [--tls]
 * [--secret NAME=ENV]... [-Jname=value]... Throws a one-line message with the fix on bad input.
 */
export function parseArgs(argv) {
  const o = { plan: null, target: null, out: null, data: null, secrets: [], props: [], tls: false };
  const value = (i, flag) => {
    if (i + 1 >= argv.length) throw new Error(`${flag} needs a value`);
    return argv[i + 1];
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--tls') {
      o.tls = true;
    } else if (a === '--target' || a === '--out' || a === '--data') {
      o[a.slice(2)] = value(i, a);
      i++;
    } else if (a === '--secret') {
      const s = value(i, a);
      i++;
      const m = /^([A-Za-z_][\w.-]*)=([A-Za-z_]\w*)$/.exec(s);
      if (!m) throw new Error(`--secret "${s}" is not PROPERTY=ENVIRONMENT_VARIABLE; fix: e.g. --secret password=FOLIO_PASSWORD`);
      o.secrets.push({ name: m[1], env: m[2] });
    } else if (a.startsWith('-J')) {
      const m = /^-J([^=\s]+)=(.*)$/s.exec(a);
      if (!m) throw new Error(`"${a}" is not a JMeter property; fix: write -Jname=value`);
      o.props.push({ name: m[1], value: m[2] });
    } else if (a.startsWith('-')) {
      throw new Error(`unknown option "${a}"; fix: use --target, --out, --data, --secret, --tls or -Jname=value`);
    } else if (o.plan === null) {
      o.plan = a;
    } else {
      throw new Error(`a second plan "${a}"; fix: give one .jmx file`);
    }
  }
  if (!o.plan) throw new Error('no plan given; fix: node tools/jmeter/run.mjs PLAN.jmx [-Jname=value ...]');
  if (!/\.jmx$/i.test(o.plan)) throw new Error(`"${o.plan}" is not a .jmx file; fix: give a JMeter plan`);
  return o;
}

/** One line of a Java properties file (JMeter -q), value escaped so it reads back unchanged. */
export function propertiesLine(name, value) {
  const esc = (s) =>
    s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t').replace(/^ /, '\\ ').replace(/[=:#!]/g, (c) => '\\' + c);
  return `${esc(name)}=${esc(value)}\n`;
}

/** The rows of a CSV JTL (JMeter's default results format): RFC 4180 quoting, a header line. */
export function parseJtl(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  const [head, ...body] = rows.filter((r) => r.length > 1 || r[0] !== '');
  if (!head || !head.includes('timeStamp') || !head.includes('label')) throw new Error('not a CSV JTL with a header line (timeStamp, elapsed, label, ...)');
  return body.map((r) => {
    const o = {};
    head.forEach((k, j) => (o[k] = r[j]));
    return { time: Number(o.timeStamp), elapsed: Number(o.elapsed), label: o.label, code: o.responseCode, ok: o.success === 'true', message: o.failureMessage || '', url: o.URL || '' };
  });
}

function quantile(sorted, q) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/**
 * What a run did: each transaction (transaction controllers' samples) and the HTTP requests (the
 * samples with a URL: a JSR223 or BeanShell sampler has none), with counts, failures and the
 * p50/p95 of elapsed ms; `from`/`to` (epoch ms) keep only samples that ended inside that window.
 */
export function summarize(rows, transactions, { from = -Infinity, to = Infinity } = {}) {
  const tx = new Set(transactions);
  const groups = new Map();
  let requests = 0;
  let requestErrors = 0;
  for (const r of rows) {
    const end = r.time + r.elapsed;
    if (end < from || end > to) continue;
    if (!tx.has(r.label)) {
      if (/^https?:\/\//.test(r.url)) {
        requests++;
        if (!r.ok) requestErrors++;
      }
      continue;
    }
    const g = groups.get(r.label) || { name: r.label, count: 0, failed: 0, ms: [] };
    g.count++;
    if (!r.ok) g.failed++;
    else g.ms.push(r.elapsed);
    groups.set(r.label, g);
  }
  const out = [];
  for (const name of transactions) {
    const g = groups.get(name) || { name, count: 0, failed: 0, ms: [] };
    const s = g.ms.sort((a, b) => a - b);
    out.push({ name, count: g.count, failed: g.failed, p50: quantile(s, 0.5), p95: quantile(s, 0.95) });
  }
  return { transactions: out, requests, requestErrors };
}
