package reason_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/vivary-dev/vivary-go/adopt"
	"github.com/vivary-dev/vivary-go/greenfield"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/record"
)

// A Refusal prints its message alone, and its Kind, never printed, is what
// tells one sort from the others.
func TestRefusal(t *testing.T) {
	errSort := errors.New("a sort of refusal")
	plain := reason.Refuse("record path is refused: %s", "it looks secret")
	sorted := fmt.Errorf("wrapped: %w", &reason.Refusal{Msg: "bad flag", Kind: errSort})
	if plain.Error() != "record path is refused: it looks secret" {
		t.Errorf("message: %q", plain)
	}
	if errors.Is(plain, errSort) || !errors.Is(sorted, errSort) {
		t.Error("errors.Is does not follow the Kind")
	}
	var r *reason.Refusal
	if !errors.As(sorted, &r) || r.Msg != "bad flag" {
		t.Errorf("errors.As: %v", r)
	}
	if reason.Of(plain) != reason.ProducerUnavailable {
		t.Error("a refusal has no code of its own")
	}
}

// Every writer refuses with the one type, its message unchanged.
func TestWritersRefuseWithOneType(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	_, _, recErr := record.Destination("../STATE.md")
	_, initErr := greenfield.Init(context.Background(), missing, greenfield.Options{Preset: "no-such-preset"})
	_, adoptErr := adopt.Preview(context.Background(), missing, adopt.Options{})
	for name, err := range map[string]error{"record": recErr, "init": initErr, "adopt": adoptErr} {
		var r *reason.Refusal
		if !errors.As(err, &r) || r.Msg == "" || err.Error() != r.Msg {
			t.Errorf("%s refused with %T %v, want a *reason.Refusal", name, err, err)
		}
	}
}
