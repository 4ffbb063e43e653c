import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseSetCookie, splitSetCookie, sessionFromExpiryResponse, sessionFromLegacyResponse, renewalAction,
  refreshMarginMs, jwtExpiryMs,
} from '../../lib/auth.js';

const T0 = Date.parse('2026-11-22T04:00:00Z');

function jwt(claims) {
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${b64({ alg: 'HS256' })}.${b64(claims)}.sig`;
}

// What mod-login sends (mod-login : ramls/login.raml, LoginAPI.java); k6 joins repeated headers with ", ".
const cookies = (accessAge, refreshAge) =>
  `folioAccessToken=acc.tok.en; Max-Age=${accessAge}; Expires=Sun, 22 Nov 2026 04:10:00 GMT; Path=/; Secure; HttpOnly; SameSite=Lax, ` +
  `folioRefreshToken=ref.tok.en; Max-Age=${refreshAge}; Path=/authn; Secure; HttpOnly; SameSite=Lax`;

test('parseSetCookie reads name, value, Max-Age, Expires and Path', () => {
  const c = parseSetCookie('folioAccessToken=a.b.c; Max-Age=600; Expires=Sun, 22 Nov 2026 04:10:00 GMT; Path=/okapi/; Secure; HttpOnly');
  assert.equal(c.name, 'folioAccessToken');
  assert.equal(c.value, 'a.b.c');
  assert.equal(c.maxAge, 600);
  assert.equal(c.expires, Date.parse('2026-11-22T04:10:00Z'));
  assert.equal(c.path, '/okapi/');
  assert.equal(parseSetCookie('garbage'), null);
  assert.equal(parseSetCookie(undefined), null);
});

test('splitSetCookie keeps commas inside Expires dates', () => {
  const parts = splitSetCookie(cookies(600, 604800));
  assert.equal(parts.length, 2);
  assert.match(parts[0], /^folioAccessToken=.*Expires=Sun, 22 Nov 2026/);
  assert.match(parts[1], /^folioRefreshToken=/);
  assert.equal(splitSetCookie(['a=1; Path=/', 'b=2']).length, 2);
});

test('login-with-expiry session: expiry from Max-Age, relative to the local clock', () => {
  const body = JSON.stringify({ accessTokenExpiration: '2030-01-01T00:00:00Z', refreshTokenExpiration: '2030-01-08T00:00:00Z' });
  const s = sessionFromExpiryResponse({ 'Set-Cookie': cookies(600, 604800) }, body, T0);
  assert.equal(s.accessToken, 'acc.tok.en');
  assert.equal(s.refreshToken, 'ref.tok.en');
  assert.equal(s.accessExpiresAt, T0 + 600_000, 'Max-Age wins over a skewed server clock');
  assert.equal(s.refreshExpiresAt, T0 + 604_800_000);
});

test('login-with-expiry without Max-Age falls back to the body expirations', () => {
  const hdr = 'folioAccessToken=a; Path=/, folioRefreshToken=r; Path=/authn';
  const s = sessionFromExpiryResponse({ 'set-cookie': hdr }, JSON.stringify({ accessTokenExpiration: '2026-11-22T04:10:00Z', refreshTokenExpiration: '2026-11-29T04:00:00Z' }), T0);
  assert.equal(s.accessExpiresAt, T0 + 600_000);
  assert.match(sessionFromExpiryResponse({}, '{}', T0).error, /folioAccessToken/);
  assert.match(sessionFromExpiryResponse({ 'Set-Cookie': 'folioAccessToken=a' }, 'not json', T0).error, /folioRefreshToken/);
});

test('legacy login: token from x-okapi-token or okapiToken; exp read from the JWT', () => {
  const tok = jwt({ sub: 'folio_admin', exp: T0 / 1000 + 3600 });
  assert.equal(jwtExpiryMs(tok), T0 + 3_600_000);
  const s = sessionFromLegacyResponse({ 'X-Okapi-Token': tok }, '', T0);
  assert.equal(s.accessToken, tok);
  assert.equal(s.refreshToken, null);
  assert.equal(s.accessExpiresAt, T0 + 3_600_000);
  assert.equal(sessionFromLegacyResponse({}, JSON.stringify({ okapiToken: 'opaque' }), T0).accessExpiresAt, null);
  assert.match(sessionFromLegacyResponse({}, '', T0).error, /x-okapi-token/);
  assert.equal(jwtExpiryMs('not-a-jwt'), null);
});

test('renewal at 80 % of the lifetime, as the staff UI rotates: 8 min into 10-minute tokens, 48 s into 60 s ones', () => {
  assert.equal(refreshMarginMs(600_000), 120_000);
  assert.equal(refreshMarginMs(60_000), 12_000);
  assert.equal(refreshMarginMs(20_000), 4_000);
  assert.equal(refreshMarginMs(4_000), 2_000, 'never below 2 s');
  assert.equal(refreshMarginMs(NaN), 2_000);
});

test('renewal: none while fresh, refresh inside the margin, login when nothing can be refreshed', () => {
  const s = { accessToken: 'a', refreshToken: 'r', issuedAt: T0, accessExpiresAt: T0 + 600_000, refreshExpiresAt: T0 + 604_800_000 };
  assert.equal(renewalAction(s, T0 + 479_000), 'none');
  assert.equal(renewalAction(s, T0 + 481_000), 'refresh');
  assert.equal(renewalAction(s, T0 + 700_000), 'refresh', 'already expired: still refreshable');
  assert.equal(renewalAction({ ...s, refreshToken: null }, T0 + 481_000), 'login', 'legacy token with exp');
  assert.equal(renewalAction({ ...s, refreshExpiresAt: T0 + 560_000 }, T0 + 481_000), 'login', 'refresh token about to expire');
  assert.equal(renewalAction({ ...s, accessExpiresAt: null }, T0 + 10 ** 9), 'none', 'non-expiring legacy token');
  assert.equal(renewalAction(null, T0), 'login');
});

test('a 20-second token is refreshed before it expires, checked before each request', () => {
  // Requests every 1-7 s (PTF think times), 90 s run: the token must never be used expired.
  let s = { accessToken: 'a', refreshToken: 'r', issuedAt: T0, accessExpiresAt: T0 + 20_000, refreshExpiresAt: T0 + 3_600_000 };
  let refreshes = 0;
  for (let t = T0, i = 0; t < T0 + 90_000; t += [1000, 3000, 7000, 500][i++ % 4]) {
    if (renewalAction(s, t) === 'refresh') {
      s = { ...s, issuedAt: t, accessExpiresAt: t + 20_000 };
      refreshes++;
    }
    assert.ok(s.accessExpiresAt - t > 0, `token expired at +${t - T0} ms`);
  }
  assert.ok(refreshes >= 4 && refreshes <= 8, `refreshes ${refreshes}`);
});
