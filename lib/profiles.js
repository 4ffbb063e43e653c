// Load profiles (PROFILE) into k6 scenarios, one per user count, run one after another and tagged
// `vus` so the summary can print the release report's rows (1, 5, 8, 20 users). Every profile is
// bounded in time. Each workflow names its own profiles (its descriptor's `profiles`, e.g.
// lib/cico/profiles.js); a profile is { steps, duration, gracefulStop, think, about }. Pure.

export class ProfileError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ProfileError';
  }
}

const DURATION = /^(\d+(\.\d+)?(ms|s|m|h))+$/;
// Hard upper bound on any run so a typo (DURATION=300h) cannot leave load running for days.
export const MAX_TOTAL_MS = 48 * 3600 * 1000;

export function durationMs(text) {
  if (typeof text !== 'string' || !DURATION.test(text)) return null;
  let ms = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    ms += Number(m[1]) * { ms: 1, s: 1000, m: 60000, h: 3600000 }[m[2]];
  }
  return ms;
}

function fmt(ms) {
  return `${Math.round(ms / 1000)}s`;
}

function parseVus(text) {
  const parts = String(text).split(',').map((s) => s.trim());
  const vus = parts.map(Number);
  if (parts.some((p) => !/^\d+$/.test(p)) || vus.some((v) => v < 1 || v > 1000)) {
    throw new ProfileError(`VUS "${text}" is not a user count or a comma list of them; fix: use e.g. VUS=10 or VUS=1,5,8,20 (1..1000)`);
  }
  return vus;
}

/**
 * Scenarios for a profile.
 * @param {string} name PROFILE (default smoke)
 * @param {{vus?: string, duration?: string}} overrides VUS (one count or a comma list) and DURATION
 *   (time at each user count)
 * @param {{profiles: object, phases?: string[], startMs?: number}} opts profiles: the workflow's
 *   profile table; phases: run each user count once per phase, in
 *   this order (scenario `vus_<n>_<phase>`, tagged `phase` too); startMs: when the first step starts
 *   (after a warm-up the workflow runs itself)
 * @returns {{name, steps, durationMs, think, scenarios, windows, totalMs, about}} windows: one per
 *   scenario {key, vus, phase, startMs, durationMs}, for scenarios that run beside a step
 */
export function buildProfile(name, overrides, { profiles, phases = null, startMs = 0 }) {
  const pname = name === undefined || name === '' ? 'smoke' : name;
  const p = Object.prototype.hasOwnProperty.call(profiles, pname) ? profiles[pname] : undefined;
  if (!p) throw new ProfileError(`PROFILE "${name}" is unknown; fix: use one of ${Object.keys(profiles).join(', ')}`);
  const steps = overrides.vus ? parseVus(overrides.vus) : p.steps;
  const dur = overrides.duration || p.duration;
  const stepMs = durationMs(dur);
  if (stepMs === null || stepMs < 1000) throw new ProfileError(`DURATION "${dur}" is not a duration of at least 1s; fix: use e.g. DURATION=90s, 5m or 1h30m`);
  const graceMs = durationMs(p.gracefulStop);
  const scenarios = {};
  const windows = [];
  let start = startMs;
  for (const v of steps) {
    for (const phase of phases || [null]) {
      // Each step waits for the previous one's graceful stop, so a row of the report has exactly
      // its user count; the scenario tag `vus` labels every sample for the per-row sub-metrics.
      const base = phase ? `vus_${v}_${phase}` : `vus_${v}`;
      const key = scenarios[base] ? `${base}_${start / 1000}` : base;
      scenarios[key] = {
        executor: 'constant-vus',
        vus: v,
        duration: fmt(stepMs),
        startTime: fmt(start),
        gracefulStop: p.gracefulStop,
        tags: phase ? { vus: String(v), phase } : { vus: String(v) },
      };
      windows.push({ key, vus: v, phase, startMs: start, durationMs: stepMs });
      start += stepMs + graceMs;
    }
  }
  if (start > MAX_TOTAL_MS) throw new ProfileError(`PROFILE ${pname} with DURATION=${dur} would run ${Math.round(start / 3600000)} h; fix: keep a run under 48 h`);
  return { name: pname, steps, durationMs: stepMs, think: p.think, scenarios, windows, totalMs: start, about: p.about };
}
