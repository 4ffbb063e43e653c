package seed

import (
	"strconv"

	"github.com/folio-perf/folio-perf/minifolio/internal/storage"
)

// The bulk tables' rows: each a pure function of its number, so the COPY
// streams need no shared state, the same flags give the same rows, and
// the bench's floor can load the very bytes the seed sends (CopyDir).

// bulk is one table's COPY: n rows, row i built by row (the document may
// be built in the buffer passed in, reused for the next row).
type bulk struct {
	t   *storage.Table
	n   int
	row func(i int, buf []byte) (id [16]byte, doc []byte)
}

// inventory returns the instance, holdings and item counts (holdings and
// instances default to one per item).
func (o Options) inventory() (instances, holdings, items int) {
	items, holdings, instances = o.Items, o.Holdings, o.Instances
	if holdings == 0 {
		holdings = items
	}
	if instances == 0 {
		instances = holdings
	}
	return instances, holdings, items
}

// historyUsers is how many patrons have a past-loan history.
func (o Options) historyUsers() int {
	if o.EventsPerUser == 0 {
		return 0
	}
	if o.EventUsers == 0 || o.EventUsers > o.Users {
		return o.Users
	}
	return o.EventUsers
}

// spread maps record i of n onto one of m parents (m <= n) in order, every
// parent getting at least one: holdings onto instances, items onto holdings.
func spread(i, n, m int) int { return int(int64(i) * int64(m) / int64(n)) }

// historyUser is the migration account that "made" the closed loans (as a
// real FOLIO's migrated loans carry a system user): reset keeps the loans it
// made and deletes every other.
func (g *gen) historyUser() string { return HistoryUserID(g.t) }

// HistoryUserID is the createdByUserId of a tenant's seeded closed loans.
func HistoryUserID(tenant string) string { return IDString(tenant, "user-migration", 0) }

func (g *gen) instanceBulk() bulk {
	in, _, _ := g.o.inventory()
	return bulk{instanceT, in, func(i int, buf []byte) ([16]byte, []byte) {
		id := ID(g.t, "instance", i)
		return id, g.instanceDoc(buf, fmtUUID(id), i)
	}}
}

func (g *gen) authorityBulk() bulk {
	return bulk{authorityT, g.o.Authorities, func(i int, buf []byte) ([16]byte, []byte) {
		id := ID(g.t, "authority", i)
		return id, g.authorityDoc(buf, fmtUUID(id), i)
	}}
}

func (g *gen) holdingsBulk() bulk {
	in, ho, _ := g.o.inventory()
	return bulk{holdingsT, ho, func(h int, b []byte) ([16]byte, []byte) {
		id := ID(g.t, "holdings", h)
		b = appendUUID(append(b, `{"id":"`...), id)
		b = append(b, `","hrid":"ho`...)
		b = appendPadded(b, h, 8)
		b = append(b, `","instanceId":"`...)
		b = appendID(b, g.t, "instance", spread(h, ho, in))
		b = append(b, `","permanentLocationId":"`...)
		b = append(b, g.loc[h%2]...)
		b = append(b, `","effectiveLocationId":"`...)
		b = append(b, g.loc[h%2]...)
		b = append(b, `","callNumber":"`...)
		b = appendCallNumber(b, h)
		b = append(b, `","metadata":`...)
		b = append(b, metadataJSON...)
		return id, append(b, '}')
	}}
}

func appendCallNumber(b []byte, i int) []byte {
	b = strconv.AppendInt(append(b, "QA"...), int64(76+i%900), 10)
	return strconv.AppendInt(append(b, " .M"...), int64(i%97), 10)
}

// itemBulk: items on their holdings records; the first Loans are checked out.
func (g *gen) itemBulk() bulk {
	_, ho, it := g.o.inventory()
	return bulk{itemT, it, func(i int, b []byte) ([16]byte, []byte) {
		id := ID(g.t, "item", i)
		h := spread(i, it, ho)
		status := "Available"
		if i < g.o.Loans {
			status = "Checked out"
		}
		b = appendUUID(append(b, `{"id":"`...), id)
		b = append(b, `","hrid":"it`...)
		b = appendPadded(b, i, 8)
		b = appendPadded(append(b, `","barcode":"itm`...), i, 7) // ItemBarcode(i)
		b = append(b, `","holdingsRecordId":"`...)
		b = appendID(b, g.t, "holdings", h)
		b = append(b, `","status":{"name":"`...)
		b = append(b, status...)
		b = append(b, `","date":"`+seedDate+`"},"materialTypeId":"`...)
		b = append(b, g.mtype...)
		b = append(b, `","permanentLoanTypeId":"`...)
		b = append(b, g.ltype...)
		// the item is shelved where its holdings record is
		b = append(b, `","effectiveLocationId":"`...)
		b = append(b, g.loc[h%2]...)
		b = append(b, `","permanentLocationId":"`...)
		b = append(b, g.loc[h%2]...)
		b = append(b, `","effectiveCallNumberComponents":{"callNumber":"`...)
		b = appendCallNumber(b, h)
		b = append(b, `"},"discoverySuppress":false,"metadata":`...)
		b = append(b, metadataJSON...)
		return id, append(b, '}')
	}}
}

// loanBulk: the open loans, then the closed ones.
func (g *gen) loanBulk() bulk {
	return bulk{loanT, g.o.Loans + g.o.ClosedLoans, func(i int, b []byte) ([16]byte, []byte) {
		if i < g.o.Loans {
			return g.openLoan(i, b)
		}
		return g.closedLoan(i-g.o.Loans, b)
	}}
}

// itemLocation is where item i is shelved: its holdings record's location.
func (g *gen) itemLocation(i int) string {
	_, ho, it := g.o.inventory()
	return g.loc[spread(i, it, ho)%2]
}

