// The check-out and check-in screens of Trillium (R1-2026: ui-checkout 13.0.0, ui-checkin 12.0.0),
// as their diff from Sunflower's (lib/cico/releases/sunflower.js) reads in the UI sources:
// - folio-org/ui-checkout v12.0.2..v13.0.0: src/CheckOut.js reads the checkout settings from
//   mod-circulation (circulation/settings?query=(name==other_settings)) and the profile-picture
//   setting from mod-users 19.6 (user/settings), and after the awaiting-pickup requests also looks up
//   the patron's loans held for use at location (findHoldsOnShelf, util.js buildHoldsOnShelfQuery);
//   src/ScanItems.js reads the item's open loan before the check-out (analyzeExistingLoan:
//   loan-storage/loans?query=itemId==<id> and status.name<>Closed&limit=1);
// - folio-org/ui-checkin v11.0.3..v12.0.0: src/Scan.js reads circulation/settings instead of
//   configurations/entries, and the item's open loan (getLoanForItem:
//   circulation/loans?query=itemId=="<id>" and status.name==Open) before the check-in.

import * as api from '../api.js';
import { call, derive } from '../sequence.js';
import { checkOut as sunflowerOut, checkIn as sunflowerIn } from './sunflower.js';

const settings = () => api.circulationSettings('(name==other_settings)');

export const trillium = Object.freeze({
  name: 'trillium',
  platform: 'eureka',
  ui: Object.freeze({ folio_checkout: '13.0.0', folio_checkin: '12.0.0' }),
  // Interfaces only Trillium's backends serve: a target with older ones gets Sunflower's sequence.
  needs: Object.freeze({ 'mod-users': '19.6.0' }),
  source: 'folio-org/ui-checkout v13.0.0, folio-org/ui-checkin v12.0.0',
  checkOut: derive(sunflowerOut, {
    replace: {
      'checkout-settings': call(settings, { id: 'checkout-settings' }),
      'profile-picture-settings': call(() => api.userSettings(), { id: 'profile-picture-settings' }),
    },
    after: {
      'awaiting-pickup': [
        call((c) => api.loans(`(userId==${c.patron.id} and checkoutServicePointId==${c.input.servicePointId} and forUseAtLocation.status="Held")`)),
      ],
      item: [call((c) => api.loanStorageLoans(`itemId==${c.item.id} and status.name<>Closed`, 1))],
    },
  }),
  checkIn: derive(sunflowerIn, {
    replace: { 'checkin-settings': call(settings, { id: 'checkin-settings' }) },
    after: { item: [call((c) => api.loans(`itemId=="${c.item.id}" and status.name==Open`))] },
  }),
});
