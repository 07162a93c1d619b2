package produce_test

import (
	"context"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/reason"
)

func TestCancellation(t *testing.T) {
	t.Parallel()
	root := fixture(t)
	testws.Git(t, root, "init", "-q")
	ws := bindWS(t, root)
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if _, err := produce.Query(ctx, ws, produce.QueryArgs{Text: "x", Limit: 1}); reason.Of(err) != reason.ProducerUnavailable {
		t.Fatalf("cancelled query: %v", err)
	}
}
