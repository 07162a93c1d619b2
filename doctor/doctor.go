// Package doctor owns the workspace health report of `create-vivary doctor`
// and the passive interop:mcp capability probe. Doctor reads; it never
// writes, and the probe never executes, imports or connects to the adapter:
// it only reads the build information embedded in the vivary-mcp binary.
package doctor

import (
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/vivary-dev/vivary-go/graph"
	"github.com/vivary-dev/vivary-go/internal/version"
	"github.com/vivary-dev/vivary-go/limits"
	"github.com/vivary-dev/vivary-go/policy"
	"github.com/vivary-dev/vivary-go/produce"
	"github.com/vivary-dev/vivary-go/reason"
	"github.com/vivary-dev/vivary-go/scaffold"
	"github.com/vivary-dev/vivary-go/workspace"
)

// Graph counts the typed graph, and (beyond the reference's keys) the
// documents it was built from: one node per id, so documents that share an
// id (one file name in several folders) are fewer nodes than documents.
type Graph struct {
	Nodes     int `json:"nodes"`
	Edges     int `json:"edges"`
	Broken    int `json:"broken"`
	Documents int `json:"documents"`
	// SharedDocuments is how many documents share their id with another,
	// SharedIDs how many ids they share.
	SharedDocuments int `json:"shared_id_documents"`
	SharedIDs       int `json:"shared_ids"`
}

// Compatibility reports the workspace contract.
type Compatibility struct {
	SchemaVersion     int      `json:"schema_version"`
	WorkspaceContract *string  `json:"workspace_contract"`
	ContractMissing   []string `json:"contract_missing"`
}

// Capabilities lists the capability rows.
type Capabilities struct {
	OK                    bool             `json:"ok"`
	DefaultCapabilities   []string         `json:"default_capabilities"`
	AvailableCapabilities []map[string]any `json:"available_capabilities"`
}

// Report is the doctor --json output.
type Report struct {
	OK             bool                `json:"ok"`
	Root           string              `json:"root"`
	Errors         []string            `json:"errors"`
	Warnings       []string            `json:"warnings"`
	Graph          *Graph              `json:"graph"`
	Backend        string              `json:"backend"`
	Compatibility  Compatibility       `json:"compatibility"`
	Capabilities   Capabilities        `json:"capabilities"`
	WorkspaceRoles map[string][]string `json:"workspace_roles"`
	// Omissions count, per rule, what the workspace's documents left out
	// (the check's omission rows); `vivary check --show-hidden` names
	// the paths.
	Omissions []produce.Omission `json:"omissions"`
	// RestoreGitignore is the block to put back when the root .gitignore
	// differs from it outside Git; the text report prints it under the error.
	RestoreGitignore string `json:"-"`
}

// Privacy probes: each rule of the bounded block must ignore its probe path.
var privacyProbes = []struct{ pattern, probe string }{
	{".vivary/private/", ".vivary/private/secret.md"},
	{".vivary/runtime/", ".vivary/runtime/adopt-journal.json"},
	{"*.vivary-tmp", ".vivary-output.vivary-tmp"},
}

// Run checks the workspace at root. It refuses (a *reason.Error) a root it
// cannot inspect at all (missing, not a folder, unreachable) and a folder
// that is not a Vivary workspace, as vivary refuses to read them; every
// problem of a workspace is an entry in Errors.
func Run(ctx context.Context, root string) (*Report, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, reason.Wrap(reason.WorkspaceUnavailable, "workspace path cannot be made absolute", err)
	}
	ws, err := workspace.Bind(abs)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	// Without its type policy, and with no adoption to recover, a folder
	// is not a workspace with problems but no workspace at all: one
	// sentence that says what makes it one, not a list of every contract
	// file it lacks.
	if info, err := ws.Lstat(policy.ThinConfigPath); err == nil && !info.Exists && len(interrupted(ws)) == 0 {
		return nil, reason.New(reason.WorkspaceUnavailable, policy.NotWorkspace)
	}
	return Inspect(ctx, produce.NewReader(ws), abs), nil
}

func newReport(root string) *Report {
	r := &Report{Root: root, Errors: []string{}, Warnings: []string{}, Backend: "file",
		Compatibility: Compatibility{SchemaVersion: 2, ContractMissing: []string{}}, Omissions: []produce.Omission{},
		Capabilities:   Capabilities{OK: true, DefaultCapabilities: []string{"storage:file", "memory:none"}},
		WorkspaceRoles: map[string][]string{}}
	r.Capabilities.AvailableCapabilities = []map[string]any{
		{"id": "storage:file", "default": true}, {"id": "memory:none", "default": true}, ProbeMCP(),
	}
	return r
}

// Inspect checks the workspace a Reader serves, reusing its snapshot; root
// is the path the report names.
func Inspect(ctx context.Context, reader *produce.Reader, root string) *Report {
	return inspect(ctx, reader, root, false)
}

