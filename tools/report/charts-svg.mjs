// Line charts as inline SVG strings (no script, no external asset): one <path class="series">
// per series with its points, dashed vertical markers for the user-count steps, axes with a few
// ticks, and a legend. Pure; the HTML renderer embeds the string as it is.
import { htmlEscape as esc } from './format.mjs';

// 14 distinct colours: a minifolio stack has 12 processes in module_stats.
const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22', '#393b79', '#e7ba52', '#637939', '#ad494a'];

// 1, 2, 5 x 10^n steps for about `n` ticks up to max.
export function niceTicks(max, n = 4) {
  if (!(max > 0)) return [0, 1];
  const raw = max / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  const ticks = [];
  for (let v = 0; v <= max + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  if (ticks[ticks.length - 1] < max) ticks.push(Number((ticks[ticks.length - 1] + step).toPrecision(12)));
  return ticks;
}

// Text widths are estimated, not measured (no layout engine here): an average glyph of a sans-serif
// font is about 0.6 of its size; labels are placed so that the estimates never overlap.
export const textWidth = (text, fontSize) => String(text).length * fontSize * 0.6;

/**
 * Rows for labels at x positions (sorted by x) so that no two in a row overlap: each label goes
 * into the first row whose last label ends before it starts. Returns each label's row.
 */
export function labelRows(items, gap = 4) {
  const ends = [];
  return items.map(({ x, width }) => {
    let r = ends.findIndex((end) => end + gap <= x);
    if (r < 0) {
      r = ends.length;
      ends.push(0);
    }
    ends[r] = x + width;
    return r;
  });
}

const fmtTick = (v) => (Math.abs(v) >= 1000 ? `${(v / 1000).toFixed(v % 1000 ? 1 : 0)}k` : String(Number(v.toPrecision(3))));
const mmss = (ms) => {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

/**
 * @param {object} c
 * @param {string} c.title
 * @param {string} c.unit the y axis' unit (shown in the title)
 * @param {Array<{name: string, points: Array<[number, number]>}>} c.series epoch ms, value
 * @param {Array<{t: number, label: string}>} [c.markers] vertical lines (user-count steps)
 * @param {number} [c.t0] the x axis' origin (run start), epoch ms
 * @param {number} [c.gapFactor] points further apart than this many times the series' median
 *   spacing are not joined (the pause between two steps), whatever the series' sampling period
 */
export function lineChart({ title, unit = '', series, markers = [], t0, gapFactor = 3, width = 560, height = 260 }) {
  const pad = { l: 52, r: 12, t: 28, b: 34 };
  const legendRows = Math.ceil(series.length / 3);
  const h = height + 6 + legendRows * 16;
  const pw = width - pad.l - pad.r;
  const ph = height - pad.t - pad.b;
  const all = series.flatMap((s) => s.points);
  const ts = [...all.map((p) => p[0]), ...markers.map((m) => m.t)];
  const tMin = t0 ?? (ts.length ? Math.min(...ts) : 0);
  const tMax = ts.length ? Math.max(...ts, tMin + 1000) : tMin + 1000;
  const yTicks = niceTicks(all.length ? Math.max(...all.map((p) => p[1])) : 0);
  const yMax = yTicks[yTicks.length - 1];
  const x = (t) => pad.l + ((t - tMin) / (tMax - tMin)) * pw;
  const y = (v) => pad.t + ph - (v / yMax) * ph;
  const r1 = (v) => Math.round(v * 10) / 10;

  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 ${width} ${h}" width="${width}" height="${h}" role="img" aria-label="${esc(title)}">`);
  out.push(`<title>${esc(title)}</title>`);
  out.push(`<text x="${pad.l}" y="16" class="chart-title" font-size="13" font-weight="bold">${esc(title)}${unit ? ` (${esc(unit)})` : ''}</text>`);
  for (const v of yTicks) {
    out.push(`<line x1="${pad.l}" x2="${pad.l + pw}" y1="${r1(y(v))}" y2="${r1(y(v))}" stroke="#ddd" stroke-width="1"/>`);
    out.push(`<text x="${pad.l - 4}" y="${r1(y(v)) + 4}" font-size="10" text-anchor="end">${fmtTick(v)}</text>`);
  }
  const xTicks = 5;
  for (let i = 0; i <= xTicks; i++) {
    const t = tMin + ((tMax - tMin) * i) / xTicks;
    out.push(`<text x="${r1(x(t))}" y="${pad.t + ph + 14}" font-size="10" text-anchor="middle">${mmss(t - tMin)}</text>`);
  }
  out.push(`<text x="${pad.l + pw / 2}" y="${pad.t + ph + 28}" font-size="10" text-anchor="middle">minutes:seconds since the start</text>`);
  out.push(`<line x1="${pad.l}" x2="${pad.l}" y1="${pad.t}" y2="${pad.t + ph}" stroke="#444"/>`);
  out.push(`<line x1="${pad.l}" x2="${pad.l + pw}" y1="${pad.t + ph}" y2="${pad.t + ph}" stroke="#444"/>`);
  // Step labels in as many rows as it takes for none to overlap another (steps close in time, a
  // search run's two phases of one user count).
  // A label that would run past the plot's right edge goes to the left of its line.
  const marks = markers
    .map((m) => {
      const line = r1(x(m.t));
      const width = textWidth(m.label, 10);
      return { ...m, line, width, x: line + 3 + width > pad.l + pw ? r1(line - 3 - width) : line + 3 };
    })
    .sort((a, b) => a.x - b.x);
  const rows = labelRows(marks);
  marks.forEach((m, i) => {
    out.push(`<line class="step" x1="${m.line}" x2="${m.line}" y1="${pad.t}" y2="${pad.t + ph}" stroke="#888" stroke-dasharray="4 3"/>`);
    out.push(`<text class="step-label" x="${m.x}" y="${pad.t + 10 + rows[i] * 11}" font-size="10" fill="#555" data-width="${r1(m.width)}">${esc(m.label)}</text>`);
  });
  series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length];
    const pts = [...s.points].sort((a, b) => a[0] - b[0]);
    const gapMs = gapFactor * medianSpacing(pts);
    const d = pts.map(([t, v], j) => `${j && t - pts[j - 1][0] <= gapMs ? 'L' : 'M'}${r1(x(t))} ${r1(y(v))}`).join(' ');
    out.push(`<path class="series" data-series="${esc(s.name)}" data-points="${pts.length}" d="${d}" fill="none" stroke="${color}" stroke-width="1.5"/>`);
    // A lone point draws no line: mark it.
    if (pts.length === 1) out.push(`<circle cx="${r1(x(pts[0][0]))}" cy="${r1(y(pts[0][1]))}" r="2.5" fill="${color}"/>`);
    const col = Math.floor(pw / 3);
    const lx = pad.l + (i % 3) * col;
    const ly = height + 12 + Math.floor(i / 3) * 16;
    // A name fits its legend column: cut (with …) where it would run into the next one.
    const name = truncate(s.name, Math.floor((col - 14 - 6) / (11 * 0.6)));
    out.push(`<rect x="${lx}" y="${ly - 8}" width="10" height="10" fill="${color}"/>`);
    out.push(`<text class="legend" x="${lx + 14}" y="${ly + 1}" font-size="11" data-width="${r1(textWidth(name, 11))}">${esc(name)}</text>`);
  });
  if (series.length === 0) out.push(`<text x="${pad.l + pw / 2}" y="${pad.t + ph / 2}" text-anchor="middle" font-size="12">no data</text>`);
  out.push('</svg>');
  return out.join('\n');
}

function medianSpacing(pts) {
  const d = pts.slice(1).map((p, i) => p[0] - pts[i][0]).sort((a, b) => a - b);
  return d.length ? d[Math.floor(d.length / 2)] : Infinity;
}

const truncate = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
