package eureka

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// What mgr-tenants (3.0.6 and later, 4.0.0) sets up in a tenant's realm, from
// its application.yml (keycloak.realm-setup) and KeycloakRealmService,
// LoginClientService, KeycloakClientUtils and ClientAttributes; docs/eureka.md
// lists the values with their sources.
const (
	// LoginClientSuffix names the login client: "<tenant>-login-application"
	// (KC_LOGIN_CLIENT_SUFFIX). mod-login-keycloak logs in through it and the
	// sidecar asks it for permission decisions (audience).
	LoginClientSuffix = "-login-application"
	// StaffRole is the realm role every minifolio staff login gets. FOLIO's
	// roles come from mod-roles-keycloak, one policy and permission per
	// capability; minifolio grants its staff every route through one role.
	StaffRole       = "minifolio-staff"
	systemRole      = "System"
	defaultTokenTTL = 600 * time.Second
	sessionSeconds  = 86400
	codeLifespan    = 600
	// setupAttribute records which minifolio set-up a realm has, so a realm
	// made by an older set-up (other resources) is made anew.
	setupAttribute = "minifolio.setup"
)

// The login client's authorization scopes: one per HTTP method
// (LoginClientService.SCOPES).
var scopes = []string{"GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"}

// RealmSpec is one tenant's realm.
type RealmSpec struct {
	Tenant string
	// AccessTokenTTL is the realm's access-token lifespan (mgr-tenants: 600 s).
	AccessTokenTTL time.Duration
	// Resources are the permission resources: the routes the sidecars ask
	// about ("/circulation", one per module path prefix).
	Resources []string
}

func (s RealmSpec) ttl() int {
	if s.AccessTokenTTL <= 0 {
		return int(defaultTokenTTL.Seconds())
	}
	return max(1, int(s.AccessTokenTTL.Seconds()))
}

// setupID is a digest of what the spec sets up besides the token lifespan
// (which is changed in place).
func (s RealmSpec) setupID() string {
	r := append([]string(nil), s.Resources...)
	sort.Strings(r)
	h := sha256.Sum256([]byte("v2|" + strings.Join(r, ",")))
	return hex.EncodeToString(h[:8])
}

