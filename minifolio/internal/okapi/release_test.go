package okapi

import "testing"

// The release-dependent answers (CORS credentials from Okapi 5.0.0, one login
// error from mod-login 7.13.1) read the profile's module ids.
func TestReleaseAtLeast(t *testing.T) {
	cases := []struct {
		ids  []string
		want bool
	}{
		{[]string{"mod-users-19.0.0", "mod-login-7.13.1"}, true},
		{[]string{"mod-login-7.13.0"}, false},
		{[]string{"mod-login-7.14.0"}, true},
		{[]string{"mod-login-8.0.0"}, true},
		{[]string{"mod-login-7.9.10"}, false},
		{[]string{"mod-login-x"}, false},      // unparsable: ifUnknown
		{[]string{"mod-users-19.0.0"}, false}, // not listed: ifUnknown
	}
	for _, c := range cases {
		if got := genericLoginErrors(c.ids); got != c.want {
			t.Errorf("genericLoginErrors(%v) = %v, want %v", c.ids, got, c.want)
		}
	}
	if okapiCredentials([]string{"okapi-4.13.2"}) || !okapiCredentials([]string{"okapi-5.0.1"}) || !okapiCredentials(nil) {
		t.Error("okapi credentials: 4.x without, 5.x and the default release with")
	}
}
