// The subcommands of folio-perf, in the order `folio-perf --help` lists them.
import { command as run } from './run.mjs';
import { command as reset } from './reset.mjs';
import { command as report } from './report.mjs';
import { command as compare } from './compare.mjs';
import { command as baseline } from './baseline.mjs';
import { command as verdict } from './verdict.mjs';

export const COMMANDS = [run, reset, report, compare, baseline, verdict];
