// Think time between a workflow's requests: the policy (THINK, THINK_OFFSET) and the milliseconds
// one timer waits under it. A timer is { constant, range, offset }: PTF's JMeter uniform random
// timer, constant + U[0, range) ms, where `offset` marks a constant written
// "<constant> + ${thinktime_offset}". The workflows place the timers (lib/cico/transactions.js);
// the client waits them (lib/k6/folio.js). Pure.

/**
 * Think-time policy from THINK:
 * - "ptf": PTF's timers as PTF's JMeter ran them. A JMeter timer's constant is read as a whole
 *   number; "1000 + ${thinktime_offset}" is not one, and JMeter then takes 0 without a warning. So
 *   the timers written that way only ever waited their random part, and THINK_OFFSET changed
 *   nothing; the one timer with a plain constant ("1000") kept it. The release reports' figures
 *   were measured with these pauses: about 5.5 s per check-out and 6.5 s per check-in (with a loan).
 * - "ptf-intended": the plans' text as meant, constant + THINK_OFFSET + U[0, range), about 12.5 s
 *   per check-out and 24.5 s per check-in at THINK_OFFSET=0.
 * - "none", or a number of ms that replaces every PTF timer by that constant.
 * THINK_OFFSET (ms) is PTF's ${thinktime_offset}; only ptf-intended adds it.
 */
export function parseThink(think, offset) {
  const off = offset === undefined || offset === '' ? 0 : Number(offset);
  if (!Number.isFinite(off) || off < 0) throw new Error(`THINK_OFFSET "${offset}" is not a number of milliseconds; fix: use e.g. THINK_OFFSET=0`);
  const t = think === undefined || think === '' ? 'ptf' : String(think).trim();
  if (t === 'ptf') return { mode: 'ptf', offsetMs: 0 };
  if (t === 'ptf-intended') return { mode: 'ptf-intended', offsetMs: off };
  if (t === 'none') return { mode: 'none', offsetMs: 0 };
  if (/^\d+$/.test(t)) return { mode: 'fixed', ms: Number(t), offsetMs: 0 };
  throw new Error(`THINK "${think}" is not a think-time policy; fix: use THINK=ptf, THINK=ptf-intended, THINK=none or THINK=<milliseconds>`);
}

// Milliseconds to wait for one timer; rand() in [0,1).
export function thinkMs(policy, timer, rand) {
  if (policy.mode === 'none') return 0;
  if (policy.mode === 'fixed') return policy.ms;
  const random = Math.floor(rand() * timer.range);
  if (policy.mode === 'ptf') return (timer.offset ? 0 : timer.constant) + random;
  return timer.constant + (timer.offset ? policy.offsetMs : 0) + random;
}
