package guard_test

import (
	"runtime"
	"testing"

	"github.com/vivary-dev/vivary-go/guard"
)

// Each Windows way of naming something other than the file a path spells
// is refused as a path on Windows, and only there.
func TestWindowsNames(t *testing.T) {
	refused := []string{
		"note.md:secret", "notes/note.md:secret:$DATA", "a:b.md", // alternate data streams
		"CON", "con.md", "notes/NUL.txt", "Aux", "prn.md", "COM1", "com9.md", "LPT1.txt", "COM¹", "lpt³.md",
		"CONIN$", "conout$.md", "CON .md", "nul.tar.gz", // reserved device names, any case and extension
		"secret.md.", "secret.md ", "notes./a.md", "notes /a.md", // Win32 drops a trailing dot or space
		"a<b.md", "a>b.md", "a|b.md", `a"b.md`, "a\x01b.md",
	}
	kept := []string{"CONTEXT.md", "console.md", "com10.md", "lpt.md", "nullable.md", "notes/a.b.md", ".env.md", "a..b.md", "SECRET~1.MD", "notes/*.md", "a?.md"}
	for _, p := range refused {
		if guard.ShapeOKOn(p, true) {
			t.Errorf("%q passed the Windows shape", p)
		}
		if guard.RelPathShape(p) != guard.ShapeOKOn(p, runtime.GOOS == "windows") {
			t.Errorf("%q: RelPathShape is not this system's rule", p)
		}
		if runtime.GOOS == "windows" && (guard.PathShapeProblem(p) == "" || guard.PathFault(p, 4096) == "") {
			t.Errorf("%q: no reason given", p)
		}
	}
	for _, p := range kept {
		if !guard.ShapeOKOn(p, true) {
			t.Errorf("%q failed the Windows shape", p)
		}
	}
	// Elsewhere these are plain names.
	for _, p := range []string{"note.md:secret", "aux.md", "secret.md.", "a|b.md"} {
		if !guard.ShapeOKOn(p, false) {
			t.Errorf("%q refused off Windows", p)
		}
	}
}

// Windows path forms are refused as workspace paths on every system.
func TestWindowsPathForms(t *testing.T) {
	for _, p := range []string{`C:notes\a.md`, "C:notes/a.md", `\\?\C:\Users\me\notes\a.md`, `\\server\share\a.md`,
		`notes\secret.md`, `\notes\a.md`, "C:/Users/me/a.md", `//?/C:/a.md`} {
		for _, windows := range []bool{false, true} {
			if guard.ShapeOKOn(p, windows) {
				t.Errorf("%q passed (windows=%v)", p, windows)
			}
		}
		if guard.SafeRelPath(p, 4096) {
			t.Errorf("%q is a safe relative path", p)
		}
	}
}

// The output screen reads every absolute Windows form as a machine path,
// backslashes and all, and a relative one as none.
func TestWindowsMachinePaths(t *testing.T) {
	for _, s := range []string{`C:\Users\me\notes`, `see C:\Users\me\notes\a.md`, `(D:\work)`, "C:/Users/me", `\\?\C:\Users\me`,
		`\\server\share\notes`, `\\?\UNC\server\share\x`, `path="C:\Program Files\Git"`} {
		if !guard.MachinePath(s) {
			t.Errorf("%q is not a machine path", s)
		}
		if guard.OutputSafe(s, 4096) {
			t.Errorf("%q is output-safe", s)
		}
	}
	for _, s := range []string{`notes\a.md`, "C:notes", "a C: drive", `C++\notes.md`} {
		if guard.MachinePath(s) {
			t.Errorf("%q is a machine path", s)
		}
	}
}

// On Windows the root is found in any case and in its slash form too.
func TestWindowsRootInText(t *testing.T) {
	root := `C:\Users\me\notes`
	for _, s := range []string{`see C:\Users\me\notes\a.md`, `c:\users\ME\Notes\a.md`, "C:/Users/me/notes/a.md", "at c:/users/me/NOTES"} {
		if !guard.ContainsRootOn(s, root, true) {
			t.Errorf("%q does not hold the root", s)
		}
	}
	if guard.ContainsRootOn(`C:\Users\me\notebook`, root, true) {
		t.Error("a sibling holds the root")
	}
	if !guard.ContainsRootOn("x /home/me/notes/a.md", "/home/me/notes", false) || guard.ContainsRootOn("/HOME/me/notes", "/home/me/notes", false) {
		t.Error("the POSIX root is not matched exactly")
	}
}
