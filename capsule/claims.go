package capsule

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/snapshot"
)

// candidate is a claim before the budget and the projection.
type candidate struct {
	fact, claim, reason string
	rank                float64
	key                 string // the tie-break, unique per claim
}

// factWeight orders the facts within a tier: the checkout's identity first,
// content matches last.
var factWeight = map[string]float64{"head_revision": 0, "head_ref": 1, "is_dirty": 2, "dirty_entries": 2.5, "remotes": 3, "last_fetch": 4, "content_match": 5}

// privateFacts are ranked and counted, but never reach a public capsule:
// a dirty path, a line of HEAD or a remote's address is evidence, not a
// claim.
var privateFacts = map[string]bool{"dirty_entries": true, "content_match": true, "git_common_dir": true, "recommended_checks": true, "remotes": true, "worktree_root": true}

// Tiers of relevance: a claim the question is about ranks before the rest.
const (
	topical = 1
	general = 2
)

const untargeted = "inside the task allowlist; no task-specific relevance signal"

// candidates are the claims of what the checkout and HEAD said, ranked:
// the tier first (a content match is always topical; every other fact is
// when the question names the folder or the branch), then the fact's
// weight, then the key. Outside Git there are none.
func candidates(root, question, checkoutID string, co *checkout, found []match) []candidate {
	if !co.git.ok {
		return nil
	}
	about := namedSubject(filepath.Base(root), co.ref.value, question)
	var out []candidate
	add := func(fact, text string, extra float64, why string) {
		tier := float64(general)
		switch {
		case why != "":
			tier = topical
		case about != "":
			tier, why = topical, about
		default:
			why = untargeted
		}
		out = append(out, candidate{fact: fact, claim: text, reason: why, rank: tier*100 + factWeight[fact] + extra, key: checkoutID + ":" + fact + ":" + text})
	}
	if co.head.ok {
		add("head_revision", "HEAD revision is "+co.head.value, 0, "")
	}
	if co.ref.ok {
		if branch := co.ref.value; branch != "" {
			add("head_ref", fmt.Sprintf("HEAD is on branch '%s'", branch), 0, "")
		} else {
			add("head_ref", "HEAD is detached", 0, "")
		}
	}
	if co.status.ok {
		st := co.status.value
		if len(st.paths) > 0 {
			add("is_dirty", "worktree has uncommitted changes", 0, "")
		} else {
			add("is_dirty", "worktree is clean", 0, "")
		}
		if n := len(st.public); n > 0 {
			add("dirty_entries", fmt.Sprintf("worktree has %d dirty %s: %s", n, plural(n, "entry", "entries"), strings.Join(st.public[:min(n, 10)], ", ")), 0, "")
		}
	}
	if co.remotes.ok {
		if len(co.remotes.value) == 0 {
			add("remotes", "no remotes are configured", 0, "")
		} else {
			var parts []string
			for _, x := range co.remotes.value {
				parts = append(parts, x.name+" -> "+x.url)
			}
			add("remotes", "remotes: "+strings.Join(parts, ", "), 0, "")
		}
	}
	if co.lastFetch.ok {
		add("last_fetch", "last recorded fetch at "+co.lastFetch.value.UTC().Format(fetchTime), 0, "")
	}
	for i, m := range found {
		add("content_match", fmt.Sprintf("%s:%d matches '%s': %q", m.path, m.line, m.term, m.excerpt), 25*float64(i),
			fmt.Sprintf("content match: term '%s' was found in %s", m.term, m.path))
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].rank != out[j].rank {
			return out[i].rank < out[j].rank
		}
		return guard.Less(out[i].key, out[j].key)
	})
	return out
}

// fetchTime is how the last fetch's time is shown: UTC, milliseconds.
const fetchTime = "2006-01-02T15:04:05.000Z"

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// withinBudget keeps the first max candidates and counts the rest as
// claims_over_budget.
func (c *Capsule) withinBudget(cands []candidate) []candidate {
	budget := c.Budget.MaxClaims
	if len(cands) <= budget {
		return cands
	}
	c.Omissions = append(c.Omissions, snapshot.Omission{Kind: "claims_over_budget", Reason: fmt.Sprintf("claim budget %d reached; lower-ranked claims were omitted", budget), Count: len(cands) - budget})
	return cands[:budget]
}