// representation is the realm as POST /admin/realms takes it: the realm
// settings, its roles and the login client with its protocol mappers and
// authorization settings, in one import.
func (s RealmSpec) representation(secret string) map[string]any {
	profile, _ := json.Marshal(userProfile)
	var resources []map[string]any
	for _, name := range s.Resources {
		var sc []map[string]string
		for _, x := range scopes {
			sc = append(sc, map[string]string{"name": x})
		}
		resources = append(resources, map[string]any{"name": name, "scopes": sc, "ownerManagedAccess": false})
	}
	var scopeList []map[string]string
	for _, x := range scopes {
		scopeList = append(scopeList, map[string]string{"name": x, "displayName": x, "iconUri": x})
	}
	scopesJSON, _ := json.Marshal(scopes)
	rolePolicy := func(name, role string) map[string]any {
		roles, _ := json.Marshal([]map[string]any{{"id": role, "required": false}})
		return map[string]any{"name": name, "type": "role", "logic": "POSITIVE", "decisionStrategy": "UNANIMOUS",
			"config": map[string]string{"roles": string(roles), "fetchRoles": "true"}}
	}
	scopePermission := func(name, policy string) map[string]any {
		apply, _ := json.Marshal([]string{policy})
		return map[string]any{"name": name, "type": "scope", "logic": "POSITIVE", "decisionStrategy": "UNANIMOUS",
			"config": map[string]string{"scopes": string(scopesJSON), "applyPolicies": string(apply)}}
	}
	mapper := func(name, typ string, cfg map[string]string) map[string]any {
		c := map[string]string{"id.token.claim": "true", "access.token.claim": "true", "userinfo.token.claim": "true",
			"lightweight.claim": "true"}
		for k, v := range cfg {
			c[k] = v
		}
		return map[string]any{"name": name, "protocol": "openid-connect", "protocolMapper": typ, "config": c}
	}
	client := map[string]any{
		"clientId": s.Tenant + LoginClientSuffix, "name": s.Tenant + LoginClientSuffix,
		"description": "Client for login operations", "enabled": true, "secret": secret,
		"clientAuthenticatorType": "client-secret", "directAccessGrantsEnabled": true, "frontchannelLogout": true,
		"serviceAccountsEnabled": true, "authorizationServicesEnabled": true,
		"redirectUris": []string{"/*"}, "webOrigins": []string{"/*"},
		"attributes": map[string]string{
			"oidc.ciba.grant.enabled": "false", "oauth2.device.authorization.grant.enabled": "false",
			"client.secret.creation.time": fmt.Sprint(time.Now().Unix()), "backchannel.logout.session.required": "true",
			"backchannel.logout.revoke.offline.tokens": "false", "client.use.lightweight.access.token.enabled": "true",
		},
		"protocolMappers": []map[string]any{
			mapper("username", "oidc-usermodel-property-mapper", map[string]string{"user.attribute": "username",
				"claim.name": "sub", "jsonType.label": "String"}),
			mapper("user_id mapper", "oidc-usermodel-attribute-mapper", map[string]string{"user.attribute": "user_id",
				"claim.name": "user_id", "jsonType.label": "String"}),
			mapper("Subject (sub)", "oidc-sub-mapper", nil),
		},
		"authorizationSettings": map[string]any{
			"allowRemoteResourceManagement": true, "policyEnforcementMode": "ENFORCING", "decisionStrategy": "AFFIRMATIVE",
			"scopes": scopeList, "resources": resources,
			"policies": []map[string]any{
				rolePolicy("System role policy", systemRole),
				rolePolicy("Policy for role: "+StaffRole, StaffRole),
				scopePermission("System role permission", "System role policy"),
				scopePermission("Permission for role: "+StaffRole, "Policy for role: "+StaffRole),
			},
		},
	}
	return map[string]any{
		"id": s.Tenant, "realm": s.Tenant, "enabled": true,
		"duplicateEmailsAllowed": true, "loginWithEmailAllowed": false, "editUsernameAllowed": true,
		"accessCodeLifespan": codeLifespan, "attributes": map[string]string{"parRequestUriLifespan": fmt.Sprint(codeLifespan),
			setupAttribute: s.setupID()},
		"revokeRefreshToken": true, "refreshTokenMaxReuse": 0,
		"accessTokenLifespan":   s.ttl(),
		"ssoSessionIdleTimeout": sessionSeconds, "ssoSessionMaxLifespan": sessionSeconds,
		"clientSessionIdleTimeout": sessionSeconds, "clientSessionMaxLifespan": sessionSeconds,
		"components": map[string]any{"org.keycloak.userprofile.UserProfileProvider": []map[string]any{{
			"providerId": "declarative-user-profile",
			"config":     map[string][]string{"kc.user.profile.config": {string(profile)}},
		}}},
		"requiredActions": requiredActions(),
		"roles":           map[string]any{"realm": []map[string]string{{"name": systemRole}, {"name": StaffRole}}},
		"clients":         []any{client},
	}
}

// requiredActions is mgr-tenants' json/realms/authentication-required-actions.json:
// every required action off (so a user without e-mail or names can log in).
func requiredActions() []map[string]any {
	actions := [][2]string{{"CONFIGURE_TOTP", "Configure OTP"}, {"TERMS_AND_CONDITIONS", "Terms and Conditions"},
		{"UPDATE_PASSWORD", "Update Password"}, {"UPDATE_PROFILE", "Update Profile"}, {"VERIFY_EMAIL", "Verify Email"},
		{"delete_account", "Delete Account"}, {"webauthn-register", "Webauthn Register"},
		{"webauthn-register-passwordless", "Webauthn Register Passwordless"}, {"VERIFY_PROFILE", "Verify Profile"},
		{"delete_credential", "Delete Credential"}, {"update_user_locale", "Update User Locale"}}
	var out []map[string]any
	for i, a := range actions {
		prio := (i + 1) * 10
		if a[0] == "update_user_locale" {
			prio = 1000
		}
		out = append(out, map[string]any{"alias": a[0], "name": a[1], "providerId": a[0], "enabled": false,
			"defaultAction": false, "priority": prio, "config": map[string]string{}})
	}
	return out
}

