// The report as one self-contained HTML page: inline CSS, inline SVG charts, no script, no
// network, no external asset (links only to its own rows). One column that prints as it reads:
// each section starts a page, a table row or a chart is never cut. Pure.
import { htmlEscape as esc } from './format.mjs';
import { tablesById, rowAnchor, tableAnchor } from './doc.mjs';
import { cite } from './render-md.mjs';

const CSS = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222; margin: 0 auto; max-width: 1180px; padding: 16px 24px; }
h1 { font-size: 20px; margin: 8px 0 10px; } h2 { font-size: 18px; border-bottom: 1px solid #ccc; padding-bottom: 4px; margin-top: 28px; }
.note { background: #fff6d6; border-left: 4px solid #e0b000; padding: 6px 10px; margin: 8px 0; }
#s-summary h2 { margin-top: 8px; }
ul.findings { margin: 6px 0 14px; padding-left: 20px; } ul.findings li { margin: 2px 0; }
ul.findings li.cannot { color: #555; font-style: italic; }
ul.findings li.bad strong { color: #b00020; } ul.findings li.good strong { color: #1b7a2f; }
ul.findings a { color: #555; font-size: 12px; white-space: nowrap; }
.tbl { overflow-x: auto; margin: 10px 0 18px; }
table { border-collapse: collapse; font-size: 13px; }
caption { text-align: left; font-weight: 600; padding: 4px 0; caption-side: top; }
th, td { border: 1px solid #d6d6d6; padding: 3px 8px; white-space: nowrap; }
/* Name columns (templates, APIs, SQL statements) wrap, anywhere in a long identifier, so a wide table still fits the page. */
.wrap { white-space: normal; min-width: 12em; overflow-wrap: anywhere; }
th { background: #f1f3f5; } td.r, th.r { text-align: right; font-variant-numeric: tabular-nums; }
tr:nth-child(even) td { background: #fafafa; }
tr:target td { background: #fff3b0; }
.src { font-size: 11px; color: #666; margin-top: 2px; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; margin: 10px 0 18px; }
.charts svg { max-width: 100%; height: auto; border: 1px solid #e3e3e3; background: #fff; }
.empty { font-style: italic; color: #555; }
code { font-size: 12px; word-break: break-all; }
footer { margin-top: 28px; font-size: 12px; color: #555; }
footer li { margin: 2px 0; }
@media print {
  body { max-width: none; padding: 0; font-size: 11px; }
  section, footer { break-before: page; }
  section#s-summary { break-before: auto; }
  .tbl { overflow: visible; }
  th, td { white-space: normal; }
  tr, .charts svg, ul.findings li { break-inside: avoid; }
  thead { display: table-header-group; }
  .charts { display: block; }
  .charts svg { display: block; margin: 0 0 12px; }
  a { color: inherit; text-decoration: none; }
}
`;

function table(b) {
  const cls = (c) => {
    const k = [c?.align === 'r' ? 'r' : '', c?.wrap ? 'wrap' : ''].filter(Boolean).join(' ');
    return k ? ` class="${k}"` : '';
  };
  const title = `${b.number ? `Table ${b.number}. ` : ''}${b.caption}`;
  const head = b.columns.map((c) => `<th${cls(c)}>${esc(c.label)}</th>`).join('');
  const body = b.rows.map((r, i) => `<tr id="${esc(rowAnchor(b, i))}">${r.map((v, j) => `<td${cls(b.columns[j])}>${esc(v)}</td>`).join('')}</tr>`).join('\n');
  const src = b.source ? `<div class="src">Source: ${esc(b.source)}</div>` : '';
  if (b.rows.length === 0) return `<div class="tbl" id="${esc(tableAnchor(b))}"><p><strong>${esc(title)}</strong></p><p class="empty">${esc(b.empty || 'No rows.')}</p>${src}</div>`;
  return `<div class="tbl"><table id="${esc(tableAnchor(b))}"><caption>${esc(title)}</caption><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>${src}</div>`;
}

/** A finding's text as HTML: escaped, `code` and **bold** as elements. */
export function htmlInline(text) {
  return esc(text)
    .replace(/`([^`]*)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
}

function findings(items, byId) {
  const li = items.map((it) => {
    if (it.cannot) return `<li class="cannot">Not judged: ${htmlInline(it.title)}: ${htmlInline(it.cannot)}.</li>`;
    const c = cite(it, byId);
    const href = c.i >= 0 ? rowAnchor(c.b, c.i) : tableAnchor(c.b);
    return `<li${it.tone ? ` class="${it.tone}"` : ''}>${htmlInline(it.text)} <a href="#${esc(href)}">(${esc(c.text)})</a></li>`;
  });
  return `<ul class="findings">\n${li.join('\n')}\n</ul>`;
}

function block(b, byId) {
  if (b.type === 'table') return table(b);
  if (b.type === 'text') return `<p>${esc(b.text)}</p>`;
  if (b.type === 'findings') return findings(b.items, byId);
  // The SVG strings come from charts-svg.mjs, which escapes every text it puts in.
  if (b.type === 'charts') return `<div class="charts">${b.items.map((c) => c.svg).join('\n')}</div>`;
  throw new Error(`unknown block type ${b.type}`);
}

export function renderHtml(doc) {
  const byId = tablesById(doc);
  const out = [];
  out.push('<!DOCTYPE html>', '<html lang="en">', '<head>', '<meta charset="utf-8">', `<title>${esc(doc.title)}</title>`);
  // No network: a Content-Security-Policy that allows only what is inline.
  out.push(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`);
  out.push(`<style>${CSS}</style>`, '</head>', '<body>', `<h1>${esc(doc.title)}</h1>`);
  for (const n of doc.notes || []) out.push(`<p class="note">${esc(n)}</p>`);
  for (const s of doc.sections) {
    // Sections are "s-<id>": a table may carry its section's name (the setup table, the modules table).
    out.push(`<section id="s-${esc(s.id)}">`, `<h2>${esc(s.title)}</h2>`);
    for (const b of s.blocks) out.push(block(b, byId));
    out.push('</section>');
  }
  out.push('<footer>', '<h2>Sources</h2>', '<ol>');
  for (const q of doc.sources || []) out.push(`<li><strong>${esc(q.id)}</strong>: <code>${esc(q.text)}</code></li>`);
  out.push('</ol>', `<p>${esc(doc.footer || '')}</p>`, '</footer>', '</body>', '</html>', '');
  return out.join('\n');
}
