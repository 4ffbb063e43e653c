package influxout

import (
	"strings"
	"testing"
	"time"
)

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig("http://127.0.0.1:58086/k6test", map[string]string{})
	if err != nil || c.Addr != "http://127.0.0.1:58086" || c.DB != "k6test" || c.PushInterval != time.Second {
		t.Fatalf("plain URL: %+v, %v", c, err)
	}
	if len(c.TagsAsFields) != 3 || c.TagsAsFields[2] != (tagField{"url", String}) {
		t.Fatalf("default tags as fields are k6's (vu, iter, url): %+v", c.TagsAsFields)
	}
	c, err = ParseConfig("https://u:secret@influx.example:8086", map[string]string{
		"K6_INFLUXDB_PASSWORD": "fromenv", "K6_INFLUXDB_PUSH_INTERVAL": "5s", "K6_INFLUXDB_TAGS_AS_FIELDS": "vu:int, url,ok:bool,r:float"})
	if err != nil || c.DB != "k6" || c.Username != "u" || c.Password != "secret" || c.PushInterval != 5*time.Second {
		t.Fatalf("URL with user and password (they win over the environment), env settings: %+v, %v", c, err)
	}
	want := []tagField{{"vu", Int}, {"url", String}, {"ok", Bool}, {"r", Float}}
	for i, f := range want {
		if c.TagsAsFields[i] != f {
			t.Fatalf("tags as fields: got %+v, want %+v", c.TagsAsFields, want)
		}
	}

	// The URL wins over the environment, as in k6's output; a blank list keeps the default.
	c, err = ParseConfig("http://fromurl:pw@127.0.0.1:8086", map[string]string{
		"K6_INFLUXDB_USERNAME": "fromenv", "K6_INFLUXDB_PASSWORD": "envpw", "K6_INFLUXDB_DB": "envdb", "K6_INFLUXDB_TAGS_AS_FIELDS": " "})
	if err != nil || c.Username != "fromurl" || c.Password != "pw" || c.DB != "envdb" || len(c.TagsAsFields) != 3 {
		t.Fatalf("URL over environment, blank tags as fields: %+v, %v", c, err)
	}

	bad := []struct {
		arg  string
		env  map[string]string
		want string
	}{
		{"", nil, "no InfluxDB URL"},
		{"127.0.0.1:8086", nil, "is not an InfluxDB URL"},
		{"udp://127.0.0.1:8089", nil, "is not an InfluxDB URL"},
		{"http://u:hunter2@127.0.0.1:8086/k6?precision=s", nil, "takes no URL parameters"},
		{"u:hunter2@127.0.0.1:8086/k6", nil, "is not an InfluxDB URL"},
		{"http://u:hunter2@h%zz:8086/k6", nil, "is not an InfluxDB URL"},
		{"http://u:hunter2@[::1:8086/k6", nil, "is not an InfluxDB URL"},
		{"http://127.0.0.1:8086/k6", map[string]string{"K6_INFLUXDB_PUSH_INTERVAL": "soon"}, "not a positive duration"},
		{"http://127.0.0.1:8086/k6", map[string]string{"K6_INFLUXDB_TAGS_AS_FIELDS": "vu:integer"}, "unknown type"},
		{"http://127.0.0.1:8086/k6", map[string]string{"K6_INFLUXDB_TAGS_AS_FIELDS": "vu,vu:int"}, "appears twice"},
		{"http://127.0.0.1:8086/k6", map[string]string{"K6_INFLUXDB_PRECISION": "s"}, "not supported"},
	}
	for _, b := range bad {
		_, err := ParseConfig(b.arg, b.env)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("ParseConfig(%q, %v): error %v, want one containing %q", b.arg, b.env, err, b.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the error shows the password: %v", err)
		}
	}
	if got := redact("http://u:hunter2@h:1/db"); strings.Contains(got, "hunter2") {
		t.Errorf("redact kept the password: %s", got)
	}
}
