package workspace_test

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/vivary-dev/vivary-go/workspace"
)

// Every way Windows has of reaching a file under a name the walk and the
// rules never judged reads as nothing: the 8.3 short name, another case,
// an alternate data stream, a trailing dot or space, a device name.
func TestWindowsAliasesReadAsAbsent(t *testing.T) {
	root := mk(t)
	secret := filepath.Join(root, "secret-notes.md")
	if err := os.WriteFile(secret, []byte("the secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Bind(root)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if b, _, err := ws.ReadFile("secret-notes.md", 100, nil); err != nil || string(b) != "the secret" {
		t.Fatalf("the file under its own name: %q, %v", b, err)
	}
	aliases := []string{"SECRET-NOTES.MD", "Secret-Notes.md", "secret-notes.md.", "secret-notes.md ", "secret-notes.md::$DATA",
		"secret-notes.md:hidden", "CON", "nul.md", `sub\..\secret-notes.md`}
	if short := shortName(t, secret); short != "" {
		// Windows itself opens the file by it: the alias is real.
		if b, err := os.ReadFile(filepath.Join(root, short)); err != nil || string(b) != "the secret" {
			t.Fatalf("the short name %s does not open the file by path: %v", short, err)
		}
		aliases = append(aliases, short)
	}
	if b, err := os.ReadFile(filepath.Join(root, "SECRET-NOTES.MD")); err != nil || string(b) != "the secret" {
		t.Fatalf("this file system is not case-insensitive: %v", err)
	}
	if err := os.WriteFile(secret+":hidden", []byte("in a stream"), 0o644); err != nil {
		t.Logf("no alternate data streams here: %v", err)
	}
	for _, name := range aliases {
		for _, via := range readers(t, ws) {
			if b, _, err := via.read(name, 100, nil); err == nil {
				t.Errorf("%s read %q through %q", via.name, b, name)
			}
		}
		if info, err := ws.Lstat(name); err == nil && info.Exists {
			t.Errorf("Lstat(%q) found it", name)
		}
	}
	// A folder reached by another spelling is no folder either.
	for _, dir := range []string{"SUB", "Sub"} {
		if _, err := ws.ReadDir(dir); err == nil {
			t.Errorf("ReadDir(%q) listed sub", dir)
		}
	}
}

// shortName is the 8.3 name the file system gives path, or "" if none.
func shortName(t *testing.T, path string) string {
	p, _ := windows.UTF16PtrFromString(path)
	buf := make([]uint16, 1024)
	n, err := windows.GetShortPathName(p, &buf[0], uint32(len(buf)))
	if err != nil || n == 0 {
		t.Logf("no short name: %v", err)
		return ""
	}
	short := filepath.Base(windows.UTF16ToString(buf[:n]))
	if short == filepath.Base(path) {
		t.Log("this volume makes no short names")
		return ""
	}
	t.Logf("short name %s", short)
	return short
}

// The root's identity is the volume serial number and the 128-bit file id,
// and a zero id is never anchored.
func TestRootIdentityIsTheFileID(t *testing.T) {
	root := mk(t)
	ws, err := workspace.Bind(root)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	dev, ino := ws.Identity()
	if ino == 0 {
		t.Fatal("a zero file id was anchored")
	}
	info := workspace.StatPath(root)
	if !info.Exists || info.Dev != dev || info.Ino != ino {
		t.Fatalf("StatPath %+v, identity %x %x", info, dev, ino)
	}
	other := workspace.StatPath(filepath.Join(root, "a.md"))
	if other.Ino == ino && other.IDHigh == info.IDHigh {
		t.Fatal("a file and its folder share an id")
	}
}

// "." beneath a folder handle is the folder itself, as on Linux: the walk
// stamps the root by it, and a stamp that never exists would hide every
// change to the root's entries.
func TestDotIsTheFolderItself(t *testing.T) {
	root := mk(t)
	ws, err := workspace.Bind(root)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	dev, ino := ws.Identity()
	for _, rel := range []string{".", "sub/."} {
		info, err := ws.Lstat(rel)
		if err != nil || !info.Exists || !info.IsDir() || info.Dev != dev || (rel == "." && info.Ino != ino) {
			t.Fatalf("Lstat(%q) = %+v, %v", rel, info, err)
		}
	}
}
