// What a run learns from the target before its first user: the platform (Okapi's module list or
// Eureka's entitlements), the UI release whose screens it replays, mod-search's reindex API, and
// which searched index is empty. Answers shaped as Okapi (/_/proxy/tenants/{t}/modules) and
// mgr-tenant-entitlements (GET /entitlements/{t}/applications) write them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { platformOfRecord, atLeast, parsePlatform, platform } from '../../lib/platforms.js';
import { buildRecord, splitModuleId } from '../../lib/record.js';
import { defaultUiRelease, parseUiRelease } from '../../lib/cico/releases.js';
import { reindexApiFor } from '../../lib/search/reindex.js';
import { emptyIndexes, emptyIndexWarning, INDEX_PATHS, indexCount } from '../../lib/search/templates.js';
import { tokenHeaders, refreshCookie } from '../../lib/auth.js';
import { derive, call } from '../../lib/cico/sequence.js';

const okapiList = (ids) => ({ status: 200, body: ids.map((id) => ({ id })) });
const entitlements = (apps) => ({
  status: 200,
  body: {
    applicationDescriptors: apps.map(([name, version, modules, ui = []]) => ({
      id: `${name}-${version}`, name, version,
      modules: modules.map((m) => ({ id: m, ...splitModuleId(m) })),
      uiModules: ui.map((m) => ({ id: m, ...splitModuleId(m) })),
      moduleDescriptors: [],
    })),
    totalRecords: apps.length,
  },
});
const KONG_404 = { status: 404, body: { message: 'no Route matched with those values', request_id: 'x' } };

test('versions compare by their numeric parts', () => {
  assert.ok(atLeast('19.6.0', '19.6.0') && atLeast('20.0.1', '19.6') && !atLeast('19.5.1', '19.6.0') && !atLeast(null, '1.0'));
  assert.ok(atLeast('1.13.0-SNAPSHOT.12', '1.13.0'));
});

// The record setup() takes (lib/record.js) from the two discovery answers.
const recordOf = (answers) => buildRecord({ tenant: 'fs09000000', answers: { counts: {}, ...answers }, commit: null, load: {}, env: {} });

