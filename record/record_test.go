package record

import (
	"strings"
	"testing"
)

func TestDestination(t *testing.T) {
	for rec, want := range map[string]string{
		"changes/greenfield-mcp-proof.md":             ".vivary/records/changes/greenfield-mcp-proof.md",
		"gates/g1.md":                                 ".vivary/records/gates/g1.md",
		"../STATE.md":                                 "",
		".vivary/context.md":                          "",
		"projects/second-brain.md":                    "",
		"changes/nested/too-deep.md":                  "",
		"unknown/item.md":                             "",
		"changes/UPPER.md":                            "",
		"changes/-dash.md":                            "",
		`changes\x.md`:                                "",
		"/changes/x.md":                               "",
		"changes/" + strings.Repeat("a", 129) + ".md": "",
	} {
		got, _, err := Destination(rec)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("Destination(%q) = %q, %v", rec, got, err)
		}
	}
}

// The plan hash is over the sorted payload with non-ASCII escaped, so the
// same plan always hashes alike and a changed field changes it.
func TestPlanHash(t *testing.T) {
	p := &Plan{Contract: "thin-v0.3", Action: "create", Path: ".vivary/records/changes/é.md", AfterHash: "sha256:1",
		Capsule: CapsuleBinding{ID: "capsule_1", Fingerprint: "sha256:2", WorkspaceFingerprint: "sha256:3"}}
	a, err := planHash(p)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := planHash(p)
	p.AfterHash = "sha256:4"
	c, _ := planHash(p)
	if a != b || a == c || !strings.HasPrefix(a, "sha256:") || len(a) != 71 {
		t.Fatalf("%s %s %s", a, b, c)
	}
}
