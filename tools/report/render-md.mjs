// The report as Markdown (GitHub-flavoured tables). Charts are SVG and live in report.html; the
// Markdown names them. Pure.
import { mdCell } from './format.mjs';

function table(b) {
  const out = [`**${mdCell(b.caption)}**`, ''];
  if (b.rows.length === 0) {
    out.push(`_${mdCell(b.empty || 'No rows.')}_`);
  } else {
    out.push(`| ${b.columns.map((c) => mdCell(c.label)).join(' | ')} |`);
    out.push(`|${b.columns.map((c) => (c.align === 'r' ? '---:' : '---')).join('|')}|`);
    for (const r of b.rows) out.push(`| ${r.map(mdCell).join(' | ')} |`);
  }
  if (b.source) out.push('', `<sub>Source: ${mdCell(b.source)}</sub>`);
  return out.join('\n');
}

function block(b) {
  if (b.type === 'table') return table(b);
  if (b.type === 'text') return mdCell(b.text);
  if (b.type === 'charts') return b.items.map((c) => `- Chart: ${mdCell(c.title)} (in report.html)`).join('\n');
  throw new Error(`unknown block type ${b.type}`);
}

export function renderMarkdown(doc) {
  const out = [`# ${mdCell(doc.title)}`, ''];
  for (const n of doc.notes || []) out.push(`> ${mdCell(n)}`, '');
  for (const s of doc.sections) {
    out.push(`## ${mdCell(s.title)}`, '');
    for (const b of s.blocks) out.push(block(b), '');
  }
  out.push('## Sources', '');
  for (const q of doc.sources || []) out.push(`- ${mdCell(q.id)}: \`${q.text.replace(/`/g, "'")}\``);
  out.push('', `_${mdCell(doc.footer || '')}_`, '');
  return out.join('\n');
}
