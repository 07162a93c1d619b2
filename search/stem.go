package search

import "strings"

// stopwords are the function words and question words a question is
// made of ("how do I ...", "what is the ..."): they say nothing about
// which note answers it. Stored stemmed, as terms are.
var stopwords = map[string]bool{}

// yielding are the stopwords that are not function words: verbs, nouns and
// adverbs a question is phrased with ("how do I find ...", "show me ...",
// "one way to ...") that a vault may also use as a name. Such a word is a
// search term after all where it is a note's whole id or title (a command
// named find, a note called "Make"); function words never are, or every
// question would also ask for the notes named which, who or at.
var yielding = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a about above after against all am an and any are as at be because been
		before being below between both but by can cannot could did do does doing during each for from further
		had has have having he her hers herself him himself his how i if in into is it its itself just me
		my myself no nor not of on only or our ours ourselves she should so some
		such than that the their theirs them themselves these they this those through to too under until
		was we were what when where which while who whom why will with would you your yours yourself yourselves
		may might must shall s t don doesn isn aren`) {
		stopwords[stem(w)] = true
	}
	for _, w := range strings.Fields(`again down few here more most now off once other out over own same then there up
		very also via please want wants need needs way ways thing things something anything possible able let lets
		tell show find get got make made use used using one`) {
		stopwords[stem(w)] = true
		yielding[stem(w)] = true
	}
}

func isVowel(c byte) bool { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' }

func hasVowel(s []byte) bool {
	for i := 0; i < len(s); i++ {
		if isVowel(s[i]) || s[i] == 'y' && i > 0 {
			return true
		}
	}
	return false
}

// stem folds English plurals and verb forms (files, copies, created,
// running) onto one term, lightly: it only needs to send the forms a
// question and a note use for one word to the same term, not to find
// linguistic roots. Identifiers, numbers, short words and anything not
// plain ASCII letters are left as they are.
func stem(w string) string { return string(stemBytes([]byte(w))) }

func suffix(w []byte, s string) bool { return len(w) >= len(s) && string(w[len(w)-len(s):]) == s }

// stemBytes is stem in place: the result shares w's array.
func stemBytes(w []byte) []byte {
	if len(w) <= 3 {
		return w
	}
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return w
		}
	}
	return stemLetters(w)
}

// stemLetters is stemBytes for a word of more than three letters a-z,
// which the tokenizer knows without looking again. Every ending it folds
// is told by the word's last byte, so a word is compared only with the
// endings that last byte allows, in the order stem tries them.
func stemLetters(w []byte) []byte {
	if w[len(w)-1] == 's' {
		switch {
		case suffix(w, "ies") && len(w) > 4:
			w = append(w[:len(w)-3], 'y')
		case suffix(w, "sses"), suffix(w, "xes"), suffix(w, "ches"), suffix(w, "shes"), suffix(w, "zes"):
			w = w[:len(w)-2]
		case !suffix(w, "ss") && !suffix(w, "us") && !suffix(w, "is") && !suffix(w, "as"):
			w = w[:len(w)-1]
		}
	}
	verb := false
	switch w[len(w)-1] {
	case 'y':
		if suffix(w, "ly") && len(w) >= 7 {
			w = w[:len(w)-2] // quickly, recursively
		}
	case 'e':
		if suffix(w, "able") && len(w) >= 8 {
			w = w[:len(w)-4] // executable, readable
		}
	case 'd':
		if suffix(w, "ied") && len(w) > 4 {
			w = append(w[:len(w)-3], 'y')
		} else if suffix(w, "ed") {
			w, verb = unverb(w, 2)
		}
	case 'g':
		if suffix(w, "ing") && len(w) > 4 {
			w, verb = unverb(w, 3)
		}
	}
	if l := len(w); verb && l > 3 && w[l-1] == w[l-2] && !isVowel(w[l-1]) && w[l-1] != 'l' && w[l-1] != 's' && w[l-1] != 'z' {
		w = w[:l-1] // running, stopped
	}
	if len(w) > 4 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1] // create, creates, created, creating
	}
	return w
}

// unverb drops a verb ending of n bytes. A short stem that ends in a
// single consonant after a vowel lost an "e" (using, moved, making).
func unverb(w []byte, n int) ([]byte, bool) {
	base := w[:len(w)-n]
	if !hasVowel(base) {
		return w, false
	}
	if len(base) >= 4 {
		return base, true
	}
	if l := len(base); l >= 2 && !isVowel(base[l-1]) && isVowel(base[l-2]) {
		return append(base, 'e'), false
	}
	return w, false
}

// Stopword reports whether a lowered word is a question stopword.
func Stopword(w string) bool { return stopwords[stem(w)] }
