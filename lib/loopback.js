// Whether an address is this machine. Tests, drills, the demo and the gate run with
// FP_LOCAL_ONLY=1 (tools/local-env.sh) and refuse any other target: their load goes to 127.0.0.1
// only. By name, never by resolving it: a lookup of a FOLIO's host name is already a contact. Pure.

/** host (a name, IPv4 or IPv6 address, optionally in [] and with :port or user@) is loopback. */
export function isLoopbackHost(host) {
  let h = String(host).trim().toLowerCase().replace(/^.*@/, '');
  if (h.startsWith('[')) h = h.slice(1, h.indexOf(']'));
  else if ((h.match(/:/g) || []).length === 1) h = h.slice(0, h.indexOf(':'));
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

// What the refusal says, the same in every layer.
export const LOCAL_ONLY_FIX =
  'tests, drills, the demo and the gate run on this machine only (FP_LOCAL_ONLY=1, set by tools/local-env.sh and tools/test-env.sh); '
  + 'point a run at a real FOLIO from a shell without it (make run or folio-perf run)';
