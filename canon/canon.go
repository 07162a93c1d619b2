// Package canon owns the byte-exact JSON forms the contract hashes and
// measures: the Python-compact form (json.dumps with separators (",",":"),
// raw UTF-8, optional ASCII escaping and code-point key order) and the
// canonical form (JS JSON.stringify rules with keys in UTF-16 order). Both
// escape exactly `"` `\` \b \f \n \r \t and other C0 controls as \u00xx, and
// never <, >, &, U+2028 or U+2029, unlike encoding/json.
package canon

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/vivary-dev/vivary-go/guard"
)

// Order is how object keys are ordered.
type Order int

const (
	// Unsorted keeps the order of the Go value (struct field order; maps are
	// sorted by bytes since Go has no insertion order).
	Unsorted Order = iota
	// CodePoint sorts keys by code point (Python sort_keys=True).
	CodePoint
	// UTF16 sorts keys by UTF-16 code units (canonical JSON).
	UTF16
)

// Options select one serialization.
type Options struct {
	Order Order
	ASCII bool // escape non-ASCII as \uxxxx (Python ensure_ascii=True)
}

// Compact is Python json.dumps(v, ensure_ascii=False, separators=(",",":"), sort_keys=True).
func Compact(v any) ([]byte, error) { return Encode(v, Options{Order: CodePoint}) }

// Canonical is the canonical JSON of v.
func Canonical(v any) ([]byte, error) { return Encode(v, Options{Order: UTF16}) }

// Fingerprint is "sha256:" + hex(sha256(Canonical(v))).
func Fingerprint(v any) (string, error) {
	b, err := Canonical(v)
	if err != nil {
		return "", err
	}
	return Digest(b), nil
}

// Digest is "sha256:" + hex(sha256(b)).
func Digest(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// Encode serializes v, which may be any value encoding/json accepts.
func Encode(v any, o Options) ([]byte, error) {
	tree, err := toTree(v, o.Order == Unsorted)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := write(&buf, tree, o); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// EncodeTree serializes a tree that is already generic (maps, slices,
// strings, json.Number, bool, nil), skipping the marshal round trip.
func EncodeTree(tree any, o Options) ([]byte, error) {
	var buf bytes.Buffer
	if err := write(&buf, tree, o); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ErrDuplicateKey is an object that names one key twice: in the same
// spelling once escapes are read ("id" and "\u0069d"), or in two that
// differ only in case (Unicode simple folding: "id" and "ID", "key" and
// "\u212Aey" with the Kelvin sign), which encoding/json takes for the same
// struct field.
var ErrDuplicateKey = errors.New("duplicate object key")

// DecodeStrict parses exactly one JSON value into a generic tree with exact
// numbers, refusing duplicate keys (ErrDuplicateKey) and trailing data. A
// document with a key twice reads one way to a decoder that keeps the
// first and another to one that keeps the last, or matches fields without
// case; refusing it leaves one reading.
func DecodeStrict(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := decodeOrdered(dec, true)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON value")
	}
	return plain(v), nil
}

// plain turns ordered objects back into maps.
func plain(v any) any {
	switch t := v.(type) {
	case *orderedObject:
		m := make(map[string]any, len(t.keys))
		for _, k := range t.keys {
			m[k] = plain(t.vals[k])
		}
		return m
	case []any:
		for i := range t {
			t[i] = plain(t[i])
		}
	}
	return v
}

// Decode parses JSON into a generic tree with exact numbers.
func Decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var t any
	if err := dec.Decode(&t); err != nil {
		return nil, err
	}
	return t, nil
}

// StringLen is the length of s as a JSON string literal, quotes included:
// with html, as encoding/json writes it (<, >, & and U+2028/9 as \u
// escapes, invalid UTF-8 as U+FFFD); without, as this package writes it.
func StringLen(s string, html bool) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20:
				n += 6
			case html && (c == '<' || c == '>' || c == '&'):
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			if html {
				n += 6
			} else {
				n += 3
			}
		case html && (r == '\u2028' || r == '\u2029'):
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// orderedObject keeps struct field order when the caller wants it.
type orderedObject struct {
	keys []string
	vals map[string]any
}

// toTree turns v into a generic tree of maps, slices, json.Number, string,
// bool and nil. With keepOrder, objects keep the order encoding/json wrote.
func toTree(v any, keepOrder bool) (any, error) {
	if t, ok := quickTree(v); ok {
		return t, nil
	}
	raw, err := marshalNoHTML(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if !keepOrder {
		var t any
		if err := dec.Decode(&t); err != nil {
			return nil, err
		}
		return t, nil
	}
	return decodeOrdered(dec, false)
}

// quickTree converts the plain shapes callers build by hand (maps of
// strings to values, slices, strings, integers, booleans) without the
// marshal round trip; ok is false for anything else.
func quickTree(v any) (any, bool) {
	switch t := v.(type) {
	case nil, bool, string, json.Number:
		return t, true
	case int:
		return json.Number(strconv.Itoa(t)), true
	case int64:
		return json.Number(strconv.FormatInt(t, 10)), true
	case []string:
		out := make([]any, len(t))
		for i, s := range t {
			out[i] = s
		}
		return out, true
	case map[string]string:
		out := make(map[string]any, len(t))
		for k, s := range t {
			out[k] = s
		}
		return out, true
	case []map[string]string:
		out := make([]any, len(t))
		for i, m := range t {
			out[i], _ = quickTree(m)
		}
		return out, true
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			q, ok := quickTree(e)
			if !ok {
				return nil, false
			}
			out[i] = q
		}
		return out, true
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			q, ok := quickTree(e)
			if !ok {
				return nil, false
			}
			out[k] = q
		}
		return out, true
	}
	return nil, false
}

