package adapter_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/policy"
)

// TestInvalidArgumentsSayWhatToFix: an invalid call is still -32602, and
// its message, read through the official client, names the argument and
// the rule it broke so an agent can correct the call; data holds the same.
// No value the caller sent comes back, and an unknown argument's name only
// when it has the shape of a schema key.
func TestInvalidArgumentsSayWhatToFix(t *testing.T) {
	t.Parallel()
	s := start(t, opts{}, fixtureWS(t))
	const secretName = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
	const hexKey, runKey = "d41d8cd98f00b204e9800998ecf8427e", "qwhzkxmvprtlsbdfnjgcyeuo"
	for _, c := range []struct {
		tool   string
		args   map[string]any
		arg    any // the data's argument: a name, or nil
		detail string
	}{
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "limit": 9999}, "limit", "limit must be between 1 and 20"},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "limit": 2.5}, "limit", "limit must be a whole number written as an integer"},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "foo": "argvalue"}, "foo",
			`unknown argument "foo"; vivary_query takes workspace, text, edge_filters, explain, limit, path_filters, snippet_chars, type_filters`},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", secretName: 1}, nil,
			"an unknown argument (its name is not shown: only a name like a schema key is repeated: 1-32 lowercase letters, digits and '_', at most 16 between two '_', at most 3 digits); vivary_query takes workspace, text, edge_filters, explain, limit, path_filters, snippet_chars, type_filters"},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "Bogus Key\n": 1}, nil, "an unknown argument (its name is not shown"},
		// Lowercase keys the credential screen lets pass as text (a 32-hex
		// API key, a long random run) are not shown as names either.
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", hexKey: 1}, nil, "an unknown argument (its name is not shown"},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", runKey: 1}, nil, "an unknown argument (its name is not shown"},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "snippet_chars2": 1}, "snippet_chars2", `unknown argument "snippet_chars2"`},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": strings.Repeat("é", 4097)}, "text", "text is longer than 4096 characters"},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": " \t"}, "text", "text must not be empty or whitespace"},
		{"vivary_query", map[string]any{"workspace": "ws0"}, "text", "text is required"},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "explain": "yes"}, "explain", "explain must be true or false"},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "type_filters": []any{"a", "b", "a"}}, "type_filters", "type_filters[2] repeats type_filters[0]; give each value once"},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "type_filters": "change"}, "type_filters", "type_filters must be an array of strings"},
		{"vivary_query", map[string]any{"workspace": "bad alias!", "text": "x"}, "workspace", "workspace must be one of the aliases vivary-mcp was started with: an alias is 1-64 characters"},
		{"vivary_find", map[string]any{"workspace": "ws0", "question": "x", "budget": 63}, "budget", "budget must be between 64 and 4000"},
		{"vivary_check", map[string]any{"workspace": "ws0", "paths": []any{"notes", "../x"}}, "paths", "paths[1] climbs out with '..'; give a path inside the workspace, relative to its root"},
		{"vivary_check", map[string]any{"workspace": "ws0", "paths": []any{"/etc/passwd"}}, "paths", "paths[0] is an absolute path; give it relative to the workspace root"},
		{"vivary_check", map[string]any{"workspace": "ws0", "strict": "no"}, "strict", "strict must be true, false or null"},
		{"vivary_capsule", map[string]any{"workspace": "ws0", "question": "x", "max_claims": -1}, "max_claims", "max_claims must be between 0 and 24"},
	} {
		_, _, err := s.call(c.tool, c.args)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s %v: %v, want -32602", c.tool, c.args, err)
			continue
		}
		if !strings.HasPrefix(je.Message, "Invalid tool arguments: "+c.detail) {
			t.Errorf("%s %v: message %q, want it to say %q", c.tool, c.args, je.Message, c.detail)
		}
		var data struct {
			Argument any    `json:"argument"`
			Detail   string `json:"detail"`
		}
		if err := json.Unmarshal(je.Data, &data); err != nil || data.Argument != c.arg || "Invalid tool arguments: "+data.Detail != je.Message {
			t.Errorf("%s %v: data %s (%v), want argument %v and the message's detail", c.tool, c.args, je.Data, err, c.arg)
		}
		for _, echoed := range []string{"9999", "2.5", "argvalue", secretName, "Bogus", "yes", "bad alias!", "../x", "/etc/passwd", "é", hexKey, runKey} {
			if strings.Contains(je.Message, echoed) || strings.Contains(string(je.Data), echoed) {
				t.Errorf("%s %v: the refusal repeats %q: %s %s", c.tool, c.args, echoed, je.Message, je.Data)
			}
		}
	}
}

// TestPathRefusedNamesThePath: a check path or path filter the privacy
// policy refuses is path_refused with a message that names it (the
// caller's own input, when it is safe to show) and the rule; a
// secret-looking one is called just that. The answer for an ignored name
// is the same whether or not anything is there, also for a rule that
// ignores folders only (archive/), which Git applies only to a folder it
// finds unless asked about the name as a folder too.
func TestPathRefusedNamesThePath(t *testing.T) {
	t.Parallel()
	root := fixtureWS(t)
	testws.Write(t, root, ".gitignore", policy.GitignoreBlock+"archive/\n")
	testws.Git(t, root, "init", "-q")
	s := start(t, opts{}, root)
	refused := func(tool string, args map[string]any) string {
		t.Helper()
		_, e, err := s.call(tool, args)
		if err != nil || e.Reason == nil || *e.Reason != "path_refused" {
			t.Fatalf("%s %v: %v %+v, want path_refused", tool, args, err, e)
		}
		return e.Message
	}
	const ignored = "is kept out by the workspace's ignore rules (as a file or as a folder), whether or not anything is there; name only what the ignore rules admit"
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"vivary_check", map[string]any{"workspace": "ws0", "paths": []any{"STATE.md", "notes/.env.md"}},
			"paths[1] is a secret-looking path; secret-looking names are never read, whether or not anything is there, so leave it out"},
		{"vivary_check", map[string]any{"workspace": "ws0", "paths": []any{".vivary/runtime/run.md"}}, `paths[0] ".vivary/runtime/run.md" ` + ignored},
		{"vivary_check", map[string]any{"workspace": "ws0", "paths": []any{".vivary/runtime/absent.md"}}, `paths[0] ".vivary/runtime/absent.md" ` + ignored},
		{"vivary_check", map[string]any{"workspace": "ws0", "paths": []any{"STATE.md", "archive"}}, `paths[1] "archive" ` + ignored},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "path_filters": []any{"archive/*"}}, `path_filters[0] "archive/*" ` + ignored},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "path_filters": []any{"notes/*", "../*"}},
			`path_filters[1] "../*" climbs out with '..'; give a path inside the workspace, relative to its root`},
		{"vivary_query", map[string]any{"workspace": "ws0", "text": "x", "path_filters": []any{"secrets/*"}},
			"path_filters[0] is a secret-looking path; secret-looking names are never read, whether or not anything is there, so leave it out"},
	} {
		if got := refused(c.tool, c.args); got != c.want {
			t.Errorf("%s %v:\n got %q\nwant %q", c.tool, c.args, got, c.want)
		}
	}
	// The folder-only rule refuses "archive" alike before and after the
	// folder exists: the answer tells nothing about the disk.
	testws.Write(t, root, "archive/old.md", "# Old\n")
	if got := refused("vivary_check", map[string]any{"workspace": "ws0", "paths": []any{"STATE.md", "archive"}}); got != `paths[1] "archive" `+ignored {
		t.Errorf("with the folder there: %q", got)
	}
}
