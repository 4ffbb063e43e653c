// The check-in/check-out workflow as the runner (lib/k6/run.js) sees it: its profiles, the
// settings it reads beside the common ones, what its thresholds section needs, its report module
// and its one-line description. Pure. Its k6 lifecycle is lib/k6/cico.js.

import { PROFILES } from '../cico/profiles.js';
import { parseDistribution, CHECK_IN, CHECK_OUT } from '../cico/transactions.js';
import { vuSlots } from '../cico/data.js';
import { CICO_API_NAMES } from '../cico/api.js';
import { parseThink } from '../think.js';
import { describeConfig } from '../config.js';
import { parseFlag } from '../settings.js';
import { parseUiRelease } from '../cico/releases.js';
import { parsePlatform } from '../platforms.js';

// Items per VU and pool: enough for a VU never to run dry (items cycle back on check-in) while
// keeping the test-data query small.
function parsePerVu(v) {
  if (v === undefined || v === '') return 50;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 100000) throw new Error(`POOL_PER_VU "${v}" is not a count; fix: use e.g. POOL_PER_VU=50`);
  return n;
}

export const cico = {
  name: 'cico',
  // The entry script, relative to the repository (tools/workflows.mjs finds it here).
  script: 'scripts/check-in-check-out.js',
  profiles: PROFILES,
  phases: null,
  // resolveConfig's options: CICO loads test data (DATA=db or csv:<dir>).
  config: {},
  baselines: true,
  // Loaded by VU 0 only, relative to lib/k6/run.js (see planRun there).
  report: '../cico/summary.js',

  settings(env, profile) {
    return {
      think: parseThink(env.THINK || profile.think, env.THINK_OFFSET),
      distribution: parseDistribution(env.DISTRIBUTION),
      preflight: parseFlag(env.PREFLIGHT, 'PREFLIGHT'),
      slots: vuSlots(profile.scenarios),
      perVu: parsePerVu(env.POOL_PER_VU),
      // null: taken from the target in setup (lib/cico/releases.js defaultUiRelease).
      uiRelease: parseUiRelease(env.UI_RELEASE),
      platform: parsePlatform(env.PLATFORM),
    };
  },

  // What lib/thresholds.js needs besides thresholds.json's section.
  thresholdInputs(run) {
    return { vus: [...new Set(run.profile.steps)], transactions: [CHECK_IN, CHECK_OUT], apiNames: CICO_API_NAMES, extra: [] };
  },

  describe(run, env) {
    const { cfg, profile, distribution, preflight, uiRelease, platform } = run;
    return `${describeConfig(cfg)} profile=${profile.name} (${profile.steps.join('/')} VUs x ${profile.durationMs / 1000}s each) think=${env.THINK || profile.think} distribution=${distribution.checkIn}-${distribution.checkOut} preflight=${preflight} ui-release=${uiRelease || 'target'} platform=${platform || 'target'}${env.BASELINE ? ` baseline=${env.BASELINE}` : ''}`;
  },
};