// InspectAdopting is Inspect while an adoption is being applied: its own
// journal and the runtime folder it sits in are expected, so the checks for
// an interrupted adoption are left out.
func InspectAdopting(ctx context.Context, reader *produce.Reader, root string) *Report {
	return inspect(ctx, reader, root, true)
}

func inspect(ctx context.Context, reader *produce.Reader, root string, adopting bool) *Report {
	r := newReport(root)
	ws := reader.Workspace()
	if !adopting {
		r.Errors = append(r.Errors, interrupted(ws)...)
	}
	var contract *string
	for _, f := range scaffold.Files("", scaffold.DefaultPreset) {
		info, err := ws.Lstat(f.Path)
		problem := ""
		switch {
		case errors.Is(err, fs.ErrPermission):
			problem = "required file is unreadable (permission denied on it or its folder): " + f.Path +
				"; give your user read and search permission"
		case errors.Is(err, workspace.ErrLink):
			problem = "required file is reached through a link or a file in place of a folder: " + f.Path +
				"; replace the link with a real folder and file"
		case err != nil:
			problem = "required file cannot be inspected: " + f.Path
		case !info.Exists:
			problem = "missing required file: " + f.Path
		case !info.IsRegular():
			problem = "required file is not a regular file: " + f.Path + "; replace it with a plain file"
		}
		if problem != "" {
			r.Errors = append(r.Errors, problem)
			r.Compatibility.ContractMissing = append(r.Compatibility.ContractMissing, f.Path)
		}
	}
	if len(r.Compatibility.ContractMissing) == 0 {
		c := policy.ThinContract
		contract = &c
	}
	r.Compatibility.WorkspaceContract = contract
	r.Warnings = append(r.Warnings, leftovers(ws)...)
	policyFailed := r.checkPrivacy(ctx, ws)
	snap, err := reader.Snapshot(ctx)
	if err != nil {
		// The policy failure is already reported once, with its fix.
		if !policyFailed || reason.Of(err) != reason.PrivacyPolicyUnavailable {
			r.Errors = append(r.Errors, "workspace cannot be read: "+string(reason.Of(err))+": "+message(err))
		}
		r.OK = false
		return r
	}
	r.WorkspaceRoles = snap.Config.Roles
	if r.WorkspaceRoles == nil {
		r.WorkspaceRoles = map[string][]string{}
	}
	res, err := reader.Check(ctx, produce.CheckArgs{})
	if err != nil {
		r.Errors = append(r.Errors, "tropo validation failed: "+string(reason.Of(err))+": "+message(err))
	} else {
		for _, f := range res.Findings {
			line := fmt.Sprintf("tropo finding: %s:%d: %s %s", f.Path, f.Line, f.Code, f.Message)
			if f.Level == "error" {
				r.Errors = append(r.Errors, line)
			} else {
				r.Warnings = append(r.Warnings, line)
			}
		}
		r.Omissions = res.Omissions
		for _, d := range res.UnreadableFolders {
			r.Warnings = append(r.Warnings, "the folder "+d+"/ cannot be opened (permission denied), so nothing in it is read; give your user read and search permission on it to include it")
		}
	}
	edges := snap.Graph.Edges()
	g := &Graph{Nodes: len(snap.Graph.IDs), Edges: len(edges), Documents: len(snap.Docs)}
	for _, e := range edges {
		if e.Broken {
			g.Broken++
		}
	}
	r.Graph = g
	if w := g.shared(snap.Docs); w != "" {
		r.Warnings = append(r.Warnings, w)
	}
	if g.Broken > 0 {
		r.Errors = append(r.Errors, fmt.Sprintf("graph has %d broken edge(s)", g.Broken))
	}
	if g.Nodes == 0 {
		r.Warnings = append(r.Warnings, "typed graph has no nodes")
	}
	r.OK = len(r.Errors) == 0
	return r
}

// shared counts the documents that share an id and, when there are any,
// says why the graph has fewer nodes than there are documents and where to
// look: the top folders that hold them, and the id most documents share.
func (g *Graph) shared(docs []*graph.Document) string {
	holders := map[string][]string{} // id -> paths, in path order
	for _, d := range docs {
		holders[d.ID] = append(holders[d.ID], d.Path)
	}
	var top string
	folders := map[string]bool{}
	for id, paths := range holders {
		if len(paths) < 2 {
			continue
		}
		g.SharedIDs++
		g.SharedDocuments += len(paths)
		for _, p := range paths {
			if dir, _, ok := strings.Cut(p, "/"); ok {
				folders[dir+"/"] = true
			} else {
				folders["the root"] = true
			}
		}
		if n, m := len(paths), len(holders[top]); top == "" || n > m || (n == m && id < top) {
			top = id
		}
	}
	if g.SharedIDs == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d documents share an id with another document (%d ids are shared), so the graph has %d nodes: "+
		"an id comes from the file name, and the graph keeps the first document of each id (search still finds every one by its path). "+
		"They are in %s; the id shared most is %q (%d documents: %s). "+
		"Give the files you ref distinct names; `vivary check` warns (W221) about each ref to a shared id",
		g.SharedDocuments, g.Documents, g.SharedIDs, g.Nodes, firstFew(slices.Sorted(maps.Keys(folders)), "more folders"), top, len(holders[top]),
		firstFew(holders[top], "more"))
}