// userProfile is mgr-tenants' json/realms/user-profile-configuration.json:
// unmanaged attributes enabled, so the user_id attribute sticks to a user.
var userProfile = map[string]any{
	"attributes": []map[string]any{
		{"name": "username", "displayName": "${username}", "multivalued": false,
			"permissions": map[string][]string{"view": {"admin", "user"}, "edit": {"admin", "user"}}},
		{"name": "email", "displayName": "${email}", "multivalued": false,
			"validations": map[string]any{"length": map[string]int{"max": 255}},
			"required":    map[string][]string{"roles": {"user"}},
			"permissions": map[string][]string{"view": {"admin", "user"}, "edit": {"admin", "user"}}},
		{"name": "firstName", "displayName": "${firstName}", "multivalued": false,
			"validations": map[string]any{"length": map[string]int{"max": 255}},
			"required":    map[string][]string{"roles": {"user"}},
			"permissions": map[string][]string{"view": {"admin", "user"}, "edit": {"admin", "user"}}},
		{"name": "lastName", "displayName": "${lastName}", "multivalued": false,
			"validations": map[string]any{"length": map[string]int{"max": 255}},
			"required":    map[string][]string{"roles": {"user"}},
			"permissions": map[string][]string{"view": {"admin", "user"}, "edit": {"admin", "user"}}},
	},
	"groups": []map[string]string{{"name": "user-metadata", "displayHeader": "User metadata",
		"displayDescription": "Attributes, which refer to user metadata"}},
	"unmanagedAttributePolicy": "ENABLED",
}

// EnsureRealm makes the tenant's realm match spec: created when missing, made
// anew when an older set-up made it, its access-token lifespan changed in place.
func (k *Keycloak) EnsureRealm(ctx context.Context, spec RealmSpec) error {
	var cur struct {
		AccessTokenLifespan int               `json:"accessTokenLifespan"`
		Attributes          map[string]string `json:"attributes"`
	}
	err := k.adminJSON(ctx, http.MethodGet, "/"+url.PathEscape(spec.Tenant), nil, &cur)
	switch {
	case IsNotFound(err):
		return k.createRealm(ctx, spec)
	case err != nil:
		return err
	case cur.Attributes[setupAttribute] != spec.setupID():
		if err := k.DeleteRealm(ctx, spec.Tenant); err != nil {
			return err
		}
		return k.createRealm(ctx, spec)
	case cur.AccessTokenLifespan != spec.ttl():
		return k.adminJSON(ctx, http.MethodPut, "/"+url.PathEscape(spec.Tenant),
			map[string]any{"accessTokenLifespan": spec.ttl()}, nil)
	}
	return nil
}

func (k *Keycloak) createRealm(ctx context.Context, spec RealmSpec) error {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	err := k.adminJSON(ctx, http.MethodPost, "", spec.representation(hex.EncodeToString(b)), nil)
	var ae *AdminError
	if err != nil && !(errors.As(err, &ae) && ae.Status == http.StatusConflict) {
		return fmt.Errorf("creating realm %s: %w", spec.Tenant, err)
	}
	return nil
}

// DeleteRealm removes a tenant's realm (tests, after dropping their tenant);
// a missing realm is no error.
func (k *Keycloak) DeleteRealm(ctx context.Context, realm string) error {
	err := k.adminJSON(ctx, http.MethodDelete, "/"+url.PathEscape(realm), nil, nil)
	if IsNotFound(err) {
		return nil
	}
	return err
}

