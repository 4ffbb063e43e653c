package credentials

import "testing"

func TestMatches(t *testing.T) {
	r, err := New("u1", "admin")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Matches("admin") {
		t.Error("right password rejected")
	}
	if r.Matches("Admin") || r.Matches("") {
		t.Error("wrong password accepted")
	}
	r2, _ := New("u1", "admin")
	if r2.Salt == r.Salt || r2.Hash == r.Hash {
		t.Error("two records share a salt: salts must be random")
	}
}