test('platform: Okapi when its module list answers, Eureka when Kong refuses it and the entitlements answer, else one line', () => {
  const okapi = platformOfRecord(recordOf({ okapi: okapiList(['okapi-4.13.2', 'mod-users-18.2.0']) }));
  assert.equal(okapi.platform, 'okapi');
  assert.deepEqual(okapi.modules.map((m) => `${m.name} ${m.version}`), ['mod-users 18.2.0', 'okapi 4.13.2']);
  const eureka = platformOfRecord(recordOf({ okapi: KONG_404, eureka: entitlements([['app-platform-minimal', '2.0.14', ['mod-users-19.5.1']], ['app-platform-complete', '2.1.29', ['mod-search-5.0.4'], ['folio_checkout-12.0.2']]]) }));
  assert.equal(eureka.platform, 'eureka');
  assert.deepEqual(eureka.modules.map((m) => `${m.name} ${m.version}`), ['folio_checkout 12.0.2', 'mod-search 5.0.4', 'mod-users 19.5.1'], 'UI modules too');
  const none = platformOfRecord(recordOf({ okapi: KONG_404, eureka: { status: 403, body: null } }));
  assert.match(none.error, /^the target's platform is unknown \(module versions: .* answered 404 and .* answered 403\); fix: set PLATFORM=okapi or PLATFORM=eureka/);
  const forced = platformOfRecord(recordOf({ okapi: KONG_404, eureka: { status: 403, body: null } }), 'eureka');
  assert.deepEqual([forced.platform, forced.modules, forced.why], ['eureka', [], 'PLATFORM=eureka']);
});

test('how the token travels: X-Okapi-Token on Okapi, the folioAccessToken cookie on Eureka, never both', () => {
  assert.deepEqual(tokenHeaders(platform('okapi').token, 't.o.k'), { 'X-Okapi-Token': 't.o.k' });
  assert.deepEqual(tokenHeaders(platform('eureka').token, 't.o.k'), { Cookie: 'folioAccessToken=t.o.k' });
  assert.deepEqual(refreshCookie('r.e.f'), { Cookie: 'folioRefreshToken=r.e.f' });
  assert.equal(parsePlatform(''), null);
  assert.equal(parsePlatform('eureka'), 'eureka');
  assert.throws(() => parsePlatform('kong'), /PLATFORM "kong" is not a FOLIO platform; fix: use PLATFORM=okapi or PLATFORM=eureka/);
});

test('the UI release that fits the target: its announced ui-checkout, else its platform and backend versions', () => {
  const mods = (...ids) => ids.map(splitModuleId);
  assert.equal(defaultUiRelease('okapi', mods('okapi-4.13.2', 'mod-users-18.2.0')).release, 'orchid');
  assert.equal(defaultUiRelease('eureka', mods('mod-users-19.5.1')).release, 'sunflower');
  const t = defaultUiRelease('eureka', mods('mod-users-19.6.0'));
  assert.equal(t.release, 'trillium');
  assert.match(t.why, /mod-users 19\.6\.0 >= 19\.6\.0/);
  assert.equal(defaultUiRelease('eureka', []).release, 'sunflower', 'a Eureka target that names no versions: the oldest Eureka screens');
  // Okapi lists the tenant's UI modules, Eureka's applications their uiModules: the major decides.
  assert.equal(defaultUiRelease('okapi', mods('folio_checkout-12.0.2')).release, 'sunflower');
  assert.equal(defaultUiRelease('eureka', mods('folio_checkout-13.0.1', 'mod-users-19.5.1')).release, 'trillium');
  assert.equal(defaultUiRelease('okapi', mods('folio_checkout-11.0.3')).release, 'orchid', 'older than Sunflower: the newest older screens');
  assert.equal(defaultUiRelease('eureka', mods('folio_checkout-14.0.0')).release, 'trillium');
  assert.equal(defaultUiRelease('okapi', mods('folio_checkout-8.0.0')).release, 'orchid');
  assert.equal(parseUiRelease(undefined), null);
  assert.equal(parseUiRelease('trillium'), 'trillium');
});

test("mod-search's reindex API by its version: the instance-records API from 4.0, the legacy one before", () => {
  const m = (v) => [{ name: 'mod-search', version: v }];
  assert.equal(reindexApiFor(m('1.6.4')).api, 'legacy');
  assert.equal(reindexApiFor(m('3.2.0')).api, 'legacy');
  assert.equal(reindexApiFor(m('4.0.0')).api, 'current');
  assert.equal(reindexApiFor(m('6.0.0')).api, 'current');
  assert.match(reindexApiFor([]).why, /did not name/);
});

test('an empty searched index is named with its templates, so their times are not read as searches', () => {
  assert.deepEqual(INDEX_PATHS, ['/search/authorities', '/search/instances']);
  assert.equal(indexCount('/search/authorities').url, '/search/authorities?query=cql.allRecords%3D1&limit=0');
  assert.deepEqual(emptyIndexes({ '/search/authorities': 5, '/search/instances': 100 }), []);
  assert.deepEqual(emptyIndexes({ '/search/authorities': null, '/search/instances': 100 }), [], 'an unknown count is not judged');
  const [e] = emptyIndexes({ '/search/authorities': 0, '/search/instances': 100 });
  assert.deepEqual(e, { path: '/search/authorities', records: 'authority', groups: ['authority'], templates: 12 });
  const w = emptyIndexWarning(e, 'fs09000000');
  assert.match(w, /^tenant fs09000000 has no authority records in its search index .*totalRecords 0\): the 12 templates of group authority will time empty answers, not searches; fix: /);
});

test('a newer sequence derived from an older one fails loudly when a step it names is gone', () => {
  const steps = [call(() => null, { id: 'a' })];
  assert.throws(() => derive(steps, { after: { b: [] } }), /derive: no step "b"/);
});
