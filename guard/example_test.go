package guard_test

import (
	"fmt"
	"sort"

	"github.com/vivary-dev/vivary-go/guard"
)

// Every text an answer shows passes OutputSafe: printable, bounded, and
// holding no credential and no machine path.
func ExampleOutputSafe() {
	for _, s := range []string{
		"The quokka sleeps by day.",
		"see /home/ana/notes/plan.md",                                      // a machine path
		"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", // a credential
		"password: <your password here>",                                   // a placeholder, not a credential
		"line one\nline two",                                               // a control character
	} {
		fmt.Println(guard.OutputSafe(s, 4096))
	}
	// Output:
	// true
	// false
	// false
	// true
	// false
}

// A name is compared by its skeleton, so a look-alike of a secret-looking
// name (full-width letters, Cyrillic look-alikes, a zero-width space) is
// that name.
func ExampleSkeleton() {
	for _, name := range []string{".env", "．ｅｎｖ", ".еnv", ".e\u200bnv", "Secrets.md"} {
		fmt.Printf("%q\n", guard.Skeleton(name))
	}
	// Output:
	// ".env"
	// ".env"
	// ".env"
	// ".env"
	// "secrets.md"
}

// A workspace-relative path is safe to show when it is printable, bounded
// and relative, with no "..", no empty or dot component and no backslash.
func ExampleSafeRelPath() {
	for _, p := range []string{"notes/quokka.md", "../STATE.md", "/etc/passwd", "notes//x.md", `notes\x.md`} {
		fmt.Println(p, guard.SafeRelPath(p, 512))
	}
	// Output:
	// notes/quokka.md true
	// ../STATE.md false
	// /etc/passwd false
	// notes//x.md false
	// notes\x.md false
}

// Paths and ids are sorted by UTF-16 code units, as the reference sorts
// them; byte order differs only for characters above U+FFFF against
// U+E000..U+FFFF.
func ExampleLess() {
	names := []string{"\U0001F600.md", "\uFF21.md", "a.md"}
	sort.Slice(names, func(i, j int) bool { return guard.Less(names[i], names[j]) })
	fmt.Printf("%q\n", names) // byte order would put "😀.md" last
	// Output: ["a.md" "😀.md" "Ａ.md"]
}
