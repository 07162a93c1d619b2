package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"errors"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/graph"
)

// markEvery is how many documents apart the hash's state is kept.
const markEvery = 256

// hashed is how a fingerprint was hashed: the encoding before the
// documents' list, the documents' entries, and the hash's state after
// every markEvery of them. A snapshot after an edit hashes on from the last
// state before its first changed entry instead of from the start: the
// digest is the very same, and the bytes before that state are proved
// equal (the head, and every entry before it) before it is used.
type hashed struct {
	head  []byte
	docs  [][]byte
	marks [][]byte // marks[m]: the state after head and docs[:m*markEvery]
}

// fingerprint is the digest of the compact canonical JSON of the config
// digest, every document's path and content digest, the admission's
// fingerprint, the omissions and completeness. docs are the documents' own
// canonical JSON, in order (docJSON): a snapshot after one edit encodes
// only that document again and hashes on from prev's state before it.
func (s *Snapshot) fingerprint(docs [][]byte, prev *Snapshot) (string, *hashed, error) {
	cd, err := s.configDigest()
	if err != nil {
		return "", nil, err
	}
	om := make([]any, len(s.Omissions))
	for i, o := range s.Omissions {
		om[i] = map[string]any{"kind": o.Kind, "reason": o.Reason, "count": o.Count}
	}
	b, err := canon.Compact(map[string]any{
		"schema": "vivary.tropo-document-snapshot/v0", "config": cd, "documents": []string{},
		"privacy": []string{s.Admission.Fingerprint}, "omissions": om, "complete": s.Complete,
	})
	if err != nil {
		return "", nil, err
	}
	// The keys are sorted and only "complete" and "config" (a boolean and
	// a digest) come before "documents", so this is its empty list.
	key := []byte(`"documents":[`)
	i := bytes.Index(b, append(key, ']'))
	if i < 0 {
		return "", nil, errors.New("no documents in the fingerprint's encoding")
	}
	hs := &hashed{head: b[:i+len(key)], docs: docs}
	h := sha256.New()
	from := 0
	if prev != nil && prev.hashed != nil && bytes.Equal(prev.hashed.head, hs.head) {
		// The entries are shared with prev's where the document was kept,
		// so this compares pointers until the first change.
		p, same := prev.hashed, 0
		for same < len(docs) && same < len(p.docs) && bytes.Equal(docs[same], p.docs[same]) {
			same++
		}
		if m := same / markEvery; m > 0 && m < len(p.marks) {
			if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(p.marks[m]); err != nil {
				return "", nil, err
			}
			hs.marks, from = append(make([][]byte, 0, len(docs)/markEvery+1), p.marks[:m+1]...), m*markEvery
		}
	}
	if from == 0 {
		h.Write(hs.head)
	}
	for j := from; j < len(docs); j++ {
		if j%markEvery == 0 && j/markEvery == len(hs.marks) {
			state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
			if err != nil {
				return "", nil, err
			}
			hs.marks = append(hs.marks, state)
		}
		if j > 0 {
			h.Write([]byte{','})
		}
		h.Write(docs[j])
	}
	h.Write(b[i+len(key):])
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), hs, nil
}

// docJSON is d's entry in the fingerprint's list of documents.
func docJSON(d *graph.Document) ([]byte, error) {
	if !plainJSON(d.Path) || !plainJSON(d.Digest) {
		return canon.Compact(map[string]string{"path": d.Path, "content": d.Digest})
	}
	// What canon writes for strings it need not escape, without the map
	// and the encoder: every document of a cold call has an entry.
	b := make([]byte, 0, len(d.Path)+len(d.Digest)+25)
	b = append(append(append(b, `{"content":"`...), d.Digest...), `","path":"`...)
	return append(append(b, d.Path...), `"}`...), nil
}

// plainJSON reports a string JSON holds as it is: printable ASCII, no
// quote, no backslash.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
