package produce_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/capsule"
	"github.com/vivary-dev/vivary-go/internal/attack"
	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/produce"
)

// TestAttackCorpus runs the leak corpus through every producer: no
// credential, credential-shaped name or look-alike secret name comes back,
// the clean note does, and the notes holding credentials are counted as
// sensitive_content (so the MCP firewall, which screens the same way, has
// nothing left to refuse).
func TestAttackCorpus(t *testing.T) {
	t.Parallel()
	files, markers := attack.Corpus()
	root := testws.Thin(t, files)
	r := produce.NewReader(bindWS(t, root))
	var outs []any
	q, err := r.Query(bg, produce.QueryArgs{Text: attack.Words, Limit: 20, SnippetChars: 1000, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	f, err := r.Find(bg, produce.FindArgs{Question: attack.Words, Limit: 20, Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Check(bg, produce.CheckArgs{})
	if err != nil {
		t.Fatal(err)
	}
	k, err := capsule.Compile(bg, r, capsule.Args{Question: attack.Words, MaxClaims: 24})
	if err != nil {
		t.Fatal(err)
	}
	outs = append(outs, q, f, c, k)
	b, _ := json.Marshal(outs)
	out := string(b)
	for _, m := range markers {
		if strings.Contains(out, m) {
			t.Errorf("marker %q leaked", m)
		}
	}
	if !strings.Contains(out, attack.Clean) {
		t.Errorf("the clean note is missing: %s", out)
	}
	if !strings.Contains(out, `"reason":"sensitive_content"`) || !strings.Contains(out, `"reason":"sensitive_name"`) {
		t.Errorf("omissions do not count the dropped notes: %s", out)
	}
}
