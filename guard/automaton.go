package guard

import "strings"

// automaton finds every keyword of a rule set in one pass (Aho-Corasick),
// case-insensitively for ASCII. Bytes that occur in no keyword share one
// class, so the table is small enough to build on each cold start.
type automaton struct {
	class   [256]uint8
	classes int
	next    []uint16   // state*classes + class
	hits    [][]uint16 // rule indices whose keyword ends in this state
	hit     []bool     // len(hits[state]) > 0, read on every byte
}

// keyword is one string an automaton finds and the id it reports.
type keyword struct {
	s  string
	id uint16
}

// ruleKeywords are the keys of the rules pick chooses, each reporting its
// rule's index.
func ruleKeywords(rules []*rule, pick func(*rule) bool) []keyword {
	var kws []keyword
	for i, r := range rules {
		if pick(r) {
			for _, k := range r.keys {
				kws = append(kws, keyword{strings.ToLower(k), uint16(i)})
			}
		}
	}
	return kws
}

func newAutomaton(kws []keyword) *automaton {
	a := &automaton{classes: 1}
	for _, k := range kws {
		for i := 0; i < len(k.s); i++ {
			c := k.s[i]
			if a.class[c] == 0 {
				a.class[c] = uint8(a.classes)
				if c >= 'a' && c <= 'z' {
					a.class[c-'a'+'A'] = uint8(a.classes)
				}
				a.classes++
			}
		}
	}
	// The trie, with 0 as "no edge" (the root is never a child).
	trie := [][]uint16{make([]uint16, a.classes)}
	a.hits = [][]uint16{nil}
	for _, k := range kws {
		s := 0
		for i := 0; i < len(k.s); i++ {
			c := a.class[k.s[i]]
			if trie[s][c] == 0 {
				trie = append(trie, make([]uint16, a.classes))
				a.hits = append(a.hits, nil)
				trie[s][c] = uint16(len(trie) - 1)
			}
			s = int(trie[s][c])
		}
		a.hits[s] = append(a.hits[s], k.id)
	}
	if len(trie) > 1<<16 {
		panic("guard: keyword automaton too large")
	}
	a.next = make([]uint16, len(trie)*a.classes)
	fail := make([]uint16, len(trie))
	queue := make([]uint16, 0, len(trie))
	for c := 0; c < a.classes; c++ {
		if n := trie[0][c]; n != 0 {
			a.next[c] = n
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		a.hits[s] = append(a.hits[s], a.hits[fail[s]]...)
		for c := 0; c < a.classes; c++ {
			if n := trie[s][c]; n != 0 {
				fail[n] = a.next[int(fail[s])*a.classes+c]
				a.next[int(s)*a.classes+c] = n
				queue = append(queue, n)
			} else {
				a.next[int(s)*a.classes+c] = a.next[int(fail[s])*a.classes+c]
			}
		}
	}
	a.hit = make([]bool, len(a.hits))
	for i, h := range a.hits {
		a.hit[i] = len(h) > 0
	}
	return a
}

// ruleSet is a set of ids: rule indices, and past them the vendor
// prefixes'.
type ruleSet [8]uint64

func (r *ruleSet) add(i uint16)   { r[i>>6] |= 1 << (i & 63) }
func (r *ruleSet) has(i int) bool { return r[i>>6]&(1<<(i&63)) != 0 }
func (r *ruleSet) empty() bool    { return *r == ruleSet{} }

// scan adds to set the rules whose keyword occurs in s, starting from
// state st (0 at the start of a text); it returns the state it ends in,
// so a text can be scanned in pieces.
func (a *automaton) scan(s string, st int, set *ruleSet) int {
	next, class, n := a.next, &a.class, a.classes
	for i := 0; i < len(s); i++ {
		st = int(next[st*n+int(class[s[i]])])
		if a.hit[st] {
			for _, r := range a.hits[st] {
				set.add(r)
			}
		}
	}
	return st
}
