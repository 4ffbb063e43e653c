// The report's pages: SVG charts well-formed and carrying their series, Markdown and HTML escaping
// of names with <, ", |, and the HTML page self-contained (no script, no network).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lineChart, niceTicks, labelRows } from '../../tools/report/charts-svg.mjs';
import { readFileSync } from 'node:fs';
import { summaryDocument as cicoDoc } from '../../lib/cico/summary.js';
import * as cicoTools from '../../tools/report/workflows/cico.mjs';
import { buildReport } from '../../tools/report/build.mjs';
import { renderMarkdown } from '../../tools/report/render-md.mjs';
import { renderHtml } from '../../tools/report/render-html.mjs';
import { mdCell, htmlEscape } from '../../tools/report/format.mjs';

// A small XML well-formedness check: every tag closes in order, attributes are quoted, and text
// carries no bare < or unescaped &.
export function assertWellFormed(xml) {
  const stack = [];
  const re = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>|<\?[^>]*\?>/g;
  let last = 0;
  let m;
  while ((m = re.exec(xml))) {
    const text = xml.slice(last, m.index);
    assert.doesNotMatch(text, /<|&(?!(amp|lt|gt|quot|#39|#\d+);)/, `bad text before ${m[0]}: ${text.slice(0, 80)}`);
    last = re.lastIndex;
    if (!m[2]) continue;
    if (m[1]) assert.equal(stack.pop(), m[2], `</${m[2]}> closes another element`);
    else if (!m[4] && !['meta', 'br', 'hr', 'img', 'link', 'input'].includes(m[2].toLowerCase())) stack.push(m[2]);
  }
  assert.doesNotMatch(xml.slice(last), /</, 'a tag that does not parse');
  assert.deepEqual(stack, [], 'unclosed elements');
}

const t0 = 1_700_000_000_000;
const series = [
  { name: 'check-in', points: [[t0, 10], [t0 + 1000, 20], [t0 + 2000, 15]] },
  { name: 'GET /x?<a> "q"', points: [[t0, 5], [t0 + 1000, 7]] },
];

test('a line chart is well-formed SVG with one path per series, its points, and the step markers', () => {
  const svg = lineChart({ title: 'Response <time>', unit: 'ms', series, markers: [{ t: t0, label: '1 user' }, { t: t0 + 1500, label: '2 users' }], t0 });
  assertWellFormed(svg);
  const paths = [...svg.matchAll(/<path class="series" data-series="([^"]*)" data-points="(\d+)" d="([^"]*)"/g)];
  assert.equal(paths.length, 2);
  assert.equal(paths[0][1], 'check-in');
  assert.equal(Number(paths[0][2]), 3);
  assert.equal(paths[0][3].match(/[ML]/g).length, 3, 'one command per point');
  assert.equal(paths[1][1], 'GET /x?&lt;a&gt; &quot;q&quot;');
  assert.equal((svg.match(/class="step"/g) || []).length, 2);
  assert.match(svg, /Response &lt;time&gt;/);
  assert.doesNotMatch(svg, /NaN|Infinity|undefined/);
});

test('a gap much longer than the series\' own spacing breaks the line; its regular spacing does not', () => {
  const d = (points) => lineChart({ title: 't', series: [{ name: 's', points }] }).match(/ d="([^"]*)"/)[1].match(/[ML]/g);
  // every second, then a minute's pause between two steps
  assert.deepEqual(d([[t0, 1], [t0 + 1000, 2], [t0 + 2000, 2], [t0 + 62_000, 3], [t0 + 63_000, 3]]), ['M', 'L', 'L', 'M', 'L']);
  // sampled every 10 s (Telegraf's period): one line
  assert.deepEqual(d([[t0, 1], [t0 + 10_000, 2], [t0 + 20_000, 3], [t0 + 30_000, 3]]), ['M', 'L', 'L', 'L']);
});

test('an empty chart still draws (axes, "no data"), with nothing NaN', () => {
  const svg = lineChart({ title: 'Module CPU', series: [] });
  assertWellFormed(svg);
  assert.match(svg, /no data/);
  assert.doesNotMatch(svg, /NaN|Infinity/);
});

test('y ticks cover the maximum in 1-2-5 steps', () => {
  assert.deepEqual(niceTicks(7), [0, 2, 4, 6, 8]);
  assert.deepEqual(niceTicks(100), [0, 50, 100]);
  for (const max of [0.003, 1, 9.9, 640, 51200]) {
    const t = niceTicks(max);
    assert.ok(t[t.length - 1] >= max && t[0] === 0, `${max}: ${t}`);
  }
});

const doc = {
  title: 'run <x> & "y"',
  notes: ['interrupted <b>'],
  sections: [
    {
      id: 's1',
      title: 'Check-in/check-out',
      blocks: [
        { type: 'table', id: 't1', caption: 'Slow APIs (p75 > 100 ms)', columns: [{ label: 'API' }, { label: 'p75', align: 'r' }], rows: [['GET /a|b?<c> "d"', '120.5']], source: 'summary.json' },
        { type: 'table', id: 't2', caption: 'Errors', columns: [{ label: 'API' }], rows: [], empty: 'No request failed.' },
        { type: 'charts', items: [{ title: 'RT', svg: lineChart({ title: 'RT', series }) }] },
      ],
    },
  ],
  sources: [{ id: 'errors', text: `SELECT count("value") FROM "http_reqs" WHERE "testid" = 'x'` }],
  footer: 'done',
};

test('Markdown: a pipe, < and > in a name stay inside their cell as text', () => {
  const md = renderMarkdown(doc);
  const line = md.split('\n').find((l) => l.startsWith('| GET'));
  assert.equal(line, '| GET /a\\|b?&lt;c> "d" | 120.5 |');
  // cells split on unescaped pipes: exactly the table's two columns
  assert.equal(line.split(/(?<!\\)\|/).length - 2, 2);
  assert.match(md, /\|---\|---:\|/);
  assert.match(md, /_No request failed\._/);
  assert.match(md, /^# run &lt;x> &amp; "y"$/m);
  assert.match(md, /\*\*Slow APIs \(p75 > 100 ms\)\*\*/);
  assert.equal(mdCell('a\nb'), 'a b');
});

test('HTML: names escaped, tables and charts present, well-formed, self-contained', () => {
  const html = renderHtml(doc);
  assertWellFormed(html.replace(/^<!DOCTYPE html>\n/, ''));
  assert.match(html, /<td>GET \/a\|b\?&lt;c&gt; &quot;d&quot;<\/td>/);
  assert.doesNotMatch(html, /<c>|<b>/);
  assert.equal((html.match(/<table /g) || []).length, 1);
  assert.equal((html.match(/<svg /g) || []).length, 1);
  assert.match(html, /No request failed\./);
  // nothing to fetch: no script, no src, no link but to its own rows, no URL but the SVG namespace
  assert.doesNotMatch(html, /<script|\ssrc=|\shref="(?!#)|@import|url\(/i);
  assert.deepEqual([...new Set(html.match(/https?:\/\/[^\s"']+/g))], ['http://www.w3.org/2000/svg']);
  assert.equal(htmlEscape(`<'&">`), '&lt;&#39;&amp;&quot;&gt;');
});

// A whole report from the recorded CICO summary (two steps, 1 and 5 users).
const fixture = JSON.parse(readFileSync(new URL('./fixtures/k6-summary-data.json', import.meta.url), 'utf8'));
const cico = cicoDoc(fixture, { testid: 'cico-t', workflow: 'cico', release: 'fast', target: 'local', profile: 'smoke', steps: [1, 5], stepDuration: '30s' });
const gathered = {
  steps: [{ vus: 1, fromMs: t0, toMs: t0 + 30_000 }, { vus: 5, fromMs: t0 + 31_000, toMs: t0 + 60_000 }],
  fromMs: t0,
  toMs: t0 + 60_000,
  intervalS: 1,
  errors: [{ name: 'GET /x|y <z>', status: '500', requests: 1 }],
  seriesTag: 'transaction',
  responseTime: [{ name: 'check-in', avg: [], p95: [[t0, 100], [t0 + 40_000, 200]] }],
  throughput: [{ name: 'check-in', points: [[t0, 1], [t0 + 40_000, 2]] }],
  moduleSteps: [{ vus: 5, fromMs: t0 + 31_000, toMs: t0 + 60_000, stats: [{ module: 'okapi', cpu_avg: 10, cpu_min: 1, cpu_max: 20, mem_avg: 2e7, mem_max: 3e7 }], memPoints: {} }],
  modules: [{ module: 'okapi', cpu: [[t0, 10]], mem: [[t0, 2e7]] }],
  queries: [],
};
const whole = buildReport(cico, gathered, cicoTools);

test('Markdown for a wiki: no HTML tag anywhere outside code, tables numbered, each finding naming its table and row', () => {
  const md = renderMarkdown(whole);
  const text = md.replace(/`[^`]*`/g, '');
  assert.doesNotMatch(text, /<\/?[a-zA-Z][^>]*>/, 'a raw HTML tag would show as text on Confluence');
  const numbers = [...md.matchAll(/^\*\*Table (\d+)\. /gm)].map((m) => Number(m[1]));
  assert.deepEqual(numbers, numbers.map((_, i) => i + 1), 'tables numbered 1, 2, 3, ... in page order');
  assert.ok(md.indexOf('## Summary') < md.indexOf('**Table 1.'), 'the Summary comes before the first table');
  assert.match(md, /^- \*\*FAILED\*\*: SLO thresholds, 3 of 10 failed \(Table 1, row “SLO thresholds”\)$/m);
  assert.match(md, /^_Source: /m);
});

test('HTML: every finding links to its table\'s row by an anchor the page has; sections print one per page', () => {
  const html = renderHtml(whole);
  assertWellFormed(html.replace(/^<!DOCTYPE html>\n/, ''));
  const ids = new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]));
  const links = [...html.matchAll(/ href="#([^"]+)"/g)].map((m) => m[1]);
  assert.ok(links.length >= 5, 'findings link to their rows');
  for (const l of links) assert.ok(ids.has(l), `#${l} exists`);
  assert.equal(ids.size, [...html.matchAll(/ id="([^"]+)"/g)].length, 'no id twice');
  assert.ok(html.indexOf('id="s-summary"') < html.indexOf('<table'), 'the Summary comes before the first table');
  assert.match(html, /@media print \{[^]*section, footer \{ break-before: page; \}[^]*tr, \.charts svg, ul\.findings li \{ break-inside: avoid; \}/);
  assert.match(html, /<li class="bad"><strong>FAILED<\/strong>: SLO thresholds/);
  // charts beside their sections: response time with the transactions, CPU with the modules
  const section = (id) => html.slice(html.indexOf(`<section id="s-${id}">`), html.indexOf('</section>', html.indexOf(`<section id="s-${id}">`)));
  assert.match(section('cico'), /aria-label="Response time per transaction/);
  assert.match(section('modules'), /aria-label="Module CPU"/);
});

test('chart labels never overlap: step labels take more rows when steps are close; legend names fit their column', () => {
  assert.deepEqual(labelRows([{ x: 0, width: 50 }, { x: 20, width: 50 }, { x: 60, width: 10 }, { x: 200, width: 10 }]), [0, 1, 0, 0]);
  // a search run's two phases per user count start seconds apart; the last label ends at the plot's edge
  const markers = [0, 2, 60, 62, 120].map((s, i) => ({ t: t0 + s * 1000, label: ['1 user, baseline', '1 user, reindex', '20 users, baseline', '20 users, reindex', 'end'][i] }));
  const names = ['GET /search/instances: title all *1randomword', 'keyword', 'contributors', 'subjects', 'authority', 'boolean', 'filter'];
  const svg = lineChart({ title: 't', series: names.map((n) => ({ name: n, points: [[t0, 1], [t0 + 130_000, 2]] })), markers, t0 });
  assertWellFormed(svg);
  const boxes = (cls) => [...svg.matchAll(new RegExp(`<text class="${cls}" x="([\\d.-]+)" y="([\\d.]+)"[^>]*data-width="([\\d.]+)"`, 'g'))].map((m) => ({ x: Number(m[1]), y: Number(m[2]), w: Number(m[3]) }));
  const overlap = (a, b) => a.y === b.y && a.x < b.x + b.w && b.x < a.x + a.w;
  for (const cls of ['step-label', 'legend']) {
    const bx = boxes(cls);
    assert.equal(bx.length, cls === 'legend' ? names.length : markers.length, cls);
    for (let i = 0; i < bx.length; i++) for (let j = i + 1; j < bx.length; j++) assert.ok(!overlap(bx[i], bx[j]), `${cls} ${i} and ${j} overlap: ${JSON.stringify([bx[i], bx[j]])}`);
    for (const b of bx) assert.ok(b.x >= 0 && b.x + b.w <= 560, `${cls} inside the chart: ${JSON.stringify(b)}`);
  }
  assert.match(svg, />GET \/search\/instance[^<]*…</, 'a long name is cut to its column');
});