// firstFew lists the first three of xs and how many more there are.
func firstFew(xs []string, more string) string {
	out := strings.Join(xs[:min(3, len(xs))], ", ")
	if len(xs) > 3 {
		out += fmt.Sprintf(" and %d %s", len(xs)-3, more)
	}
	return out
}

// interrupted reports what a killed adoption left (its journal, or the
// pre-journal marker line at the end of .gitignore) and what a killed undo
// left (its mark in the adoption record).
func interrupted(ws *workspace.Workspace) []string {
	const recover = "run `create-vivary adopt DIR --recover` to preview restoring the original files, then apply it with --recover --apply HASH"
	var out []string
	if scaffold.JournalLeft(ws) {
		out = append(out, "unfinished adoption journal exists; "+recover)
	}
	if info, err := ws.Lstat(scaffold.RecordPath); err == nil && info.IsRegular() {
		if data, _, err := ws.ReadFile(scaffold.RecordPath, 1<<20, nil); err == nil && scaffold.UndoInterrupted(data) {
			out = append(out, "an undo of this folder's adoption was interrupted, so the folder is half undone; "+
				"run `create-vivary adopt DIR --undo` to preview finishing it, then apply it with --undo --apply HASH")
		}
	}
	if info, err := ws.Lstat(".gitignore"); err == nil && info.IsRegular() {
		data, _, err := ws.ReadFile(".gitignore", 2*limits.MaxFileBytes, nil)
		if err != nil {
			return append(out, "cannot inspect .gitignore for an interrupted adoption")
		}
		switch state, _, _ := scaffold.FindMarker(data); state {
		case scaffold.ValidMarker:
			out = append(out, "unfinished pre-journal adoption privacy change exists in .gitignore; "+recover)
		case scaffold.MalformedMarker:
			out = append(out, "malformed pre-journal adoption marker exists in .gitignore; remove the line that starts with `"+strings.TrimSpace(scaffold.MarkerPrefix)+"`")
		}
	}
	return out
}

// tempFolders are where a write of create-vivary puts its temp files: beside
// the files it writes.
var tempFolders = []string{"", ".vivary", ".vivary/runtime", ".vivary/records/changes", ".vivary/records/decisions", ".vivary/records/gates",
	".vivary/records/modules", ".vivary/records/verification", ".agents/skills/vivary", ".claude/skills/vivary"}

// tempFix says how a leftover of each writer goes away.
var tempFix = map[string]string{
	"record": "the next create-vivary record --apply removes it",
	"adopt":  "`create-vivary adopt DIR --recover` removes it",
	"init":   "running create-vivary init again finishes the init and removes it",
}