const dateLayout = "2006-01-02T15:04:05.000+00:00"

func (g *gen) openLoan(i int, b []byte) ([16]byte, []byte) {
	id := ID(g.t, "loan", i)
	u := i % g.o.Users
	loanDate := g.day(i % 20)
	b = appendUUID(append(b, `{"id":"`...), id)
	b = appendID(append(b, `","userId":"`...), g.t, "user", u)
	b = appendID(append(b, `","itemId":"`...), g.t, "item", i)
	b = append(b, `","status":{"name":"Open"},"action":"checkedout","loanDate":"`...)
	b = append(append(b, loanDate...), `","dueDate":"`...)
	b = append(b, g.day(i%20-21)...)
	b = g.appendLoanPolicies(b, g.itemLocation(i), u)
	b = append(b, `,"itemStatus":"Checked out","renewalCount":0,`...)
	// Checked out by the operator, as PTF's data preparation did with its
	// own account: the k6 check-in pool (CHECKIN_POOL=own) takes only those.
	b = appendMetadata(b, seedDate, seedDate, g.admin)
	return id, append(b, '}')
}

// appendLoanPolicies appends the service point, policies, location and
// patron group fields every loan carries (after a string value).
func (g *gen) appendLoanPolicies(b []byte, location string, user int) []byte {
	b = append(append(b, `","checkoutServicePointId":"`...), g.sp[0]...)
	b = append(append(b, `","loanPolicyId":"`...), g.loanPolicy...)
	b = append(append(b, `","overdueFinePolicyId":"`...), g.overduePolicy...)
	b = append(append(b, `","lostItemPolicyId":"`...), g.lostPolicy...)
	b = append(append(b, `","itemEffectiveLocationIdAtCheckOut":"`...), location...)
	return append(append(append(b, `","patronGroupIdAtCheckout":"`...), g.groups[1+user%3]...), '"')
}

// appendMetadata appends RMB's metadata of a record made and last changed by user.
func appendMetadata(b []byte, created, updated, user string) []byte {
	b = append(append(b, `"metadata":{"createdDate":"`...), created...)
	b = append(append(b, `","updatedDate":"`...), updated...)
	b = append(append(b, `","createdByUserId":"`...), user...)
	return append(append(append(b, `","updatedByUserId":"`...), user...), `"}`...)
}

// day is the date d days before the seed's epoch, formatted as FOLIO dates
// (cached: a history of 10,000 loans per patron reuses the same days).
func (g *gen) day(d int) string {
	if d >= 0 && d < len(g.days) {
		return g.days[d]
	}
	return seedEpoch.AddDate(0, 0, -d).Format(dateLayout)
}

// pastLoan k of the patron-block history: its patron and how many days
// before the seed's epoch it was due and returned. The patrons take turns
// (k mod patrons), so one patron's events lie scattered over the tables as
// years of everyone's loans leave them, not side by side in a few pages:
// reading a long history costs the page reads it costs on a production
// database.
func (g *gen) pastLoan(k int) (user, dueDay int) {
	return k % g.eventUsers, k/g.eventUsers + 1
}

// closedLoan k of the tenant's past: a patron and an item drawn (by a
// multiplicative hash) from all of them, returned on one of the last 1,000
// days.
func (g *gen) closedLoan(k int, b []byte) ([16]byte, []byte) {
	_, _, it := g.o.inventory()
	u := int(uint64(k) * 2654435761 % uint64(g.o.Users))
	item := int(uint64(k) * 40503 % uint64(it))
	dueDay := 1 + k%1000
	id := ID(g.t, "closed-loan", k)
	loanDate, due := g.day(dueDay+21), g.day(dueDay)
	b = appendUUID(append(b, `{"id":"`...), id)
	b = appendID(append(b, `","userId":"`...), g.t, "user", u)
	b = appendID(append(b, `","itemId":"`...), g.t, "item", item)
	b = append(b, `","status":{"name":"Closed"},"action":"checkedin","loanDate":"`...)
	b = append(append(b, loanDate...), `","dueDate":"`...)
	b = append(append(b, due...), `","returnDate":"`...)
	b = append(append(b, due...), `","systemReturnDate":"`...)
	b = append(append(b, due...), `","checkinServicePointId":"`...)
	b = append(b, g.sp[0]...)
	b = g.appendLoanPolicies(b, g.itemLocation(item), u)
	b = append(b, `,"itemStatus":"Available","renewalCount":0,`...)
	b = appendMetadata(b, loanDate, due, g.historyUser())
	return id, append(b, '}')
}

func (g *gen) userBulk() bulk {
	return bulk{usersT, g.o.Users, func(i int, b []byte) ([16]byte, []byte) {
		id := ID(g.t, "user", i)
		return id, g.appendUser(b, id, UserBarcode(i), i)
	}}
}

// eventBulk: patron-block history, per patron EventsPerUser past loans, each
// a check-out event and its check-in event (all returned, so no block).
func (g *gen) eventBulk(in bool) bulk {
	t, kind, tb := g.t, "event-out", checkedOutT
	if in {
		kind, tb = "event-in", checkedInT
	}
	return bulk{tb, g.eventUsers * g.o.EventsPerUser, func(k int, b []byte) ([16]byte, []byte) {
		u, dueDay := g.pastLoan(k)
		id := ID(t, kind, k)
		b = appendUUID(append(b, `{"id":"`...), id)
		b = appendID(append(b, `","userId":"`...), t, "user", u)
		b = appendID(append(b, `","loanId":"`...), t, "history-loan", k)
		if in {
			b = append(b, `","returnDate":"`...)
		} else {
			b = append(b, `","dueDate":"`...)
		}
		return id, append(append(b, g.day(dueDay)...), `"}`...)
	}}
}
