package policy_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/scaffold"
)

func thinRaw(t *testing.T) map[string]any {
	t.Helper()
	for _, f := range scaffold.Files("p", "coding") {
		if f.Path == policy.ThinConfigPath {
			raw, err := policy.ParseTOML([]byte(f.Content))
			if err != nil {
				t.Fatal(err)
			}
			return raw
		}
	}
	t.Fatal("no workspace.toml in the scaffold")
	return nil
}

func TestThinConfigValidation(t *testing.T) {
	t.Parallel()
	base := thinRaw(t)
	cfg, _, err := policy.Compose([]map[string]any{base}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Strict || !cfg.AllowUntyped || cfg.FolderMap["changes"] != "change" || cfg.FolderMap[".vivary/knowledge"] != "vivary_fact" {
		t.Fatalf("composed %+v", cfg)
	}
	bad := map[string]string{
		"version 2":          strings.Replace(tomlOf(t), "version = 1\nexclude", "version = 2\nexclude", 1),
		"version bool":       strings.Replace(tomlOf(t), "version = 1\nexclude", "version = true\nexclude", 1),
		"contract":           strings.Replace(tomlOf(t), `contract = "thin-v0.3"`, `contract = "thin-v0.2"`, 1),
		"unknown key":        strings.Replace(tomlOf(t), "[base]\n", "[base]\nsurprise = 1\n", 1),
		"unknown top key":    "colour = 1\n" + tomlOf(t),
		"private not listed": strings.Replace(tomlOf(t), `, ".vivary/private", ".vivary/runtime"]`+"\n\n[workspace]", `, ".vivary/runtime"]`+"\n\n[workspace]", 1),
		"state absolute":     strings.Replace(tomlOf(t), `state = "STATE.md"`, `state = "/STATE.md"`, 1),
		"state dotdot":       strings.Replace(tomlOf(t), `state = "STATE.md"`, `state = "../STATE.md"`, 1),
		"bad adapter":        strings.Replace(tomlOf(t), `adapters = []`, `adapters = ["vim"]`, 1),
		"bad spec":           strings.Replace(tomlOf(t), `tags = "string-list"`, `tags = "strings"`, 1),
		"empty preset":       strings.Replace(tomlOf(t), `preset = "coding"`, `preset = ""`, 1),
	}
	for name, text := range bad {
		raw, err := policy.ParseTOML([]byte(text))
		if err == nil {
			_, _, err = policy.Compose([]map[string]any{raw}, true)
		}
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := policy.ParseTOML([]byte("version = [")); err == nil {
		t.Error("malformed TOML accepted")
	}
}

func tomlOf(t testing.TB) string {
	for _, f := range scaffold.Files("p", "coding") {
		if f.Path == policy.ThinConfigPath {
			return f.Content
		}
	}
	return ""
}

func TestOverlayTightenOnly(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, overlay string
		ok            bool
	}{
		{"exclude and allow_untyped false", "exclude = [\"hidden.md\"]\n[base]\nallow_untyped = false\n", true},
		{"narrow enum", "[types.change]\nrequired = { status = \"enum:planned|done\" }\n", true},
		{"optional to required", "[types.change]\nrequired = { branch = \"string\" }\n", true},
		{"new type", "[types.runbook]\nfolder = \"runbooks\"\nrequired = { owner = \"string\" }\n", true},
		{"strict stays true", "[base]\nstrict = true\n", true},
		{"loosen strict", "[base]\nstrict = false\n", false},
		{"loosen allow_untyped", "[base]\nallow_untyped = false\n[types.x]\n", true},
		{"widen enum", "[types.change]\nrequired = { status = \"enum:planned|done|someday\" }\n", false},
		{"change spec", "[types.change]\noptional = { branch = \"url\" }\n", false},
		{"required to optional", "[types.change]\noptional = { project = \"string\" }\n", false},
		{"folder conflict", "[types.runbook]\nfolder = \"changes\"\n", false},
		{"workspace table in overlay", "[workspace]\ncontract = \"thin-v0.3\"\n", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw, err := policy.ParseTOML([]byte(c.overlay))
			if err != nil {
				t.Fatal(err)
			}
			cfg, _, err := policy.Compose([]map[string]any{thinRaw(t), raw}, true)
			if (err == nil) != c.ok {
				t.Fatalf("ok=%v, err=%v", c.ok, err)
			}
			if err != nil && c.name == "loosen strict" && !strings.Contains(err.Error(), "E120") {
				t.Errorf("loosening error lacks E120: %v", err)
			}
			_ = cfg
		})
	}
	// allow_untyped false then true in a later overlay is a loosening.
	tight, _ := policy.ParseTOML([]byte("[base]\nallow_untyped = false\n"))
	loose, _ := policy.ParseTOML([]byte("[base]\nallow_untyped = true\n"))
	if _, _, err := policy.Compose([]map[string]any{tight, loose}, false); err == nil {
		t.Fatal("allow_untyped false -> true accepted")
	}
}

