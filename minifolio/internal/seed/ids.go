package seed

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strconv"
)

// ID derives a stable UUID (version 5 layout, RMB-valid) from a tenant, a
// kind and an index, so the same flags give the same ids on every machine
// and a k6 CSV or a test can name records without reading the database.
func ID(tenant, kind string, i int) [16]byte {
	// "minifolio/<tenant>/<kind>/<i>", built without fmt: the seed derives
	// several ids per row of tens of millions.
	var key [96]byte
	b := append(key[:0], "minifolio/"...)
	b = append(append(append(b, tenant...), '/'), kind...)
	b = strconv.AppendInt(append(b, '/'), int64(i), 10)
	h := sha1.Sum(b)
	var u [16]byte
	copy(u[:], h[:16])
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	return u
}

// IDString is ID formatted as 8-4-4-4-12.
func IDString(tenant, kind string, i int) string { return fmtUUID(ID(tenant, kind, i)) }

func fmtUUID(u [16]byte) string { return string(appendUUID(nil, u)) }

// appendUUID appends u as 8-4-4-4-12 lower-case hex.
func appendUUID(b []byte, u [16]byte) []byte {
	var s [36]byte
	hex.Encode(s[0:8], u[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], u[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], u[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], u[8:10])
	s[23] = '-'
	hex.Encode(s[24:36], u[10:16])
	return append(b, s[:]...)
}

// appendID appends IDString(tenant, kind, i).
func appendID(b []byte, tenant, kind string, i int) []byte { return appendUUID(b, ID(tenant, kind, i)) }

// Barcodes of the seeded records (documented in minifolio/README.md).
func ItemBarcode(i int) string { return fmt.Sprintf("itm%07d", i) }
func UserBarcode(i int) string { return fmt.Sprintf("usr%07d", i) }

// Special users for negative tests: a fixed handful whatever --users says.
const SpecialUsers = 5

func InactiveUserBarcode(i int) string { return fmt.Sprintf("inactive%04d", i) }
func BlockedUserBarcode(i int) string  { return fmt.Sprintf("blocked%04d", i) }
func MissingItemBarcode(i int) string  { return fmt.Sprintf("missing%04d", i) }

// PTFServicePointID is the service point of PTF's service_point.csv; the
// first seeded service point uses it so PTF's data files work unchanged.
const PTFServicePointID = "7068e104-aa14-4f30-a8bf-71f71cc15e07"