func marshalNoHTML(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func decodeOrdered(dec *json.Decoder, strict bool) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &orderedObject{vals: map[string]any{}}
			var folded map[string]bool
			if strict {
				folded = map[string]bool{}
			}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				val, err := decodeOrdered(dec, strict)
				if err != nil {
					return nil, err
				}
				if strict {
					f := foldKey(k)
					if folded[f] {
						return nil, ErrDuplicateKey
					}
					folded[f] = true
				}
				if _, dup := o.vals[k]; !dup {
					o.keys = append(o.keys, k)
				}
				o.vals[k] = val
			}
			_, err := dec.Token()
			return o, err
		case '[':
			arr := []any{}
			for dec.More() {
				val, err := decodeOrdered(dec, strict)
				if err != nil {
					return nil, err
				}
				arr = append(arr, val)
			}
			_, err := dec.Token()
			return arr, err
		}
	}
	return tok, nil
}

// foldKey is k with every letter replaced by the least of the letters
// simple case folding equates it with (as encoding/json matches field
// names): two keys fold alike exactly when bytes.EqualFold says they are
// equal.
func foldKey(k string) string {
	ascii := true
	for i := 0; i < len(k) && ascii; i++ {
		ascii = k[i] < utf8.RuneSelf
	}
	if ascii {
		return strings.ToUpper(k)
	}
	b := make([]rune, 0, len(k))
	for _, r := range k {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b = append(b, least)
	}
	return string(b)
}

func write(buf *bytes.Buffer, v any, o Options) error {
	switch t := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		if t {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
	case json.Number:
		writeNumber(buf, t)
	case string:
		writeString(buf, t, o.ASCII)
	case []any:
		buf.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := write(buf, e, o); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sortKeys(keys, o.Order)
		return writeObject(buf, keys, t, o)
	case *orderedObject:
		return writeObject(buf, t.keys, t.vals, o)
	default:
		return fmt.Errorf("canon: unsupported value %T", v)
	}
	return nil
}

func writeObject(buf *bytes.Buffer, keys []string, vals map[string]any, o Options) error {
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeString(buf, k, o.ASCII)
		buf.WriteByte(':')
		if err := write(buf, vals[k], o); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

func sortKeys(keys []string, ord Order) {
	if ord == UTF16 {
		sort.Slice(keys, func(i, j int) bool { return guard.Less(keys[i], keys[j]) })
		return
	}
	sort.Strings(keys) // byte order of UTF-8 is code-point order
}

// writeNumber writes integers in decimal and other numbers as JS would.
func writeNumber(buf *bytes.Buffer, n json.Number) {
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		buf.WriteString(strconv.FormatInt(i, 10))
		return
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		buf.WriteString("null")
		return
	}
	if f == float64(int64(f)) && f < 1e21 && f > -1e21 {
		buf.WriteString(strconv.FormatInt(int64(f), 10))
		return
	}
	buf.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
}

const hexDigits = "0123456789abcdef"

func writeString(buf *bytes.Buffer, s string, ascii bool) {
	buf.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				buf.WriteString(`\"`)
			case '\\':
				buf.WriteString(`\\`)
			case '\n':
				buf.WriteString(`\n`)
			case '\r':
				buf.WriteString(`\r`)
			case '\t':
				buf.WriteString(`\t`)
			case '\b':
				buf.WriteString(`\b`)
			case '\f':
				buf.WriteString(`\f`)
			default:
				if c < 0x20 {
					buf.WriteString(`\u00`)
					buf.WriteByte(hexDigits[c>>4])
					buf.WriteByte(hexDigits[c&0xf])
				} else {
					buf.WriteByte(c)
				}
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if ascii {
			if r >= 0x10000 {
				a, b := utf16.EncodeRune(r)
				writeU(buf, a)
				writeU(buf, b)
			} else {
				writeU(buf, r)
			}
		} else if r == utf8.RuneError && n == 1 {
			buf.WriteString("\ufffd")
		} else {
			buf.WriteString(s[i : i+n])
		}
		i += n
	}
	buf.WriteByte('"')
}

func writeU(buf *bytes.Buffer, r rune) {
	buf.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		buf.WriteByte(hexDigits[(r>>uint(shift))&0xf])
	}
}
