// A UI transaction as data: a list of steps, each a call (a function of what the transaction knows
// so far returning one request description of lib/cico/api.js) or a think timer, replayed by one
// interpreter for every UI release (lib/cico/releases/). Pure: the caller passes a `client` with
//   call(request) -> { ok, durationMs, value }   sends one request and applies its rule
//   think(timer)                                 waits before the next request (k6: sleep)
// so the same steps run in k6 (lib/k6/cico.js) and under node --test with a recording client.
// A transaction's time is the sum of its requests' times, think time excluded (JMeter's
// TransactionController with includeTimers=false, what the release reports call check-out time).

import { preflight } from '../folio.js';

/**
 * A call step. build(ctx) -> request; ctx.input is the transaction's input, and each earlier call
 * with `as` left its value there (ctx.patron, ctx.loan, ...). when(ctx): the step runs only if true
 * (e.g. the lookups that need a loan). id: a name a later release's sequence can refer to (derive).
 */
export const call = (build, { as, when, id } = {}) => Object.freeze({ call: build, as, when, id });

// PTF's uniform random timers: constant + U[0, range) ms (lib/think.js). `offset` marks the timers
// whose constant PTF wrote as "<constant> + ${thinktime_offset}"; when(ctx) as for a call.
export const think = (constant, range, offset = true, when = undefined) => Object.freeze({ think: Object.freeze({ constant, range, offset }), when });

/**
 * A newer release's sequence as the changes to an older one, the way its UI's diff reads:
 * replace: {id: step} swaps the step of that id, after: {id: [steps]} inserts steps after it.
 * An id that is not there throws: the older sequence changed under the newer one.
 */
export function derive(steps, { replace = {}, after = {} }) {
  const ids = new Set(steps.map((s) => s.id).filter(Boolean));
  for (const id of [...Object.keys(replace), ...Object.keys(after)]) if (!ids.has(id)) throw new Error(`derive: no step "${id}"`);
  const out = [];
  for (const s of steps) {
    out.push(s.id && replace[s.id] ? replace[s.id] : s);
    if (s.id && after[s.id]) out.push(...after[s.id]);
  }
  return Object.freeze(out);
}

/**
 * Replays steps; stops at the first failed request (JMeter: "on sampler error: start next loop").
 * opts.preflight sends the browser's CORS preflight before every call and counts its time.
 * Returns { ok, durationMs, failedAt, ctx }.
 */
export function runSequence(client, steps, input, opts = {}) {
  const ctx = { input };
  let total = 0;
  let failed = null;
  for (const step of steps) {
    if (failed) break;
    if (step.when && !step.when(ctx)) continue;
    if (step.think) {
      client.think(step.think);
      continue;
    }
    const request = step.call(ctx);
    if (opts.preflight) {
      const pre = preflight(request);
      const p = client.call(pre);
      total += p.durationMs || 0;
      if (!p.ok) {
        failed = pre.name;
        break;
      }
    }
    const r = client.call(request);
    total += r.durationMs || 0;
    if (!r.ok) {
      failed = request.name;
      break;
    }
    if (step.as) ctx[step.as] = r.value === undefined ? true : r.value;
  }
  return { ok: !failed, durationMs: total, failedAt: failed, ctx };
}

// input.now may be a function, so the date is taken when the POST is sent (after think time).
export function nowOf(input) {
  return typeof input.now === 'function' ? input.now() : input.now;
}
