// The check-in/check-out workflow's run (scripts/check-in-check-out.js) and what the front door
// checks after it. k6's teardown checks in the run's own loans; a second Ctrl-C or a crashed k6
// skips it, and then the operator must learn what is left:
//   - on the local stack, from minifolio's database: the run started from the reset state (no
//     loan, every item Available), so any open loan or Checked-out item now is the run's, and
//     `folio-perf reset` restores it;
//   - on your FOLIO, through its API: the open loans that the run's operator made since the run
//     started, by item barcode, to check in. Never a restore SQL there: it ends every loan of the
//     tenant, staff's and patrons' alike. The barcodes go to the operator's terminal only, never
//     into InfluxDB or a file.
import { setTimeout as sleep } from 'node:timers/promises';
import { stackSql } from '../psql.mjs';
import { FINISHED } from '../k6.mjs';
import { openLoansOfRun, targetConfig } from '../folio-session.mjs';

const INTERRUPTED = 105;

// Items Checked out, or with an open loan, in the stack's tenant (a validated tenant id).
function leftoverSql(tenant) {
  return `SELECT i.jsonb->>'barcode' FROM ${tenant}_mod_inventory_storage.item i WHERE i.jsonb->'status'->>'name' = 'Checked out'
       OR EXISTS (SELECT 1 FROM ${tenant}_mod_circulation_storage.loan l WHERE l.jsonb->>'itemId' = i.id::text
                  AND lower(l.jsonb->'status'->>'name') = 'open') ORDER BY 1`;
}

const list = (out) => (out ? out.split('\n') : []);

export default {
  dashboard: 'folio-cico',

  async checkLocal({ defaults, rc, say }) {
    const q = leftoverSql(defaults.FP_TENANT);
    let r = await stackSql(defaults, q);
    if (!r.ok) {
      say(`==> cannot check what the run left checked out: ${r.out}`);
      return;
    }
    // Stopped k6: requests it dropped may still be committing; list until two listings agree.
    if (rc === INTERRUPTED) {
      for (let i = 0; i < 5; i++) {
        await sleep(2000);
        const again = await stackSql(defaults, q);
        if (!again.ok || again.out === r.out) break;
        r = again;
      }
    }
    const left = list(r.out);
    if (left.length === 0) return;
    say(`==> the run left ${left.length} items checked out: ${left.slice(0, 20).join(' ')}`);
    say('    fix: folio-perf reset (= make reset: bin/minifolio reset on this stack\'s database; the next run resets too)');
  },

  async checkRemote({ env, rc, startedAt, say }) {
    if (FINISHED.has(rc)) return;
    let left;
    try {
      left = await openLoansOfRun(targetConfig(env), startedAt);
    } catch (e) {
      say(`==> cannot list the run's open loans (${e.message}): check in, in FOLIO, the items its operator checked out since ${startedAt}`);
      return;
    }
    if (left.length === 0) {
      say(`==> the run left no open loan: none made by its operator since ${startedAt} is open`);
      return;
    }
    say(`==> the run did not end cleanly (exit ${rc}) and left ${left.length} open loans, made by its operator since ${startedAt}; item barcodes:`);
    for (let i = 0; i < left.length; i += 10) say(`    ${left.slice(i, i + 10).join(' ')}`);
    say("    fix: check in exactly these items (FOLIO's Check in app, or POST /circulation/check-in-by-barcode); never a restore SQL on this FOLIO: it ends every loan of the tenant");
  },
};
