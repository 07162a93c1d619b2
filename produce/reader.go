// Package produce owns three read answers over the snapshot and search
// packages: check, query and find. A producer takes a context, a bound
// workspace and typed arguments and returns a plain value that marshals to
// its published JSON; it writes nothing anywhere, reads workspace bytes only
// through a snapshot, and answers whole or with a typed reason (never a
// silently shortened result). Its Reader is also what package capsule, the
// fourth answer, compiles over: the same fresh snapshot and the question
// rule ValidateText.
package produce

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/search"
	"github.com/vivary-dev/vivary-go/snapshot"
	"github.com/vivary-dev/vivary-go/workspace"
)

// Omission is one counted row of what a result left out.
type Omission = snapshot.Omission

// Reader serves producers over one bound workspace (not to be confused with
// workspace.Reader, which reads files for one snapshot): a snapshot source that
// proves its kept snapshot fresh on every call, and the search index,
// brought up to date with each new snapshot. Safe for concurrent use.
//
// A serving Reader (vivary-mcp) answers its first question from an index
// of that question's terms, and a question that index does not cover from
// a new index of its own (refocus: every document read again once, a
// focused scan), keeping the one before; a third question neither covers
// builds the full index in its call. Between calls the server runs Warm in
// the background, which builds the full index apart and makes it the
// serving one only once complete; from then on every question is answered
// from it. A call always brings the serving index up to its fresh snapshot
// before it searches. A first question after Warm began the full index
// before any call goes on with it.
type Reader struct {
	ws      *workspace.Workspace
	once    sync.Once
	source  *snapshot.Source
	options snapshot.Options
	mu      sync.Mutex // serialises searches and Warm: the indexes are updated in place
	index   *search.Index
	// searched is set by the first search.
	searched atomic.Bool
	// serving is a NewServingReader's; focus is the question its read
	// passes prepare for until the full index serves, and began says its
	// first search or Warm chose the serving index (see ranked).
	serving bool
	began   bool
	focus   atomic.Pointer[search.Focus]
	// spare is the focused index of the question before the serving one's,
	// kept so that a person going back to it is answered without a read
	// pass; full is the full index Warm builds while a focused one serves,
	// never searched before it is complete.
	spare, full *search.Index
}

// NewReader returns a Reader over ws. Its snapshots tokenize the documents
// for search while they are read when its first call searches; a one-shot
// check does not pay for it.
func NewReader(ws *workspace.Workspace) *Reader {
	return &Reader{ws: ws, index: search.NewIndex()}
}

// NewServingReader returns a Reader for a long-lived process (vivary-mcp):
// its snapshots are kept fresh by the kernel's change feed where there is
// one, so a call on an unchanged tree costs the same at any size, and once
// it has searched, documents read again are tokenized for the search index
// as they are read, so the index is updated per changed document. Close it
// when done.
func NewServingReader(ws *workspace.Workspace) *Reader {
	r := &Reader{ws: ws, index: search.NewIndex(), serving: true}
	// Until the first search, nothing is tokenized: a session that only
	// checks never pays for the index, and its first call stays as quick.
	r.options = snapshot.Options{Watch: true, Prepare: func(d *graph.Document, text string) any {
		if f := r.focus.Load(); f != nil {
			return f.Prepare(d, text)
		}
		if r.searched.Load() {
			return search.Prepare(d, text)
		}
		return nil
	}}
	r.once.Do(func() { r.source = snapshot.NewSource(ws, r.options) })
	return r
}

// src is the snapshot source, made on first use. A one-shot reader whose
// first call searches tokenizes the documents as they are read, for an
// index focused on that call's question (question; "" when it does not
// search): its postings are only of the terms that question looks up.
func (r *Reader) src(searching bool, question string) *snapshot.Source {
	if searching {
		r.searched.Store(true)
	}
	r.once.Do(func() {
		if searching {
			focus := search.FocusOn(question)
			r.options.Prepare = focus.Prepare
			r.index = search.NewFocusedIndex(focus)
		}
		r.source = snapshot.NewSource(r.ws, r.options)
	})
	return r.source
}

// Close releases the change feed; the Reader keeps working by stat.
func (r *Reader) Close() { r.src(false, "").Close() }

// Workspace is the bound workspace.
func (r *Reader) Workspace() *workspace.Workspace { return r.ws }

// Warm is a serving Reader's background work: it writes nothing, and stops
// soon after ctx ends, keeping what it did for the next call or Warm (as a
// cut call does). Before any search, it reads the workspace ahead of a first
// call: the snapshot that call would take and the full index over it, so
// that call finds them done. Once a question was answered from a focused
// index, it builds the full index (see Pending), and makes it the serving
// one when it is complete over a snapshot proved current.
func (r *Reader) Warm(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.began {
		return r.buildFull(ctx)
	}
	snap, err := r.src(true, "").Snapshot(ctx)
	if err != nil {
		return err
	}
	// The read pass prepared every note for the full index, so indexing
	// them costs a fraction of what it did: a first question then goes on
	// with this index rather than reading every note again for a focused
	// one (see ranked). A warm cut in its read pass leaves that choice to
	// the first question.
	r.began = true
	// Indexed now, the notes' terms leave the snapshot for the index,
	// where a first search needs them anyway.
	return r.index.UpdateContext(ctx, snap, r.read(ctx))
}

// Pending reports whether Warm has work left that a call made: a focused
// index serves and the full index is not complete, or the full index
// serves and a cut call left it incomplete.
func (r *Reader) Pending() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.serving && r.began && (r.index.Focused() != nil || r.index.Snapshot() == nil)
}

