// The report as one self-contained HTML page: inline CSS, inline SVG charts, no script, no
// network, no external asset. Pure.
import { htmlEscape as esc } from './format.mjs';

const CSS = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222; margin: 0 auto; max-width: 1180px; padding: 16px 24px; }
h1 { font-size: 22px; margin: 8px 0 12px; } h2 { font-size: 18px; border-bottom: 1px solid #ccc; padding-bottom: 4px; margin-top: 28px; }
.note { background: #fff6d6; border-left: 4px solid #e0b000; padding: 6px 10px; margin: 8px 0; }
.tbl { overflow-x: auto; margin: 10px 0 18px; }
table { border-collapse: collapse; font-size: 13px; }
caption { text-align: left; font-weight: 600; padding: 4px 0; caption-side: top; }
th, td { border: 1px solid #d6d6d6; padding: 3px 8px; white-space: nowrap; }
/* Name columns (templates, APIs, SQL statements) wrap, anywhere in a long identifier, so a wide table still fits the page. */
.wrap { white-space: normal; min-width: 12em; overflow-wrap: anywhere; }
th { background: #f1f3f5; } td.r, th.r { text-align: right; font-variant-numeric: tabular-nums; }
tr:nth-child(even) td { background: #fafafa; }
.src { font-size: 11px; color: #666; margin-top: 2px; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; margin: 10px 0 18px; }
.charts svg { max-width: 100%; height: auto; border: 1px solid #e3e3e3; background: #fff; }
.empty { font-style: italic; color: #555; }
code { font-size: 12px; word-break: break-all; }
footer { margin-top: 28px; font-size: 12px; color: #555; }
footer li { margin: 2px 0; }
`;

function table(b) {
  const cls = (c) => {
    const k = [c?.align === 'r' ? 'r' : '', c?.wrap ? 'wrap' : ''].filter(Boolean).join(' ');
    return k ? ` class="${k}"` : '';
  };
  const head = b.columns.map((c) => `<th${cls(c)}>${esc(c.label)}</th>`).join('');
  const body = b.rows.map((r) => `<tr>${r.map((v, i) => `<td${cls(b.columns[i])}>${esc(v)}</td>`).join('')}</tr>`).join('\n');
  const src = b.source ? `<div class="src">Source: ${esc(b.source)}</div>` : '';
  if (b.rows.length === 0) return `<div class="tbl" id="${esc(b.id || '')}"><p><strong>${esc(b.caption)}</strong></p><p class="empty">${esc(b.empty || 'No rows.')}</p>${src}</div>`;
  return `<div class="tbl"><table id="${esc(b.id || '')}"><caption>${esc(b.caption)}</caption><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>${src}</div>`;
}

function block(b) {
  if (b.type === 'table') return table(b);
  if (b.type === 'text') return `<p>${esc(b.text)}</p>`;
  // The SVG strings come from charts-svg.mjs, which escapes every text it puts in.
  if (b.type === 'charts') return `<div class="charts">${b.items.map((c) => c.svg).join('\n')}</div>`;
  throw new Error(`unknown block type ${b.type}`);
}

export function renderHtml(doc) {
  const out = [];
  out.push('<!DOCTYPE html>', '<html lang="en">', '<head>', '<meta charset="utf-8">', `<title>${esc(doc.title)}</title>`);
  // No network: a Content-Security-Policy that allows only what is inline.
  out.push(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`);
  out.push(`<style>${CSS}</style>`, '</head>', '<body>', `<h1>${esc(doc.title)}</h1>`);
  for (const n of doc.notes || []) out.push(`<p class="note">${esc(n)}</p>`);
  for (const s of doc.sections) {
    out.push(`<section id="${esc(s.id)}">`, `<h2>${esc(s.title)}</h2>`);
    for (const b of s.blocks) out.push(block(b));
    out.push('</section>');
  }
  out.push('<footer>', '<h2>Sources</h2>', '<ol>');
  for (const q of doc.sources || []) out.push(`<li><strong>${esc(q.id)}</strong>: <code>${esc(q.text)}</code></li>`);
  out.push('</ol>', `<p>${esc(doc.footer || '')}</p>`, '</footer>', '</body>', '</html>', '');
  return out.join('\n');
}
