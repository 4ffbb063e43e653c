#!/usr/bin/env node
// folio-perf: the one program a user runs (`npx folio-perf`, or bin/folio-perf after make deps).
//   folio-perf run [NAME=VALUE ...]      one run: minifolio or your FOLIO, k6, results/<testid>/
//   folio-perf reset                     minifolio's tenant back to the pre-test state
//   folio-perf report <testid>           the release report of a finished run
//   folio-perf compare <A> <B>           two runs side by side
//   folio-perf baseline <testid>...      a baseline from finished runs
//   folio-perf verdict <testid>          pass/fail over all samples and a baseline (exit 99)
// `folio-perf <command> --help` lists a command's options; each command is a module of tools/cli/
// and make's targets are aliases of these. A user error is one line with the cause and the fix
// and exit 1, never a stack trace.
import { COMMANDS } from './cli/commands.mjs';
import { parseCommand, renderHelp, renderOverview } from './cli/args.mjs';

// Errors that are the user's input or surroundings (a bad setting, an unknown run, InfluxDB away):
// their message already says the cause and the fix.
const USER_ERRORS = new Set(['UsageError', 'ReportError', 'ConfigError', 'TargetError']);

function fail(message) {
  process.stderr.write(`folio-perf: ${message}\n`);
  process.exit(1);
}

const [name, ...args] = process.argv.slice(2);
if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
  const about = name === 'help' && args[0] ? COMMANDS.find((c) => c.name === args[0]) : null;
  if (name === 'help' && args[0] && !about) fail(`unknown command "${args[0]}"; fix: one of ${COMMANDS.map((c) => c.name).join(', ')}`);
  process.stdout.write(about ? renderHelp(about) : renderOverview(COMMANDS));
  process.exit(name === undefined ? 1 : 0);
}
const command = COMMANDS.find((c) => c.name === name);
if (!command) fail(`unknown command "${name}"; fix: one of ${COMMANDS.map((c) => c.name).join(', ')} (folio-perf --help)`);

let code;
try {
  const parsed = parseCommand(command, args);
  if (parsed.help) {
    process.stdout.write(renderHelp(command));
    process.exit(0);
  }
  code = await command.run({ values: parsed.values, positionals: parsed.positionals, env: process.env });
} catch (e) {
  if (USER_ERRORS.has(e?.name)) fail(String(e.message).replace(/^folio-perf: /, ''));
  throw e;
}
process.exit(code);
