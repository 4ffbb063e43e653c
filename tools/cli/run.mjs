// `folio-perf run`: one run, start to finish (tools/run/run.mjs). Settings are NAME=VALUE
// arguments or the same names in the environment; passwords only from the environment.
import { RUN_SETTINGS, settingsFromArgs } from '../run/settings.mjs';
import { renderRows } from './args.mjs';

export const command = {
  name: 'run',
  summary: 'one run: minifolio (or your FOLIO), k6, results/<testid>/ (exit 0, 99, 105, 108, 96)',
  usage: '[NAME=VALUE ...]',
  about:
    'Builds what the run needs and starts the stack (make run-deps), restarts, seeds and resets minifolio (not when FOLIO_URL ' +
    'or FOLIO_ENV names your FOLIO), logs in once, runs k6 with every sample going to InfluxDB, and writes results/<testid>/. ' +
    'Exit: 0 passed, 99 a threshold failed, 105 interrupted, 108 setup or login failed, 96 samples lost (SAMPLE_LOSS=fail), ' +
    '1 a bad setting. Ctrl-C stops the load and checks in what the run checked out; a second Ctrl-C skips that, and the run ' +
    'then names what it left. Passwords (FOLIO_PASSWORD, FOLIO_DB_PASSWORD) only from the environment: as arguments they are refused.',
  details: [
    'settings (NAME=VALUE, or the environment):',
    ...renderRows(RUN_SETTINGS.map(([n, d, h]) => [n, `${h} (default ${d})`])),
    "  The workflows' own settings (THINK, DATA, CHECKIN_POOL, REINDEX_TENANT, ...) reach k6 unchanged: docs/cli.md.",
  ],
  positionals: { what: 'settings' },
  options: {},
  async run({ positionals, env }) {
    const settings = settingsFromArgs(positionals);
    const { runCommand } = await import('../run/run.mjs');
    return runCommand({ ...env, ...settings });
  },
};