// leftovers reports the temp files a killed write left behind. They are
// ignored by the privacy block, so they harm nothing, but they are not the
// owner's and the next write of the same kind removes them.
func leftovers(ws *workspace.Workspace) []string {
	var out []string
	for _, dir := range tempFolders {
		entries, err := ws.ReadDir(dir)
		if err != nil {
			continue
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
		for _, e := range entries {
			tag, ok := workspace.TempTag(e.Name)
			if !ok || !e.IsRegular() {
				continue
			}
			rel := e.Name
			if dir != "" {
				rel = dir + "/" + e.Name
			}
			fix, ok := tempFix[tag]
			if !ok {
				fix = "delete it"
			}
			out = append(out, fmt.Sprintf("an interrupted create-vivary %s left the temp file %s; %s", tag, rel, fix))
		}
	}
	return out
}

// checkPrivacy asks the ignore policy about each rule's probe path. When
// the policy cannot answer at all, that is one error saying why, not a
// "missing" line per rule: outside Git that is almost always a root
// .gitignore that is not the generated block byte for byte. It reports
// whether the policy could not answer.
func (r *Report) checkPrivacy(ctx context.Context, ws *workspace.Workspace) bool {
	probes := make([]string, len(privacyProbes))
	for i, p := range privacyProbes {
		probes[i] = p.probe
	}
	// One decision of the mode and one Git call for all the probes.
	ignored, err := policy.IgnoredEach(ctx, ws, probes)
	if err != nil {
		if !rootBlockExact(ws) {
			r.Errors = append(r.Errors, "privacy ignore rules cannot be applied: the root .gitignore is missing or differs "+
				"from the block create-vivary init writes, and outside Git only that exact block is honoured; "+
				"restore the block exactly (shown below) or run `git init` so Git's rules apply")
			r.RestoreGitignore = policy.GitignoreBlock
			return true
		}
		r.Errors = append(r.Errors, "privacy ignore rules cannot be applied: "+message(err))
		return true
	}
	for _, p := range privacyProbes {
		if !ignored[p.probe] {
			r.Errors = append(r.Errors, "privacy ignore missing: "+p.pattern)
		}
	}
	return false
}

// rootBlockExact reports whether the root .gitignore is one of the
// generated blocks byte for byte.
func rootBlockExact(ws *workspace.Workspace) bool {
	data, _, err := ws.ReadFile(".gitignore", int64(len(policy.GitignoreBlockCocoindex)), nil)
	return err == nil && (string(data) == policy.GitignoreBlock || string(data) == policy.GitignoreBlockCocoindex)
}

// message is the typed refusal's message, never an OS error's text (which
// would hold a path).
func message(err error) string {
	var re *reason.Error
	if errors.As(err, &re) && re.Msg != "" {
		return re.Msg
	}
	return "no further detail"
}

// Adapter facts the probe checks in the binary's build information.
const (
	AdapterModule  = "github.com/vivary-dev/vivary-go/mcp"
	AdapterPackage = "github.com/vivary-dev/vivary-go/mcp/cmd/vivary-mcp"
	SDKModule      = "github.com/modelcontextprotocol/go-sdk"
	SDKVersion     = "v1.8.0"
)

// searchDirs are where the probe looks for vivary-mcp: PATH, then GOBIN,
// then GOPATH/bin (the places `go install` puts it).
func searchDirs() []string {
	dirs := filepath.SplitList(os.Getenv("PATH"))
	if gobin := os.Getenv("GOBIN"); gobin != "" {
		dirs = append(dirs, gobin)
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		if home, err := os.UserHomeDir(); err == nil {
			gopath = filepath.Join(home, "go")
		}
	}
	for _, p := range filepath.SplitList(gopath) {
		dirs = append(dirs, filepath.Join(p, "bin"))
	}
	return dirs
}

// ProbeMCP is the interop:mcp capability row. It reads the embedded build
// information of the first vivary-mcp it finds; it never runs it.
func ProbeMCP() map[string]any {
	row := map[string]any{
		"id": "interop:mcp", "label": "Read-only MCP interoperability", "default": false,
		"requires_approval": false, "network": false, "authority": "read-only-context",
		"protocol_revision": "2026-07-28", "transport_stdio": true,
		"tool_names": []string{"vivary_find", "vivary_query", "vivary_check", "vivary_capsule"}, "extensions": []string{},
		"conformance_status": "unproven",
		"requires_install":   []string{"vivary-mcp", SDKModule + "@" + SDKVersion},
	}
	// adapter_version is the found vivary-mcp's own version string (what its
	// --version prints), null when none was found or it is not vivary-mcp.
	row["adapter_version"] = nil
	set := func(status string, codes []string, present any, sdk any, compatible bool) map[string]any {
		row["install_status"] = status
		row["installed"] = status == "installed"
		row["reason_codes"] = codes
		row["package_present"] = present
		row["entry_point_present"] = present
		row["sdk_version"] = sdk
		row["sdk_compatible"] = compatible
		row["missing_install"] = []string{}
		if status == "not-installed" {
			row["missing_install"] = []string{"vivary-mcp"}
		}
		return row
	}
	var found string
	for _, d := range searchDirs() {
		if d == "" {
			continue
		}
		p := filepath.Join(d, "vivary-mcp")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			found = p
			break
		}
	}
	if found == "" {
		return set("not-installed", []string{"capability_dependency_missing"}, false, nil, false)
	}
	info, err := buildinfo.ReadFile(found)
	if err != nil {
		return set("probe-failed", []string{"capability_probe_failed"}, nil, nil, false)
	}
	if info.Main.Path != AdapterModule || info.Path != AdapterPackage {
		return set("not-installed", []string{"capability_dependency_missing"}, false, nil, false)
	}
	row["adapter_version"] = version.Of(info)
	var sdk string
	for _, dep := range info.Deps {
		if dep.Path == SDKModule {
			sdk = dep.Version
			if dep.Replace != nil {
				sdk = dep.Replace.Version
			}
		}
	}
	if sdk == "" {
		return set("incompatible", []string{"capability_contract_incompatible"}, true, nil, false)
	}
	if sdk != SDKVersion {
		return set("incompatible", []string{"capability_contract_incompatible"}, true, strings.TrimSpace(sdk), false)
	}
	return set("installed", []string{}, true, sdk, true)
}
