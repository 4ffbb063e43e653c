// The report as Markdown that a wiki renders unchanged (GitHub, Confluence's Markdown import): plain
// CommonMark and GitHub tables, no HTML tags, every special character of a name escaped. Tables
// are numbered ("Table 3."), and each finding of the Summary names the table and row it came from
// (HTML links them; a wiki page keeps the same words). Charts are SVG and live in report.html;
// the Markdown names them. Pure.
import { mdCell } from './format.mjs';
import { tablesById, rowIndex, citation } from './doc.mjs';

function table(b) {
  const out = [`**${b.number ? `Table ${b.number}. ` : ''}${mdCell(b.caption)}**`, ''];
  if (b.rows.length === 0) {
    out.push(`_${mdCell(b.empty || 'No rows.')}_`);
  } else {
    out.push(`| ${b.columns.map((c) => mdCell(c.label)).join(' | ')} |`);
    out.push(`|${b.columns.map((c) => (c.align === 'r' ? '---:' : '---')).join('|')}|`);
    for (const r of b.rows) out.push(`| ${r.map(mdCell).join(' | ')} |`);
  }
  if (b.source) out.push('', `_Source: ${mdCell(b.source)}_`);
  return out.join('\n');
}

/**
 * A finding's text: `code` spans and **bold** as written; everything else escaped as a table
 * cell is (no HTML, no stray pipe).
 */
export function mdInline(text) {
  return String(text)
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith('`') && part.endsWith('`') && part.length > 1 ? part : mdCell(part).replace(/\\\|/g, '|')))
    .join('');
}

/** "(Table 4, row “20, check-out”)" for a finding. */
export function cite(item, byId) {
  const b = byId.get(item.table);
  if (!b) throw new Error(`finding of rule ${item.rule} cites table ${item.table}, which the report does not have`);
  const i = item.row === undefined ? -1 : rowIndex(b, item.row);
  if (item.row !== undefined && i < 0) throw new Error(`finding of rule ${item.rule} cites row ${item.row} of ${item.table}, which has no such row`);
  return { b, i, text: citation(b, i) };
}

function findings(items, byId) {
  return items
    .map((it) => (it.cannot ? `- _Not judged: ${mdInline(it.title)}: ${mdInline(it.cannot)}._` : `- ${mdInline(it.text)} (${mdCell(cite(it, byId).text)})`))
    .join('\n');
}

function block(b, byId) {
  if (b.type === 'table') return table(b);
  if (b.type === 'text') return mdCell(b.text);
  if (b.type === 'findings') return findings(b.items, byId);
  if (b.type === 'charts') return b.items.map((c) => `- Chart: ${mdCell(c.title)} (in report.html)`).join('\n');
  throw new Error(`unknown block type ${b.type}`);
}

export function renderMarkdown(doc) {
  const byId = tablesById(doc);
  const out = [`# ${mdCell(doc.title)}`, ''];
  for (const n of doc.notes || []) out.push(`> ${mdCell(n)}`, '');
  for (const s of doc.sections) {
    out.push(`## ${mdCell(s.title)}`, '');
    for (const b of s.blocks) out.push(block(b, byId), '');
  }
  out.push('## Sources', '');
  for (const q of doc.sources || []) out.push(`- ${mdCell(q.id)}: \`${q.text.replace(/`/g, "'")}\``);
  out.push('', `_${mdCell(doc.footer || '')}_`, '');
  return out.join('\n');
}
