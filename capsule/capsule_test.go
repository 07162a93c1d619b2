package capsule_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/capsule"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/reason"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) { t.Helper(); testws.Golden(t, *update, name, got) }

var bg = context.Background()

var digests = regexp.MustCompile(`sha256:[0-9a-f]{64}|capsule_[0-9a-f]{16}|[0-9a-f]{40}`)

func TestCapsuleGolden(t *testing.T) {
	t.Parallel()
	root := testws.Fixture(t)
	r := produce.NewReader(testws.Bind(t, root))
	c, err := capsule.Compile(bg, r, capsule.Args{Question: "what changed in the adapter", MaxClaims: 24})
	if err != nil {
		t.Fatal(err)
	}
	b := testws.IndentedJSON(t, c)
	c2, _ := capsule.Compile(bg, r, capsule.Args{Question: "what changed in the adapter", MaxClaims: 24})
	if string(testws.IndentedJSON(t, c2)) != string(b) {
		t.Fatal("capsule is not deterministic")
	}
	golden(t, "capsule_nongit.golden.json", digests.ReplaceAll(b, []byte("<digest>")))
	testws.NoLeak(t, root, b)
	if !c.Complete || len(c.Claims) != 0 {
		t.Fatalf("non-git capsule: %+v", c)
	}
	raw, _ := capsule.Encode(c)
	if _, err := capsule.Verify(raw); err != nil {
		t.Fatalf("own capsule fails verification: %v", err)
	}
}

func TestCapsuleGit(t *testing.T) {
	t.Parallel()
	root := testws.Fixture(t)
	os.Remove(filepath.Join(root, ".gitignore"))
	testws.Write(t, root, ".gitignore", ".vivary/private/\n.vivary/runtime/\n*.vivary-tmp\n.env\nnotes/\n")
	testws.Git(t, root, "init", "-q", "-b", "main")
	testws.Git(t, root, "add", "-A")
	testws.Git(t, root, "add", "-f", "notes/leak.md") // tracked but ignored: never in a capsule
	testws.Git(t, root, "commit", "-qm", "init")
	r := produce.NewReader(testws.Bind(t, root))
	for _, max := range []int{0, 1, 2, 24} {
		c, err := capsule.Compile(bg, r, capsule.Args{Question: "where is the hunter2 adapter on main", MaxClaims: max})
		if err != nil {
			t.Fatal(err)
		}
		b := testws.IndentedJSON(t, c)
		testws.NoLeak(t, root, b)
		if len(c.Claims) > max {
			t.Fatalf("max %d: %d claims", max, len(c.Claims))
		}
		if max == 24 {
			golden(t, "capsule_git.golden.json", digests.ReplaceAll(b, []byte("<digest>")))
			if !strings.Contains(string(b), "HEAD is on branch 'main'") {
				t.Errorf("no branch claim: %s", b)
			}
		}
		if max == 0 && !strings.Contains(fmt.Sprint(c.Omissions), "claims_over_budget") {
			t.Errorf("max 0 without claims_over_budget: %v", c.Omissions)
		}
	}
}

func TestVerifyRefusals(t *testing.T) {
	t.Parallel()
	root := testws.Fixture(t)
	c, _ := capsule.Compile(bg, produce.NewReader(testws.Bind(t, root)), capsule.Args{Question: "adapter", MaxClaims: 24})
	raw, _ := capsule.Encode(c)
	good := string(raw)
	for name, bad := range map[string]string{
		"tampered id":     strings.Replace(good, c.CapsuleID, "capsule_0000000000000000", 1),
		"extra key":       strings.Replace(good, `{"schema"`, `{"x":1,"schema"`, 1),
		"duplicate key":   strings.Replace(good, `{"schema"`, `{"complete":true,"schema"`, 1),
		"not json":        good[:len(good)-2],
		"two values":      good + good,
		"id and fp only":  fmt.Sprintf(`{"capsule_id":%q,"fingerprint":%q}`, c.CapsuleID, c.Fingerprint),
		"wrong schema":    strings.Replace(good, capsule.SchemaID, "vivary.task-capsule/v0", 1),
		"complete string": strings.Replace(good, `"complete":true`, `"complete":"true"`, 1),
	} {
		if _, err := capsule.Verify([]byte(bad)); err == nil {
			t.Errorf("%s: verified", name)
		}
	}
}

func FuzzVerify(f *testing.F) {
	f.Add([]byte(`{"schema":"vivary.public-task-capsule/v0"}`))
	f.Add([]byte(`{"a":1,"a":2}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := capsule.Verify(data)
		if err == nil {
			// Whatever verifies must re-verify from its own encoding.
			raw, _ := capsule.Encode(c)
			if _, err := capsule.Verify(raw); err != nil {
				t.Fatalf("a verified capsule does not re-verify: %v", err)
			}
		}
	})
}

// The claim budget at its bounds, and the question held to the rules of
// every question (produce.ValidateText), each refusal naming its rule.
func TestArgumentBounds(t *testing.T) {
	t.Parallel()
	root := testws.Fixture(t)
	r := produce.NewReader(testws.Bind(t, root))
	call := func(q string, n int) error {
		_, err := capsule.Compile(bg, r, capsule.Args{Question: q, MaxClaims: n})
		return err
	}
	inRange := fmt.Sprintf("max_claims must be between 0 and %d", limits.MaxClaims)
	for _, c := range []struct {
		name string
		err  error
		code reason.Code // "" accepted
		want string      // the refusal's text
	}{
		{"claims max", call("adapter", limits.MaxClaims), "", ""},
		{"claims 0", call("adapter", 0), "", ""},
		{"claims max+1", call("adapter", limits.MaxClaims+1), reason.InvalidArguments, inRange},
		{"claims -1", call("adapter", -1), reason.InvalidArguments, inRange},
		{"blank question", call(" \t ", 1), reason.InvalidArguments, "question must not be empty"},
		{"credential", call("password=hunter2", 1), reason.PathRefused, "question is refused"},
		{"the root", call("in "+root, 1), reason.PathRefused, "question is refused"},
	} {
		switch {
		case c.code == "" && c.err != nil:
			t.Errorf("%s: refused: %v", c.name, c.err)
		case c.code != "" && (reason.Of(c.err) != c.code || !strings.Contains(c.err.Error(), c.want)):
			t.Errorf("%s: %v, want %s saying %q", c.name, c.err, c.code, c.want)
		case c.err != nil && (strings.Contains(c.err.Error(), "hunter2") || strings.Contains(c.err.Error(), root)):
			t.Errorf("%s: the refusal repeats the value: %v", c.name, c.err)
		}
	}
}
