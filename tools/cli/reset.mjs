// `folio-perf reset`: the stack's minifolio tenant back to the pre-test state (every loan gone,
// every item Available), as a run does before it starts and as PTF restored its database before
// every test. Only minifolio: on a real FOLIO it refuses, since the restore ends every loan of the
// tenant, staff's and patrons' alike.
import { UsageError } from './args.mjs';
import { stackDefaults, ROOT } from './stack-defaults.mjs';
import { isExternal, externalName } from '../run/target.mjs';
import { runChild } from '../run/children.mjs';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const command = {
  name: 'reset',
  summary: "minifolio's tenant back to the pre-test state (after a double Ctrl-C on the local stack)",
  usage: '[--tenant <t>] [--keep-events]',
  about:
    "Ends every loan of the tenant and makes every item Available on this stack's minifolio (bin/minifolio reset on the " +
    "stack's database), as every run does before it starts. Refused when FOLIO_URL or FOLIO_ENV names another FOLIO: there, " +
    'check in the items the run listed when it ended.',
  positionals: { max: 0 },
  options: {
    tenant: { type: 'string', value: '<t>', help: "the tenant (default the stack's, fs09000000)" },
    'keep-events': { type: 'boolean', help: "keep the patron-block events of the ended loans, as PTF's restore SQL does" },
  },
  async run({ values, env }) {
    if (isExternal(env)) {
      throw new UsageError(`reset restores this stack's minifolio only, and ${externalName(env)} is named by FOLIO_URL/FOLIO_ENV; fix: on a real FOLIO check in the items the run listed at its end (never a restore SQL: it ends every loan of the tenant), or unset FOLIO_URL and FOLIO_ENV to reset minifolio`);
    }
    const minifolio = join(ROOT, 'bin', 'minifolio');
    if (!existsSync(minifolio)) throw new UsageError('bin/minifolio is not built; fix: make minifolio');
    const d = stackDefaults(env);
    const args = ['reset', '--tenant', values.tenant || d.FP_TENANT];
    if (values['keep-events']) args.push('--keep-events');
    return (await runChild(minifolio, args, { env: { ...env, MINIFOLIO_DB: d.MINIFOLIO_DB } })).code;
  },
};
