// Package eurekatest finds the test stack's Keycloak for the tests of every package that starts a
// Eureka platform (minifolio's own `up` and internal/eureka's in-process deployments).
package eurekatest

import (
	"os"
	"testing"
)

// KeycloakURL is the test stack's real Keycloak (FP_KEYCLOAK_URL, else FP_KEYCLOAK_PORT on
// 127.0.0.1); the test is skipped without one, or fails under FP_REQUIRE_STACK, where a missing
// Keycloak is a broken stack rather than a machine without one.
func KeycloakURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("FP_KEYCLOAK_URL")
	if u == "" && os.Getenv("FP_KEYCLOAK_PORT") != "" {
		u = "http://127.0.0.1:" + os.Getenv("FP_KEYCLOAK_PORT")
	}
	if u == "" {
		if os.Getenv("FP_REQUIRE_STACK") != "" {
			t.Fatal("no Keycloak: start the test stack with it (stack/stack.sh up eureka) and export FP_KEYCLOAK_PORT")
		}
		t.Skip("no Keycloak (FP_KEYCLOAK_URL / FP_KEYCLOAK_PORT unset)")
	}
	return u
}
