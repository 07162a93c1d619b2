package snapshot

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"errors"
	"slices"

	"github.com/vivary-dev/vivary-go/canon"
	"github.com/vivary-dev/vivary-go/graph"
)

// chunk is how many documents' entries one piece of a fingerprint's
// encoding holds, and how many documents' stamps one piece of a
// snapshot's holds (see Snapshot.infos): a snapshot after an edit makes
// again only the pieces that hold a changed document and shares the rest.
const chunk = 256

// entries is the encoding of a snapshot's documents' list, in pieces of
// chunk documents: piece c is the entries of documents c*chunk onwards,
// each after a comma but the very first, end to end, and ends[c] where
// each of them ends in it. Never changed once made: snapshots share them.
type entries struct {
	pieces [][]byte
	ends   [][]int32
}

// entriesOf is the encoding of docs, each a document's entry (docJSON).
func entriesOf(docs [][]byte) *entries {
	e := &entries{}
	for lo := 0; lo < len(docs); lo += chunk {
		part := docs[lo:min(lo+chunk, len(docs))]
		n := 0
		for _, d := range part {
			n += 1 + len(d)
		}
		b, ends := make([]byte, 0, n), make([]int32, 0, len(part))
		for i, d := range part {
			if lo+i > 0 {
				b = append(b, ',')
			}
			b = append(b, d...)
			ends = append(ends, int32(len(b)))
		}
		e.pieces, e.ends = append(e.pieces, b), append(e.ends, ends)
	}
	return e
}

// with is e with the entry of document at[k] replaced by by[k]: the
// pieces that hold none of them are e's own.
func (e *entries) with(at []int, by [][]byte) *entries {
	n := &entries{pieces: slices.Clone(e.pieces), ends: slices.Clone(e.ends)}
	for k, i := range at {
		c, j := i/chunk, i%chunk
		b, ends := n.pieces[c], n.ends[c]
		start := 0
		if j > 0 {
			start = int(ends[j-1])
		}
		if i > 0 {
			start++ // the comma
		}
		nb := make([]byte, 0, len(b)-int(ends[j])+start+len(by[k]))
		nb = append(append(append(nb, b[:start]...), by[k]...), b[ends[j]:]...)
		shift := int32(len(nb) - len(b))
		ne := slices.Clone(ends)
		for m := j; m < len(ne); m++ {
			ne[m] += shift
		}
		n.pieces[c], n.ends[c] = nb, ne
	}
	return n
}

// hashed is how a fingerprint was hashed: the encoding before the
// documents' list, the list's pieces, and the hash's state before each
// piece. A snapshot after an edit hashes on from the state before its
// first changed piece instead of from the start: the digest is the very
// same, and the bytes before that state are proved equal (the head, and
// every piece before it) before it is used.
type hashed struct {
	head  []byte
	list  *entries
	marks [][]byte // marks[c]: the state after head and pieces[:c]
}

// fingerprint is the digest of the compact canonical JSON of the config
// digest, every document's path and content digest, the admission's
// fingerprint, the omissions and completeness. list is the documents'
// entries, in order: a snapshot after one edit encodes only that
// document again and hashes on from prev's state before its piece.
func (s *Snapshot) fingerprint(ctx context.Context, list *entries, prev *Snapshot) (string, *hashed, error) {
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
	hs := &hashed{head: b[:i+len(key)], list: list, marks: make([][]byte, 0, len(list.pieces))}
	h := sha256.New()
	from := 0
	if prev != nil && prev.hashed != nil && bytes.Equal(prev.hashed.head, hs.head) {
		// Pieces shared with prev's are the very same bytes, so this
		// compares pointers until the first change.
		p, same := prev.hashed, 0
		for same < len(list.pieces) && same < len(p.list.pieces) && bytes.Equal(list.pieces[same], p.list.pieces[same]) {
			same++
		}
		if same > 0 && same < len(p.marks) {
			if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(p.marks[same]); err != nil {
				return "", nil, err
			}
			hs.marks, from = append(hs.marks, p.marks[:same+1]...), same
		}
	}
	if from == 0 {
		h.Write(hs.head)
	}
	for c := from; c < len(list.pieces); c++ {
		if err := poll(ctx, c*chunk); err != nil {
			return "", nil, err
		}
		if c == len(hs.marks) {
			state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
			if err != nil {
				return "", nil, err
			}
			hs.marks = append(hs.marks, state)
		}
		h.Write(list.pieces[c])
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