// buildFull brings the full index up to the kept snapshot, proved fresh,
// and makes it the serving index once it describes a snapshot that is still
// fresh after it: a document changed meanwhile is indexed again first. Its
// documents were prepared for the focus of their time, so each is read
// again (snapshot.Text: exactly the bytes the snapshot analysed, or stale).
func (r *Reader) buildFull(ctx context.Context) error {
	if !r.serving {
		return nil
	}
	full := r.index
	if full.Focused() != nil {
		if r.full == nil {
			r.full = search.NewIndex()
		}
		full = r.full
	}
	src := r.src(true, "")
	for stale := 0; ; {
		snap, err := src.Snapshot(ctx)
		if err != nil {
			return err
		}
		if full.Snapshot() == snap {
			break
		}
		err = full.UpdateContext(ctx, snap, r.read(ctx))
		if errors.Is(err, snapshot.ErrStale) && stale < 2 {
			// A note changed under the reading: read the tree afresh.
			stale++
			src.Forget(snap)
			continue
		}
		if err != nil {
			return err
		}
	}
	if full == r.full {
		r.serveFull()
	}
	return nil
}

// serveFull makes the full index the serving one, complete or not: a call
// then completes it before it searches (UpdateContext), as Warm does.
func (r *Reader) serveFull() {
	if r.full == nil {
		r.full = search.NewIndex()
	}
	r.index, r.spare, r.full = r.full, nil, nil
	r.focus.Store(nil)
}

// Snapshot returns a snapshot that describes the tree now.
func (r *Reader) Snapshot(ctx context.Context) (*snapshot.Snapshot, error) {
	return r.src(false, "").Snapshot(ctx)
}

// ranked is the search shared by query and find: the fresh snapshot and the
// projected top hits for a.
func (r *Reader) ranked(ctx context.Context, a searchArgs) (*snapshot.Snapshot, []projected, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.serving && !r.began {
		// A server's first question is answered as the one-shot CLI
		// answers it, from an index of that question's terms: on a big
		// vault read for the first time, the full index costs several
		// times that, and the first answer is what a person waits for.
		// Asked again, it answers warm; another question is answered from
		// an index of its own (refocus), and a third builds the full
		// index, unless Warm built it first.
		r.began = true
		f := search.FocusOn(a.text)
		r.focus.Store(f)
		r.index = search.NewFocusedIndex(f)
	}
	src := r.src(true, a.text)
	switch {
	case r.index.Answers(a.text):
	case r.serving && (r.spare == nil || r.spare.Answers(a.text)):
		r.refocus(a.text)
	default:
		// A third question, or a one-shot reader's second (capsule,
		// tests): every document is read and tokenized again, once, for
		// the index that answers any, taking up what Warm built of it. A
		// focused pass per question would cost more than that by the
		// fourth, and a client asking a new question each time would pay
		// it every time.
		r.serveFull()
	}
	for retried := false; ; retried = true {
		snap, err := src.Snapshot(ctx)
		if err != nil {
			return nil, nil, err
		}
		read := r.read(ctx)
		var hits []search.Hit
		if err = r.index.UpdateContext(ctx, snap, read); err == nil {
			q := a.query()
			q.Read = read
			hits, err = r.index.Search(ctx, q)
		}
		switch {
		case errors.Is(err, snapshot.ErrStale) && !retried:
			// A document is no longer what the snapshot screened and
			// analysed: read the tree afresh, once.
			src.Forget(snap)
			continue
		case errors.Is(err, snapshot.ErrStale):
			return nil, nil, reasonProducer("documents changed on disk while the answer was made; ask again")
		case err != nil:
			if err := cancelled(ctx); err != nil {
				return nil, nil, err
			}
			return nil, nil, reason.Wrap(reason.ProducerUnavailable, "the search failed", err)
		}
		proj, err := project(hits)
		if err != nil {
			return nil, nil, err
		}
		return snap, proj, nil
	}
}

// refocus makes the serving index one that answers question, while the
// full index is not complete: the index of the question before when it
// does, else a new index focused on question, for which every document is
// read again once, a focused scan as for a first question. A second
// question does not build the full index: at 50,000 notes that costs
// several times a focused pass, more than a call's time on a busy machine;
// Warm builds it between calls. Two focused indexes are kept at most (each holds a few postings
// and every document's lengths and keys): a cut call's work is taken up by
// the next call with its question, even after one other question.
func (r *Reader) refocus(question string) {
	if r.spare != nil && r.spare.Answers(question) {
		r.index, r.spare = r.spare, r.index
	} else {
		r.index, r.spare = search.NewFocusedIndex(search.FocusOn(question)), r.index
	}
	r.focus.Store(r.index.Focused())
}

// beforeServe, when set, runs before a document's text is read again for
// an answer; only tests set it.
var beforeServe func(rel string)

// read gives the search a document's text, read again: a snapshot keeps
// none. It is exactly the snapshot's bytes or snapshot.ErrStale.
func (r *Reader) read(ctx context.Context) search.Read {
	return func(d *graph.Document) (string, error) {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if beforeServe != nil {
			beforeServe(d.Path)
		}
		return snapshot.Text(r.ws, d)
	}
}

func cancelled(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return reason.Wrap(reason.ProducerUnavailable, "the call was cancelled", err)
	}
	return nil
}

func workLimit(msg string) error { return reason.New(reason.WorkLimitExceeded, msg) }
