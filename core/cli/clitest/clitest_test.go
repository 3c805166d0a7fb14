package clitest

import (
	"paddle/core/cli/cmdutil"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	code, out, errOut := Run(t, []*cmdutil.Kit{}, "", "version")
	if code != 0 || !strings.Contains(out, "test") {
		t.Errorf("version: exit %d, stdout %q, stderr %q; want 0 and the version", code, out, errOut)
	}
	if code, _, errOut := Run(t, nil, "", "no-such-verb"); code == 0 || errOut == "" {
		t.Errorf("unknown verb: exit %d, stderr %q; want an error", code, errOut)
	}
}

func TestNormalizeJSON(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"image":"a","ms":3.5,"results":[{"text":"x<y","score":0}]}` + "\n" + `{"image":"b","error":"e"}` + "\n",
			`{"image":"a","results":[{"text":"x<y","score":0}]}` + "\n" + `{"image":"b","error":"e"}` + "\n"},
		{"[\n  {\"b\": 1, \"a\": {\"ms\": [1, 2]}},\n  {\"ms\": 1}\n]\n", `{"b":1,"a":{}}` + "\n{}\n"},
		{"[]\n", "[]\n"},
	} {
		got, err := NormalizeJSON([]byte(tt.in))
		if err != nil || string(got) != tt.want {
			t.Errorf("NormalizeJSON(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := NormalizeJSON([]byte(`{"a":`)); err == nil {
		t.Error("truncated JSON: no error")
	}
}

func TestSameJSON(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{`{"s":0.12345,"p":[10,20]}`, `{"s":0.1239,"p":[11,19]}`, true},
		{`{"s":0.12345}`, `{"s":0.125}`, false},
		{`{"p":[10]}`, `{"p":[12]}`, false},
		{`{"label":"a"}`, `{"label":"b"}`, false},
		{`{"label":"a"}`, `{"text":"a"}`, false},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
	} {
		if err := sameJSON(tt.a, tt.b); (err == nil) != tt.same {
			t.Errorf("sameJSON(%s, %s) = %v, want same=%v", tt.a, tt.b, err, tt.same)
		}
	}
}