// project makes the public claims: a private fact, or a claim or reason
// not safe to show, is left out and counted, and the capsule is complete
// only when nothing was.
func (c *Capsule) project(cands []candidate, root string) {
	dropped := 0
	for _, cl := range cands {
		if len(c.Claims) == limits.MaxClaims || privateFacts[cl.fact] || !publicSafe(cl.claim, root) || !publicSafe(cl.reason, root) {
			dropped++
			continue
		}
		c.Claims = append(c.Claims, Claim{Fact: cl.fact, Claim: cl.claim, Status: "known", SelectionReason: cl.reason})
	}
	if dropped > 0 {
		c.ProjectionOmissions = append(c.ProjectionOmissions, snapshot.Omission{Kind: "claim", Reason: "unsafe_for_public_projection", Count: dropped})
	}
	c.Complete = len(c.ProjectionOmissions) == 0
}

// publicSafe is the projection's text rule: printable, bounded, no root,
// and after normalisation no machine path, URI, userinfo, credential or key.
func publicSafe(s, root string) bool {
	return guard.SafeText(s, 4096) && !guard.ContainsRoot(s, root) && !guard.MachinePath(s) && !guard.AnyURI(s) && !guard.Credential(s)
}

// namedSubject is the selection reason every claim shares when one of the
// question's selection terms names the checkout's folder (label) or its
// branch, or "" when none does.
func namedSubject(label, branch, question string) string {
	for _, t := range selectionTerms(question) {
		switch {
		case wholeWord(label, t):
			return fmt.Sprintf("task question term '%s' matches the subject label", t)
		case branch != "" && wholeWord(branch, t):
			return fmt.Sprintf("task question term '%s' matches the subject branch", t)
		}
	}
	return ""
}

// selectionStop is the checkout vocabulary every question about a
// repository uses, and common English: words that say nothing about which
// checkout a question is about.
var selectionStop = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "that": true, "this": true, "from": true, "into": true,
	"what": true, "which": true, "where": true, "when": true, "how": true, "why": true, "who": true, "about": true,
	"are": true, "was": true, "were": true, "has": true, "have": true, "had": true, "not": true, "but": true,
	"can": true, "could": true, "should": true, "would": true, "will": true, "does": true, "did": true, "its": true,
	"our": true, "your": true, "their": true, "there": true, "here": true, "then": true, "than": true, "them": true,
	"they": true, "you": true, "local": true, "current": true, "truth": true, "checkout": true, "checkouts": true,
	"repository": true, "repositories": true, "branch": true, "branches": true, "remote": true, "remotes": true,
	"worktree": true, "worktrees": true, "commit": true, "commits": true, "dev": true, "git": true,
}

var selectionTermRe = regexp.MustCompile(`[a-z0-9][a-z0-9-]*`)

// selectionTerms are the ASCII words (hyphens kept, at least three letters,
// without selectionStop) that rank the capsule's claims: a claim whose
// label or branch holds one whole is about the question. The reference's
// rule, kept apart from search and from governedTerms (see there) because a
// branch name such as feat/held-handles must match as written, unstemmed.
func selectionTerms(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range selectionTermRe.FindAllString(strings.ToLower(q), -1) {
		if len(t) >= 3 && !selectionStop[t] && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// wholeWord reports whether term (lower-case ASCII) occurs in hay, case
// folded, between two bytes that are not ASCII letters or digits (or an
// end).
func wholeWord(hay, term string) bool {
	hay = strings.ToLower(hay)
	for i := 0; i <= len(hay)-len(term); i++ {
		j := strings.Index(hay[i:], term)
		if j < 0 {
			return false
		}
		i += j
		end := i + len(term)
		if (i == 0 || !asciiAlnum(hay[i-1])) && (end == len(hay) || !asciiAlnum(hay[end])) {
			return true
		}
	}
	return false
}

func asciiAlnum(b byte) bool { return 'a' <= b && b <= 'z' || '0' <= b && b <= '9' }
