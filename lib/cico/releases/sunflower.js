// The check-out and check-in screens of Sunflower (R1-2025: ui-checkout 12.0.2, ui-checkin 11.0.3,
// platform-lsp's release descriptor), read from the UI sources at those tags:
// - folio-org/ui-checkout v12.0.2: src/CheckOut.js (manifest: checkoutSettings, settings,
//   patronGroups; onPatronLookup: findPatron -> manualPatronBlocks, automatedPatronBlocks, then
//   findProxies and findRequests), src/components/UserDetail/UserDetail.js (patronGroups,
//   openLoansCount, openAccounts, openRequests), src/ScanItems.js (fetchItems, checkout, then
//   automatedPatronBlocks), src/util.js (buildIdentifierQuery, buildRequestQuery), src/constants.js
//   (MAX_RECORDS 10000, PAGE_AMOUNT 100);
// - folio-org/ui-checkin v11.0.3: src/Scan.js (manifest: patronGroups, users, staffSlips,
//   servicePoints, checkinSettings; fetchItems, checkIn, processClaimReturned, fetchRequests),
//   src/components/FeeFineDetailsButton, CheckedInListItems/.../FeesFinesOwnedStatus, src/consts.js
//   (MAX_RECORDS 1000, PAGE_AMOUNT 100).
// stripes-connect fetches a manifest resource at mount unless it says fetch: false or
// accumulate: true (the boolean; RESTResource.refresh), so the users page and the groups are page
// loads. The proxy manager and notes calls are the smart components' (stripes-smart-components),
// as PTF's Orchid plan recorded them. No public PTF plan for the Eureka-era CICO reports exists, so
// the think timers are PTF's Orchid ones at the same moments of the screen. ECS mode
// (circulation-bff) and custom fields (ui-checkout 13's patron pane) are not replayed.

import * as api from '../api.js';
import { cqlId, cqlQuote, cqlWord } from '../../folio.js';
import { call, think, nowOf } from '../sequence.js';
import { hasLoan, hasPolicy, itemId, feesFinesRow } from './checkin-row.js';

// ui-checkout's MAX_RECORDS; ui-checkin's (1000) is the staff slips' and service points' limit in api.js.
const MAX_RECORDS_OUT = 10000;
const PAGE_AMOUNT = 100;
const pid = (c) => c.patron.id;

export const checkOut = Object.freeze([
  call(() => api.configEntries('(module==CHECKOUT and configName==other_settings)'), { id: 'checkout-settings' }),
  call(() => api.usersConfigurationEntry(), { id: 'profile-picture-settings' }),
  think(1000, 2000),
  call(() => api.groups()),
  think(1000, 3000, false),
  // The patron identifiers of the settings: barcode by default (constants.js defaultPatronIdentifier).
  call((c) => api.findPatronBy(`(barcode==${cqlQuote(c.input.userBarcode)})`), { as: 'patron' }),
  call((c) => api.manualBlocks(pid(c))),
  call((c) => api.automatedPatronBlocks(pid(c), MAX_RECORDS_OUT)),
  call((c) => api.proxiesFor(`query=(proxyUserId==${pid(c)})`)),
  call((c) => api.requests(`(requesterId==${pid(c)} and pickupServicePointId==${c.input.servicePointId} and status=="Open - Awaiting pickup")`), { id: 'awaiting-pickup' }),
  call((c) => api.groups(`(id==${cqlId(c.patron.patronGroup)})`)),
  call((c) => api.loans(`(userId==${pid(c)} and status.name<>Closed)`, 1)),
  call((c) => api.accounts(`(userId==${pid(c)} and status.name<>Closed)`, MAX_RECORDS_OUT)),
  call((c) => api.requests(`(requesterId==${pid(c)} and status=="Open*")`, MAX_RECORDS_OUT)),
  call((c) => api.proxiesFor(`query=(userId==${pid(c)})`, 80)),
  call((c) => api.proxiesFor(`query=(proxyUserId==${pid(c)})`, 80)),
  call((c) => api.noteLinks(pid(c))),
  think(1000, 2000),
  call((c) => api.findItems(`barcode==${cqlQuote(c.input.itemBarcode)}`, PAGE_AMOUNT, 0), { as: 'item', id: 'item' }),
  call(
    (c) => api.checkOutByBarcode({ itemBarcode: c.input.itemBarcode, userBarcode: c.input.userBarcode, servicePointId: c.input.servicePointId, loanDate: nowOf(c.input) }),
    { as: 'loan' },
  ),
  call((c) => api.automatedPatronBlocks(pid(c), MAX_RECORDS_OUT)),
  call((c) => api.loans(`(userId==${pid(c)} and status.name<>Closed)`, 1)),
  think(5000, 2000),
  call((c) => api.requests(`(requesterId==${pid(c)} and status=="Open*")`, MAX_RECORDS_OUT)),
]);


export const checkIn = Object.freeze([
  call(() => api.groups()),
  call(() => api.usersPage()),
  think(1000, 2000),
  call(() => api.staffSlips()),
  call(() => api.servicePoints()),
  call(() => api.configEntries('(module=CHECKOUT and configName=other_settings)'), { id: 'checkin-settings' }),
  call((c) => api.findItems(`barcode==${cqlWord(c.input.itemBarcode)}`, PAGE_AMOUNT, 0), { as: 'item', id: 'item' }),
  call((c) => api.checkInBySession({ sessionId: c.input.sessionId, servicePointId: c.input.servicePointId, checkInDate: nowOf(c.input), itemBarcode: c.input.itemBarcode }), { as: 'checkin' }),
  // processClaimReturned: the loan's fees and its lost-item policy, beside fetchRequests.
  call((c) => api.accounts(`loanId==${cqlQuote(c.checkin.loanId)}`), { when: hasLoan }),
  think(5000, 2000),
  call((c) => api.requests(`(itemId==${itemId(c)} and (status=="Open - Awaiting pickup" or status=="Open - Awaiting delivery"))`)),
  think(5000, 2000, true, hasPolicy),
  call((c) => api.lostItemFeesPolicies(c.checkin.lostItemPolicyId), { when: hasPolicy }),
  // The checked-in list's row: FeeFineDetailsButton, then FeesFinesOwnedStatus.
  ...feesFinesRow,
]);

export const sunflower = Object.freeze({
  name: 'sunflower',
  platform: 'eureka',
  ui: Object.freeze({ folio_checkout: '12.0.2', folio_checkin: '11.0.3' }),
  needs: Object.freeze({}),
  source: 'folio-org/ui-checkout v12.0.2, folio-org/ui-checkin v11.0.3',
  checkOut,
  checkIn,
});
