// The UI releases whose check-in and check-out screens the CICO workflow can replay, oldest first,
// and which one a run replays: UI_RELEASE when set, otherwise the one that fits what the target
// announces (its platform and module list, lib/platforms.js). Each release is data
// (lib/cico/releases/<name>.js: its steps, the UI module versions it was read from, the backend
// versions it needs); one interpreter (lib/cico/sequence.js) replays them all. Pure.

import { orchid } from './releases/orchid.js';
import { sunflower } from './releases/sunflower.js';
import { trillium } from './releases/trillium.js';
import { atLeast, versionOf, versionParts } from '../platforms.js';

export const UI_RELEASES = Object.freeze([orchid, sunflower, trillium]);
export const UI_RELEASE_NAMES = Object.freeze(UI_RELEASES.map((r) => r.name));

/** The release of that name; throws with the fix for an unknown one. */
export function uiRelease(name) {
  const r = UI_RELEASES.find((x) => x.name === name);
  if (!r) throw new Error(`UI_RELEASE "${name}" is not a UI release the workflow replays; fix: use one of ${UI_RELEASE_NAMES.map((n) => `UI_RELEASE=${n}`).join(', ')}, or unset it to take the target's`);
  return r;
}

/** UI_RELEASE: a release name, or null (unset: the target's, chosen in setup). */
export function parseUiRelease(value) {
  if (value === undefined || value === '') return null;
  return uiRelease(String(value)).name;
}

const UI_MODULE = 'folio_checkout';

/**
 * The release that fits the target: {release, why}. modules: [{name, version}] as the target
 * listed them. 1. The target announces ui-checkout (Okapi lists a tenant's UI modules; Eureka's
 * applications carry uiModules): the release of that major version, or the newest older one.
 * 2. Otherwise the newest release of the target's platform whose backend needs the target meets.
 */
export function defaultUiRelease(platform, modules) {
  const ui = versionOf(modules, UI_MODULE);
  const major = ui && versionParts(ui) ? versionParts(ui)[0] : null;
  if (major !== null) {
    const majorOf = (r) => versionParts(r.ui[UI_MODULE])[0];
    const r = UI_RELEASES.filter((x) => majorOf(x) <= major).at(-1) || UI_RELEASES[0];
    return { release: r.name, why: `the target runs ${UI_MODULE} ${ui}` };
  }
  const own = UI_RELEASES.filter((r) => r.platform === platform);
  const meets = (r) => Object.entries(r.needs).every(([m, v]) => atLeast(versionOf(modules, m), v));
  const fitting = own.filter(meets);
  if (fitting.length) {
    const r = fitting.at(-1);
    const needs = Object.entries(r.needs).map(([m, v]) => `${m} ${versionOf(modules, m)} >= ${v}`);
    return { release: r.name, why: `the target is on ${platform}${needs.length ? ` with ${needs.join(', ')}` : ''}` };
  }
  const r = UI_RELEASES.at(-1);
  return { release: r.name, why: `no release of platform ${platform} fits the target; the newest is replayed` };
}
