// The command line of folio-perf: each subcommand declares its options once (node:util parseArgs
// takes them as they are) with a line of help each, and this module parses argv against them and
// renders `folio-perf <command> --help` from the same declaration. Pure: errors are UsageErrors
// whose message is the cause and the fix in one line; the entry point prints them.
import { parseArgs } from 'node:util';

export class UsageError extends Error {
  constructor(message) {
    super(message);
    this.name = 'UsageError';
  }
}

const HELP = { help: { type: 'boolean', short: 'h', help: 'this help' } };

/**
 * Parses args for one command: { values, positionals, help }.
 * command: { name, usage, options: {name: {type, multiple?, short?, value?, help}}, positionals: {min, max} }
 */
export function parseCommand(command, args) {
  const options = { ...(command.options || {}), ...HELP };
  const spec = Object.fromEntries(Object.entries(options).map(([k, o]) => [k, { type: o.type, ...(o.multiple ? { multiple: true } : {}), ...(o.short ? { short: o.short } : {}) }]));
  let parsed;
  try {
    parsed = parseArgs({ args, options: spec, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(`${command.name}: ${cleanParseError(e)}; fix: ${usageLine(command)} (folio-perf ${command.name} --help)`);
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true, values, positionals };
  const { min = 0, max = Infinity, what = 'arguments' } = command.positionals || {};
  if (positionals.length < min || positionals.length > max) {
    const want = min === max ? `${min}` : max === Infinity ? `${min} or more` : `${min} to ${max}`;
    throw new UsageError(`${command.name} takes ${want} ${what}, got ${positionals.length}; fix: ${usageLine(command)} (folio-perf ${command.name} --help)`);
  }
  return { help: false, values, positionals };
}

// parseArgs' messages name the option and say what is wrong; its advice about '--' does not fit
// here (no command takes values that start with a dash).
function cleanParseError(e) {
  const msg = String(e.message || e).split('\n')[0];
  return msg.replace(/\. To specify a positional argument.*$/, '').replace(/\.$/, '');
}

export function usageLine(command) {
  return `folio-perf ${command.name} ${command.usage}`.trim();
}

/** `folio-perf <command> --help`: usage, what it does, each option with its help line. */
export function renderHelp(command) {
  const options = { ...(command.options || {}), ...HELP };
  const rows = Object.entries(options).map(([k, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : ''}--${k}${o.type === 'string' ? ` ${o.value || '<value>'}` : ''}`;
    return [flag, `${o.help}${o.multiple ? ' (may repeat)' : ''}`];
  });
  const lines = [`usage: ${usageLine(command)}`, '', ...wrap(command.about, 0)];
  if (command.details) lines.push('', ...command.details);
  lines.push('', 'options:', ...renderRows(rows));
  return `${lines.join('\n')}\n`;
}

/** Two columns, the second wrapped under itself: [[left, right], ...] -> lines. */
export function renderRows(rows) {
  const width = Math.min(30, Math.max(...rows.map(([f]) => f.length)));
  return rows.flatMap(([f, h]) => wrapOption(f, h, width));
}

/** `folio-perf --help`: the commands, one line each. */
export function renderOverview(commands) {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = ['usage: folio-perf <command> [arguments]   (folio-perf <command> --help for its options)', '', 'commands:'];
  for (const c of commands) lines.push(`  ${c.name.padEnd(width)}  ${c.summary}`);
  lines.push('', 'Errors: one line with the cause and the fix, exit 1. docs/cli.md has the whole reference.');
  return `${lines.join('\n')}\n`;
}

const WIDTH = 100;

function wrap(text, indent) {
  const out = [];
  let line = '';
  for (const word of String(text || '').split(/\s+/).filter(Boolean)) {
    if (line && indent + line.length + 1 + word.length > WIDTH) {
      out.push(' '.repeat(indent) + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(' '.repeat(indent) + line);
  return out;
}

function wrapOption(flag, help, width) {
  const body = wrap(help, width + 4);
  if (body.length === 0) return [`  ${flag}`];
  // A left column wider than the others gets a line of its own.
  if (flag.length > width) return [`  ${flag}`, ...body];
  body[0] = `  ${flag.padEnd(width)}  ${body[0].trimStart()}`;
  return body;
}
