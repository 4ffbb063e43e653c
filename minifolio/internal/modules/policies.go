package modules

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// policies are the ids mod-circulation's circulation rules give a loan.
type policies struct {
	loan, request, notice, overdue, lostItem string
}

// fallbackPolicies reads the rules' "fallback-policy: l <id> r <id> n <id>
// o <id> i <id>" line. minifolio applies the fallback to every item: the PTF
// data sets use one rule set whose specific rules all resolve to the same
// policies, and rule matching is not what the CICO tests measure.
func fallbackPolicies(rulesText string) (policies, bool) {
	for _, line := range strings.Split(rulesText, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "fallback-policy:") {
			continue
		}
		f := strings.Fields(strings.TrimPrefix(line, "fallback-policy:"))
		var p policies
		for i := 0; i+1 < len(f); i += 2 {
			switch f[i] {
			case "l":
				p.loan = f[i+1]
			case "r":
				p.request = f[i+1]
			case "n":
				p.notice = f[i+1]
			case "o":
				p.overdue = f[i+1]
			case "i":
				p.lostItem = f[i+1]
			}
		}
		return p, p.loan != ""
	}
	return policies{}, false
}

// resolvePolicies finds the tenant's policies: the circulation rules'
// fallback line, else the first policy of each kind (a tenant seeded without
// rules still circulates, as a single-policy library would).
func resolvePolicies(ctx context.Context, o *okapiClient, refs *refCache, cl caller) (policies, error) {
	rules, err := refs.get(ctx, cl, "/circulation-rules-storage")
	if err != nil {
		return policies{}, err
	}
	if p, ok := fallbackPolicies(str(rules, "rulesAsText")); ok {
		return p, nil
	}
	first := func(path, key string) (string, error) {
		rec, err := refs.get(ctx, cl, path+"?limit=1")
		if err != nil {
			return "", err
		}
		for _, x := range list(rec, key) {
			if m, ok := x.(map[string]any); ok {
				return str(m, "id"), nil
			}
		}
		return "", nil
	}
	var p policies
	if p.loan, err = first("/loan-policy-storage/loan-policies", "loanPolicies"); err != nil {
		return p, err
	}
	if p.loan == "" {
		return p, serverError(fmt.Sprintf("no circulation rules and no loan policy for tenant %s: run `minifolio seed` first", cl.tenant))
	}
	if p.overdue, err = first("/overdue-fines-policies", "overdueFinePolicies"); err != nil {
		return p, err
	}
	if p.lostItem, err = first("/lost-item-fees-policies", "lostItemFeePolicies"); err != nil {
		return p, err
	}
	return p, nil
}

// dueDate applies loansPolicy.period ({duration, intervalId}) to the loan
// date; a policy without a period lends for three weeks (FOLIO's example
// policy) so that a loan always has a due date, which the loan schema needs.
func dueDate(policy obj, loanDate time.Time) time.Time {
	lp := sub(policy, "loansPolicy")
	period := sub(lp, "period")
	n := 0
	switch d := period["duration"].(type) {
	case float64:
		n = int(d)
	}
	if n <= 0 {
		return loanDate.AddDate(0, 0, 21)
	}
	switch str(period, "intervalId") {
	case "Minutes":
		return loanDate.Add(time.Duration(n) * time.Minute)
	case "Hours":
		return loanDate.Add(time.Duration(n) * time.Hour)
	case "Days":
		return loanDate.AddDate(0, 0, n)
	case "Weeks":
		return loanDate.AddDate(0, 0, 7*n)
	case "Months":
		return loanDate.AddDate(0, n, 0)
	}
	return loanDate.AddDate(0, 0, 21)
}
