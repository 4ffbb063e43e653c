// The test id (tag `testid`, directory results/<testid>/): from TESTID (make run generates one
// per run), else <workflow>-<UTC timestamp>-<release>. k6 evaluates the init context once per VU,
// so a generated id can differ between VUs: scripts read the id back from the consolidated
// options (k6/execution) rather than recomputing it. Pure.

export function makeTestId(workflow, release, now = new Date()) {
  const ts = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${workflow}-${ts}-${release}`;
}

export function validTestId(id) {
  return typeof id === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(id);
}
