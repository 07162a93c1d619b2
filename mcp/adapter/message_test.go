package adapter

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vivary-dev/vivary-go/guard"
	"github.com/vivary-dev/vivary-go/reason"
)

// Every failure says what to do, within the published bound, and never
// names a path; a success carries no message at all.
func TestFailureMessages(t *testing.T) {
	for code := range failures {
		e := failure(ToolQuery, "docs", code)
		if e.Message == "" || guard.Len(e.Message) > MaxMessageChars || !guard.OutputSafe(e.Message, MaxMessageChars) || strings.Contains(e.Message, "/tmp") {
			t.Errorf("%s: message %q", code, e.Message)
		}
		text, err := e.text()
		if err != nil || !strings.Contains(string(text), `"message":`) {
			t.Errorf("%s: envelope %s, %v", code, text, err)
		}
	}
	if text, _ := success(ToolQuery, "docs", map[string]any{}, true).text(); strings.Contains(string(text), "message") {
		t.Fatalf("a success carries a message: %s", text)
	}
}

// A producer's own message is passed on only when it is safe to show:
// within the bound, printable, free of the root, of machine paths and of
// credentials; otherwise the reason's advice stands in.
func TestFailureOfKeepsOnlySafeMessages(t *testing.T) {
	const root = "/srv/notes/ws"
	own := "the workspace has 100,001 Markdown files to read, more than the 100,000 one call may read; exclude folders in .vivary/workspace.toml"
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"own message", reason.New(reason.WorkLimitExceeded, own), own},
		{"at the bound", reason.New(reason.WorkLimitExceeded, strings.Repeat("a", MaxMessageChars)), strings.Repeat("a", MaxMessageChars)},
		{"over the bound", reason.New(reason.WorkLimitExceeded, strings.Repeat("a", MaxMessageChars+1)), advice[reason.WorkLimitExceeded]},
		{"names the root", reason.New(reason.PrivacyPolicyUnavailable, "cannot read "+root+"/x"), advice[reason.PrivacyPolicyUnavailable]},
		{"a machine path", reason.New(reason.PrivacyPolicyUnavailable, "cannot read /home/someone/.gitconfig"), advice[reason.PrivacyPolicyUnavailable]},
		{"a credential", reason.New(reason.PrivacyPolicyUnavailable, "bad key ghp_"+strings.Repeat("A1b2", 9)), advice[reason.PrivacyPolicyUnavailable]},
		{"a control byte", reason.New(reason.PrivacyPolicyUnavailable, "bad\x1b[2J"), advice[reason.PrivacyPolicyUnavailable]},
		{"an argument error the adapter let through", reason.New(reason.InvalidArguments, "limit 99"), advice[reason.ProducerUnavailable]},
		{"wrapped", fmtWrap(reason.New(reason.PathRefused, "a path filter names an ignored path")), "a path filter names an ignored path"},
		{"plain error", errors.New("open /srv/notes/ws/x: denied"), advice[reason.ProducerUnavailable]},
		{"cancelled", context.Canceled, advice[reason.ProducerUnavailable]},
	}
	for _, c := range cases {
		if got := failureOf(ToolQuery, "docs", c.err, root).Message; got != c.want {
			t.Errorf("%s: message %q, want %q", c.name, got, c.want)
		}
	}
}

type wrapped struct{ err error }

func (w wrapped) Error() string { return "wrapped: " + w.err.Error() }
func (w wrapped) Unwrap() error { return w.err }

func fmtWrap(err error) error { return wrapped{err} }
