// Package credentials stores and checks operator passwords the way mod-login
// keeps them: a salted hash in <tenant>_mod_login.auth_credentials, never the
// password itself. The seed writes them, the gateway's /authn/login checks them.
package credentials

import (
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
)

// Iterations is low on purpose: minifolio is a local stand-in and logins sit on
// the hot path of short load tests. It is not a place to keep real passwords.
const Iterations = 1000

// Record is the jsonb of one auth_credentials row.
type Record struct {
	UserID string `json:"userId"`
	Salt   string `json:"salt"`
	Hash   string `json:"hash"`
}

// New hashes password with a fresh random salt.
func New(userID, password string) (Record, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return Record{}, err
	}
	s := hex.EncodeToString(salt)
	return Record{UserID: userID, Salt: s, Hash: hash(password, s)}, nil
}

// Matches reports whether password is the one the record was made from.
func (r Record) Matches(password string) bool {
	return subtle.ConstantTimeCompare([]byte(hash(password, r.Salt)), []byte(r.Hash)) == 1
}

func hash(password, salt string) string {
	key, err := pbkdf2.Key(sha256.New, password, []byte(salt), Iterations, 32)
	if err != nil { // only for invalid key lengths, which 32 is not
		panic(err)
	}
	return hex.EncodeToString(key)
}
