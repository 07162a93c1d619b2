package produce_test

import (
	"context"
	"flag"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
)

var update = flag.Bool("update", false, "rewrite golden files")

const marker = testws.Marker

var (
	fixture = testws.Fixture
	bindWS  = testws.Bind
	jsonOf  = testws.IndentedJSON
	noLeak  = testws.NoLeak
)

func golden(t *testing.T, name string, got []byte) { t.Helper(); testws.Golden(t, *update, name, got) }

var bg = context.Background()