// secrets caches the login clients' secrets by realm (FOLIO keeps them in its
// secret store; here Keycloak itself is the store).
var secrets sync.Map

// LoginClientSecret is the secret of the realm's login client.
func (k *Keycloak) LoginClientSecret(ctx context.Context, realm string) (string, error) {
	if v, ok := secrets.Load(k.URL + "|" + realm); ok {
		return v.(string), nil
	}
	id, err := k.loginClientUUID(ctx, realm)
	if err != nil {
		return "", err
	}
	var sec struct {
		Value string `json:"value"`
	}
	if err := k.adminJSON(ctx, http.MethodGet, "/"+url.PathEscape(realm)+"/clients/"+id+"/client-secret", nil, &sec); err != nil {
		return "", err
	}
	secrets.Store(k.URL+"|"+realm, sec.Value)
	return sec.Value, nil
}

// ForgetSecret drops a cached secret (its realm was made anew).
func (k *Keycloak) ForgetSecret(realm string) { secrets.Delete(k.URL + "|" + realm) }

func (k *Keycloak) loginClientUUID(ctx context.Context, realm string) (string, error) {
	var list []struct {
		ID string `json:"id"`
	}
	q := url.Values{"clientId": {realm + LoginClientSuffix}}
	if err := k.adminJSON(ctx, http.MethodGet, "/"+url.PathEscape(realm)+"/clients?"+q.Encode(), nil, &list); err != nil {
		return "", err
	}
	if len(list) == 0 {
		return "", &AdminError{Method: http.MethodGet, Path: "/" + realm + "/clients", Status: http.StatusNotFound, Body: "no login client"}
	}
	return list[0].ID, nil
}

// User is a Keycloak user as mod-users-keycloak creates one: the FOLIO user's
// username, its id in the user_id attribute, enabled as the FOLIO user is active.
type User struct {
	Username, UserID, Password string
	Enabled                    bool
	Staff                      bool // gets StaffRole
}

// CreateUser creates u in the realm with its password; an existing username
// is a conflict (409), reported as is.
func (k *Keycloak) CreateUser(ctx context.Context, realm string, u User) error {
	rep := map[string]any{"username": u.Username, "enabled": u.Enabled, "emailVerified": false,
		"attributes":  map[string][]string{"user_id": {u.UserID}},
		"credentials": []map[string]any{{"type": "password", "value": u.Password, "temporary": false}}}
	r, err := k.Admin(ctx, http.MethodPost, "/"+url.PathEscape(realm)+"/users", rep)
	if err != nil {
		return err
	}
	if r.Status != http.StatusCreated {
		return &AdminError{Method: http.MethodPost, Path: "/" + realm + "/users", Status: r.Status, Body: string(r.Body)}
	}
	if !u.Staff {
		return nil
	}
	loc := r.Header.Get("Location")
	id := loc[strings.LastIndexByte(loc, '/')+1:]
	var role map[string]any
	if err := k.adminJSON(ctx, http.MethodGet, "/"+url.PathEscape(realm)+"/roles/"+StaffRole, nil, &role); err != nil {
		return err
	}
	return k.adminJSON(ctx, http.MethodPost, "/"+url.PathEscape(realm)+"/users/"+id+"/role-mappings/realm",
		[]any{role}, nil)
}

// UserIDByUserID finds the Keycloak id of the user whose user_id attribute is
// folioID ("" when there is none), as mod-login-keycloak does for logout-all.
func (k *Keycloak) UserIDByUserID(ctx context.Context, realm, folioID string) (string, error) {
	var list []struct {
		ID string `json:"id"`
	}
	q := url.Values{"q": {"user_id:" + folioID}, "exact": {"true"}}
	if err := k.adminJSON(ctx, http.MethodGet, "/"+url.PathEscape(realm)+"/users?"+q.Encode(), nil, &list); err != nil {
		return "", err
	}
	if len(list) == 0 {
		return "", nil
	}
	return list[0].ID, nil
}
