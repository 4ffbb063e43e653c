// The check-in and check-out screens as PTF's Orchid plan recorded them (folio-org/perf-testing :
// workflows-scripts/circulation/check-in-check-out/Orchid/circulation_checkInCheckOut_orchid.jmx),
// request by request and in order, with the think timers where PTF put them. It stands for the Okapi
// releases up to Orchid (ui-checkout 9, ui-checkin 9), the sequence of every release report up to
// Orchid and of the Lotus report. Data for lib/cico/sequence.js.

import * as api from '../api.js';
import { cqlId, cqlQuote } from '../../folio.js';
import { call, think, nowOf } from '../sequence.js';
import { hasLoan, hasPolicy, itemId, feesFinesRow } from './checkin-row.js';

const checkOut = [
  call(() => api.configEntries('(module==CHECKOUT and configName==other_settings)')),
  call(() => api.configEntries('(module==USERS and configName==profile_pictures)')),
  think(1000, 2000),
  call(() => api.groups()),
  think(1000, 3000, false),
  call((c) => api.findPatron(c.input.userBarcode), { as: 'patron' }),
  call((c) => api.groups(`(id==${cqlId(c.patron.patronGroup)})`)),
  call((c) => api.accounts(`(userId==${c.patron.id} and status.name<>Closed)`, 100)),
  call((c) => api.loans(`(userId==${c.patron.id} and status.name<>Closed)`, 1)),
  call((c) => api.requests(`(requesterId==${c.patron.id} and status=="Open")`, 100)),
  // PTF sends the literal "query=(...)" as the query value; FOLIO's CQL parser accepts it.
  call((c) => api.proxiesFor(`query=(userId==${c.patron.id})`, 80)),
  call((c) => api.proxiesFor(`query=(proxyUserId==${c.patron.id})`, 80)),
  call((c) => api.noteLinks(c.patron.id)),
  call((c) => api.manualBlocks(c.patron.id)),
  call((c) => api.automatedPatronBlocks(c.patron.id)),
  call((c) => api.proxiesFor(`query=(proxyUserId==${c.patron.id})`)),
  think(1000, 2000),
  call((c) => api.requests(`(requesterId==${c.patron.id} and pickupServicePointId=${c.input.servicePointId} and status=="Open - Awaiting pickup")`)),
  call((c) => api.itemByBarcode(c.input.itemBarcode, 40)),
  call(
    (c) => api.checkOutByBarcode({ itemBarcode: c.input.itemBarcode, userBarcode: c.input.userBarcode, servicePointId: c.input.servicePointId, loanDate: nowOf(c.input) }),
    { as: 'loan' },
  ),
  call((c) => api.loans(`(userId==${c.loan.userId || c.patron.id} and status.name<>Closed)`, 1)),
  call((c) => api.automatedPatronBlocks(c.patron.id)),
  think(5000, 2000),
  call((c) => api.requests(`(requesterId==${c.loan.userId || c.patron.id} and status=="Open")`, 100)),
];

// PTF checks in at a random service point from GET /service-points; here it is the run's service
// point, so items come back Available to the VU's pool instead of going In transit (the request
// sequence is unchanged).
const checkIn = [
  call(() => api.groups()),
  call(() => api.usersPage()),
  think(1000, 2000),
  call(() => api.staffSlips()),
  call(() => api.servicePoints()),
  call(() => api.configEntries('(module=CHECKOUT and configName=other_settings)')),
  call((c) => api.itemByBarcode(c.input.itemBarcode, 1000), { as: 'item' }),
  call((c) => api.checkInByBarcode({ itemBarcode: c.input.itemBarcode, servicePointId: c.input.servicePointId, checkInDate: nowOf(c.input) }), { as: 'checkin' }),
  think(5000, 2000),
  call((c) => api.requests(`(itemId==${itemId(c)} and (status=="Open - Awaiting pickup" or status=="Open - Awaiting delivery"))`)),
  // Without a loan (legal for an item that had none) PTF queried with "NOT_FOUND"; those calls
  // cannot match anything, so they are skipped rather than sent with a fake id.
  think(1000, 3000, true, hasLoan),
  call((c) => api.accounts(`loanId==${cqlQuote(c.checkin.loanId)}`), { when: hasLoan }),
  think(5000, 2000, true, hasPolicy),
  call((c) => api.lostItemFeesPolicies(c.checkin.lostItemPolicyId), { when: hasPolicy }),
  ...feesFinesRow,
];

export const orchid = Object.freeze({
  name: 'orchid',
  // The platform this sequence was recorded on, and the UI modules it covers: what the default
  // choice of a release (lib/cico/releases.js) matches against the target's announcement.
  platform: 'okapi',
  ui: Object.freeze({ folio_checkout: '9.0.1', folio_checkin: '9.0.1' }),
  needs: Object.freeze({}),
  source: 'folio-org/perf-testing : workflows-scripts/circulation/check-in-check-out/Orchid/circulation_checkInCheckOut_orchid.jmx',
  checkOut: Object.freeze(checkOut),
  checkIn: Object.freeze(checkIn),
});
