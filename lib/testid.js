// The test id (tag `testid`, directory results/<testid>/), the one definition of its rule: letters,
// digits, . _ - (up to 128, starting with a letter or digit: a directory name, an InfluxQL string
// and a k6 tag value alike), and the generated form <prefix>-<UTC time>[-<release>], e.g.
// cico-20261122T030000Z-lotus. The shell reads it through tools/testid.mjs (tools/defaults.sh's
// fp_testid_ok, fp_new_testid, fp_testid_stamp). k6 evaluates the init context once per VU, so a
// generated id can differ between VUs: scripts read the id back from the consolidated options
// (k6/execution) rather than recomputing it. Pure.

const VALID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The UTC time as a test id writes it: 20261122T030000Z. */
export function testidStamp(now = new Date()) {
  return now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

/** <prefix>-<UTC time>-<release>, or <prefix>-<UTC time> without a release. */
export function makeTestId(prefix, release, now = new Date()) {
  return release === undefined || release === null || release === '' ? `${prefix}-${testidStamp(now)}` : `${prefix}-${testidStamp(now)}-${release}`;
}

export function validTestId(id) {
  return typeof id === 'string' && VALID.test(id);
}
