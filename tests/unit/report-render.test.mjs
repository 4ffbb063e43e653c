// The report's pages: SVG charts well-formed and carrying their series, Markdown and HTML escaping
// of names with <, ", |, and the HTML page self-contained (no script, no network).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lineChart, niceTicks } from '../../tools/report/charts-svg.mjs';
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
  // nothing to fetch: no script, no src/href, no URL but the SVG namespace
  assert.doesNotMatch(html, /<script|\ssrc=|\shref=|@import|url\(/i);
  assert.deepEqual([...new Set(html.match(/https?:\/\/[^\s"']+/g))], ['http://www.w3.org/2000/svg']);
  assert.equal(htmlEscape(`<'&">`), '&lt;&#39;&amp;&quot;&gt;');
});
