package canon_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/vivary-dev/vivary-go/canon"
)

func TestEncodings(t *testing.T) {
	v := map[string]any{"b": "<&>\u2028é\n\x01\"\\", "a": []any{1, true, nil, 2.5}, "\uFF5E": 1, "\U0001F600": 2}
	compact, err := canon.Compact(v)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"a\":[1,true,null,2.5],\"b\":\"<&>\u2028é\\n\\u0001\\\"\\\\\",\"\uFF5E\":1,\"\U0001F600\":2}"
	if string(compact) != want {
		t.Errorf("compact\n got %s\nwant %s", compact, want)
	}
	canonical, _ := canon.Canonical(v)
	wantC := "{\"a\":[1,true,null,2.5],\"b\":\"<&>\u2028é\\n\\u0001\\\"\\\\\",\"\U0001F600\":2,\"\uFF5E\":1}"
	if string(canonical) != wantC {
		t.Errorf("canonical\n got %s\nwant %s", canonical, wantC)
	}
	ascii, _ := canon.Encode(map[string]any{"k": "é\U0001F600"}, canon.Options{Order: canon.CodePoint, ASCII: true})
	if string(ascii) != `{"k":"\u00e9\ud83d\ude00"}` {
		t.Errorf("ascii %s", ascii)
	}
	type s struct {
		Z int `json:"z"`
		A int `json:"a"`
	}
	ordered, _ := canon.Encode(s{1, 2}, canon.Options{})
	if string(ordered) != `{"z":1,"a":2}` {
		t.Errorf("unsorted %s", ordered)
	}
}

func TestFingerprint(t *testing.T) {
	fp, err := canon.Fingerprint(map[string]any{"a": 1})
	if err != nil || fp != "sha256:015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862" {
		t.Fatalf("%s %v", fp, err)
	}
}

func TestStringLen(t *testing.T) {
	for _, s := range []string{"", "plain", "<&>", "\u2028é\x01\b\f\n\"\\", "\xff", "😀"} {
		py, _ := canon.Encode(s, canon.Options{})
		if canon.StringLen(s, false) != len(py) {
			t.Errorf("%q: python length %d, counted %d", s, len(py), canon.StringLen(s, false))
		}
		goJSON, _ := json.Marshal(s)
		if canon.StringLen(s, true) != len(goJSON) {
			t.Errorf("%q: go length %d, counted %d", s, len(goJSON), canon.StringLen(s, true))
		}
	}
}

// A key twice in one object is refused however it is spelt the second
// time: escaped, or in another case as encoding/json matches struct
// fields (Unicode simple folding, the Kelvin sign and the long s
// included), at any depth. Keys only a normalisation or a look-alike would
// equate are different keys to every decoder, and stay apart.
func TestDecodeStrictRefusesAKeyTwice(t *testing.T) {
	for _, doc := range []string{
		`{"id":1,"id":2}`,
		`{"id":1,"\u0069d":2}`,
		`{"id":1,"ID":2}`,
		`{"method":"a","Method":"b"}`,
		`{"params":{},"paramſ":{}}`,
		`{"key":1,"\u212Aey":2}`,
		`{"a":[{"b":{"name":1,"NAME":2}}]}`,
		`{"ǅ":1,"ǆ":2}`,
		`{"Σ":1,"ς":2}`,
	} {
		if _, err := canon.DecodeStrict([]byte(doc)); !errors.Is(err, canon.ErrDuplicateKey) {
			t.Errorf("%s: %v, want a duplicate key", doc, err)
		}
	}
	for _, doc := range []string{
		`{"id":1,"ids":2}`,
		`{"i":1,"ı":2}`,
		`{"é":1,"e\u0301":2}`,
		`{"a":{"id":1},"b":{"id":2}}`,
		`[{"id":1},{"id":2}]`,
	} {
		if _, err := canon.DecodeStrict([]byte(doc)); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
}