func TestIsExcluded(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		rel  string
		pats []string
		want bool
	}{
		{".git/x", []string{".git"}, true},
		{"a/node_modules/x.md", []string{"node_modules"}, true},
		{"a/b/c.md", []string{"a/b/**"}, true},
		{"a/bc.md", []string{"a/b"}, false},
		{"hidden.md", []string{"hidden.md"}, true},
		{"x/hidden.md", []string{"hidden.md"}, true},
		{"x/hidden.md", []string{"x/hidden.md/"}, true},
		{"ab/c.md", []string{"a/"}, false},
	} {
		if got := policy.IsExcluded(c.rel, c.pats); got != c.want {
			t.Errorf("IsExcluded(%q, %v) = %v", c.rel, c.pats, got)
		}
	}
}

func FuzzPolicyFile(f *testing.F) {
	f.Add(tomlOf(nil), "exclude = [\"x\"]\n")
	f.Add("version = 1\n", "[base]\nstrict = false\n")
	f.Add("[types.a]\nfolder = [\"a\", \"b\"]\n", "[types.a]\nrequired = { x = \"enum:a|b\" }\n")
	f.Fuzz(func(t *testing.T, thin, overlay string) {
		var files []map[string]any
		for _, s := range []string{thin, overlay} {
			raw, err := policy.ParseTOML([]byte(s))
			if err != nil {
				return
			}
			files = append(files, raw)
		}
		cfg, _, err := policy.Compose(files, true)
		if err != nil {
			return
		}
		if !cfg.Thin || cfg.FolderMap == nil {
			t.Fatalf("composed a thin config without its contract: %+v", cfg)
		}
		for _, td := range cfg.Types {
			for k, spec := range td.Required {
				if !policy.ValidSpec(spec) || td.Optional[k] != "" {
					t.Fatalf("type %s field %s: %q", td.Name, k, spec)
				}
			}
		}
	})
}

// A TOML error says at which line and what the parser found, and quotes
// nothing unsafe from the file.
func TestParseTOMLSaysWhere(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"version = 1\nexclude = [\"a\"\n", "not valid TOML at line 2: expected a comma (',') or array terminator (']'), but got end of file"},
		{"a = \"x\" y\n", "not valid TOML at line 1: expected a top-level item to end with a newline, comment, or EOF, but got 'y' instead"},
		{"\n\n[base\n", "not valid TOML at line 3"},
		{"a = 1 /home/u/x\n", "not valid TOML at line 1"},
	} {
		_, err := policy.ParseTOML([]byte(c.in))
		var ce *policy.ConfigError
		if !errors.As(err, &ce) || !strings.HasPrefix(ce.Msg, c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "/home") {
			t.Errorf("%q: the message quotes a machine path: %v", c.in, err)
		}
	}
}
