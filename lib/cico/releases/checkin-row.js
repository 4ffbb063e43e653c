// What every release's check-in screen shares: the facts a checked-in item's answer gives, and the
// checked-in list's row (FeeFineDetailsButton, then FeesFinesOwnedStatus), asked alike since PTF's
// Orchid plan recorded it. Data for lib/cico/sequence.js, imported by each release's file.
import * as api from '../api.js';
import { call, think } from '../sequence.js';

export const hasLoan = (c) => Boolean(c.checkin.loanId);
export const hasPolicy = (c) => hasLoan(c) && Boolean(c.checkin.lostItemPolicyId);
export const itemId = (c) => c.checkin.itemId || (c.item && c.item.id);

export const feesFinesRow = Object.freeze([
  think(5000, 2000, true, hasLoan),
  call((c) => api.accounts(`(userId==${c.checkin.userId} and itemId==${itemId(c)}) AND (status.name=="Open" OR status.name=="Closed")`), { when: hasLoan }),
  think(1000, 2000, true, hasLoan),
  call((c) => api.accounts(`(userId==${c.checkin.userId} and itemId==${itemId(c)} and loanId==${c.checkin.loanId}) and status.name=="Open"`), { when: hasLoan }),
]);
