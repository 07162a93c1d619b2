package snapshot_test

import (
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vivary-dev/vivary-go/internal/testws"
	"github.com/vivary-dev/vivary-go/search"
	"github.com/vivary-dev/vivary-go/snapshot"
)

// A read worker reuses one buffer for every file, and the text it decodes
// shares that buffer: no document, finding, edge or search preparation
// may keep a piece of it. The same tree taken with a fresh buffer per file
// and with one reused buffer that is scribbled over after every document
// gives identical documents and preparations.
func TestReusedReadBufferLeavesNothingBehind(t *testing.T) {
	notes := map[string]string{
		"notes/bom.md":    "\ufeff---\nstatus: \"quoted value\"\ntitle: 'single'\n---\n# Bom Title\n\nwombat quokka\n",
		"notes/bad.md":    "# Invalid \xff bytes\n\nnum\xffbat numbat\n",
		"notes/open.md":   "---\nstatus: unclosed\n# Never closed\n",
		"notes/broken.md": "---\n: [\n---\n# Broken\n",
		"notes/secret.md": "# S\n\npassword = hunter2hunter2\n",
		"notes/plain.md":  "no heading, first line only\n",
		"notes/Big Name.md": "---\ntags: [alpha, \"beta gamma\"]\n---\n# " + strings.Repeat("long ", 400) + "\n\n" +
			strings.Repeat("kookaburra bilby echidna platypus ", 300) + "\n",
	}
	for i := 0; i < 40; i++ {
		notes[fmt.Sprintf(".vivary/records/modules/m%02d.md", i)] = fmt.Sprintf(
			"---\nproject: \"bench %d\"\nstatus: active\nmodule_area: 'area %d'\n"+
				"related_changes: [change-%02d, \"Bad Target %d\", m%02d]\nrelated_modules: m%02d\nunknown_key: v%d\n"+
				"tags: [module, t%d]\n---\n# Module %d title\n\n%s\n",
			i, i, i, i, (i+1)%40, (i+2)%40, i, i, i, strings.Repeat(fmt.Sprintf("word%d term%d ", i, i*7), 10+i*13))
	}
	root := testws.Thin(t, notes)
	ws := testws.Bind(t, root)
	opt := snapshot.Options{Prepare: search.Prepare}

	restore := snapshot.SetReuse(false, nil)
	fresh, err := snapshot.Take(bg, ws, opt)
	restore()
	if err != nil {
		t.Fatal(err)
	}
	var scribbled atomic.Int64
	restore = snapshot.SetReuse(true, func(buf []byte) {
		buf = buf[:cap(buf)]
		for i := range buf {
			buf[i] = '#'
		}
		scribbled.Add(1)
	})
	reused, err := snapshot.Take(bg, ws, opt)
	restore()
	if err != nil {
		t.Fatal(err)
	}
	if scribbled.Load() < int64(len(notes)) {
		t.Fatalf("the buffer was scribbled over %d times for %d notes", scribbled.Load(), len(notes))
	}
	if len(fresh.Docs) < 45 {
		t.Fatalf("only %d documents served", len(fresh.Docs))
	}
	for i := range fresh.Docs {
		if !reflect.DeepEqual(fresh.Docs[i], reused.Docs[i]) {
			t.Errorf("%s: read with a fresh buffer %+v\nwith a reused one %+v", fresh.Docs[i].Path, fresh.Docs[i], reused.Docs[i])
		}
		if !reflect.DeepEqual(fresh.Prepared(i), reused.Prepared(i)) {
			t.Errorf("%s: prepared differently with a reused buffer", fresh.Docs[i].Path)
		}
	}
	if !reflect.DeepEqual(fresh.Omissions, reused.Omissions) || len(fresh.Docs) != len(reused.Docs) {
		t.Errorf("omissions %+v, then %+v", fresh.Omissions, reused.Omissions)
	}
}
