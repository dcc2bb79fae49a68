package layout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// module is the module path of the repository.
const module = "tremor"

// Import path patterns below use go list syntax: "a/b" matches a/b only,
// "a/b/..." matches a/b and everything below it. A pattern starting with
// ".../" matches any path that ends with the rest ("…/draw").

// windowPackages are the packages that need a window, a display and cgo.
var windowPackages = []string{
	"github.com/hajimehoshi/ebiten/...",
}

// windowAllowed are the only packages that may depend on windowPackages.
var windowAllowed = []string{
	"tremor/cmd/client",
	".../draw",
	"tremor/ui/...",
}

// shadowedNames are standard-library package names that no package of ours
// may take, as a package name or as the last element of its import path.
var shadowedNames = []string{"net", "maps"}

// closedPackages lists packages that may import only the standard library and
// the import path patterns in allow.
var closedPackages = []struct {
	pattern string
	allow   []string
}{
	{"tremor/net/...", []string{"tremor/..."}},
	{"tremor/bg/...", []string{"tremor/..."}},
	{"tremor/game/...", []string{"tremor/..."}},
}

// cgoFreeCommands must exist and build with CGO_ENABLED=0. (Every package not
// in windowAllowed is built that way too; this list makes sure the commands
// that matter are not silently gone.)
var cgoFreeCommands = []string{
	"tremor/cmd/server",
	"tremor/cmd/headless",
	"tremor/cmd/inspect",
	"tremor/cmd/hostile",
}

// pkg is the part of `go list -json` output the rules need.
type pkg struct {
	ImportPath string   // for test variants: "tremor/x [tremor/x.test]"
	Name       string   // package name
	ForTest    string   // set on the variants compiled for a package's test
	Standard   bool     // part of the standard library
	Imports    []string // direct imports (IDs of variants where recompiled)
	Error      *struct{ Err string }
}

// graph is the loaded import graph of the module, test files included.
type graph struct {
	root string          // module root directory
	byID map[string]*pkg // every listed package, by ImportPath
	ours []*pkg          // packages of this module, test variants included
}

var (
	loadOnce   sync.Once
	loaded     *graph
	loadErr    error
	goNotFound bool
)

// load runs go list once per test binary and returns the graph.
func load(t *testing.T) *graph {
	t.Helper()
	loadOnce.Do(func() {
		if _, err := exec.LookPath("go"); err != nil {
			goNotFound = true
			return
		}
		loaded, loadErr = loadGraph()
	})
	if goNotFound {
		t.Skip("go command not on PATH; the layout rules are checked with go list")
	}
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return loaded
}

func loadGraph() (*graph, error) {
	gomod, err := goCmd("", nil, "env", "GOMOD")
	if err != nil {
		return nil, err
	}
	gomod = bytes.TrimSpace(gomod)
	if len(gomod) == 0 || string(gomod) == os.DevNull {
		return nil, errors.New("layout: not inside a Go module")
	}
	g := &graph{root: filepath.Dir(string(gomod)), byID: make(map[string]*pkg)}
	out, err := goCmd(g.root, nil, "list", "-e", "-deps", "-test", "-json=ImportPath,Name,ForTest,Standard,Imports,Error", "./...")
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		p := new(pkg)
		if err := dec.Decode(p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("layout: decoding go list output: %v", err)
		}
		g.byID[p.ImportPath] = p
		b := basePath(p.ImportPath)
		if !match(module+"/...", b) && b != module {
			continue
		}
		if p.Name == "main" && p.ForTest == "" && strings.HasSuffix(b, ".test") {
			continue // generated test main
		}
		g.ours = append(g.ours, p)
	}
	if len(g.ours) == 0 {
		return nil, fmt.Errorf("layout: go list ./... in %s found no packages of module %s", g.root, module)
	}
	return g, nil
}

// goCmd runs the go command in dir with extra environment and returns stdout.
func goCmd(dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%s go %s: %v\n%s", strings.Join(env, " "), strings.Join(args, " "), err, stderr.Bytes())
	}
	return out, nil
}

// basePath strips the " [x.test]" suffix go list gives test variants.
func basePath(id string) string {
	if i := strings.Index(id, " ["); i >= 0 {
		return id[:i]
	}
	return id
}

// owner is the package a listed package belongs to: its own import path, or
// for a test variant or external test package, the package under test.
func owner(p *pkg) string {
	if p.ForTest != "" {
		return p.ForTest
	}
	return basePath(p.ImportPath)
}

// isTestVariant reports whether p was compiled for a test.
func isTestVariant(p *pkg) bool {
	return p.ImportPath != basePath(p.ImportPath)
}

// match reports whether import path p matches pattern (see the syntax above).
func match(pattern, p string) bool {
	if rest, ok := strings.CutPrefix(pattern, ".../"); ok {
		return p == rest || strings.HasSuffix(p, "/"+rest)
	}
	if prefix, ok := strings.CutSuffix(pattern, "/..."); ok {
		return p == prefix || strings.HasPrefix(p, prefix+"/")
	}
	return p == pattern
}

func matchAny(patterns []string, p string) bool {
	return slices.ContainsFunc(patterns, func(pat string) bool { return match(pat, p) })
}

// findImport searches the imports of from, transitively and breadth first,
// for a package that bad reports, and returns the import chain to the first
// one found (nil if none). Standard-library packages are not descended into.
func (g *graph) findImport(from *pkg, bad func(id string, p *pkg) bool) []string {
	parent := map[string]string{from.ImportPath: ""}
	queue := []string{from.ImportPath}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		p := g.byID[id]
		if id != from.ImportPath && bad(id, p) {
			var chain []string
			for ; id != ""; id = parent[id] {
				chain = append(chain, basePath(id))
			}
			slices.Reverse(chain)
			return chain
		}
		if p == nil || p.Standard {
			continue
		}
		for _, imp := range p.Imports {
			if _, seen := parent[imp]; !seen {
				parent[imp] = id
				queue = append(queue, imp)
			}
		}
	}
	return nil
}

// describe names p for a failure message, saying when test files are involved.
func describe(p *pkg) string {
	if isTestVariant(p) {
		return owner(p) + " (with its test files)"
	}
	return owner(p)
}

// report sorts and reports violations, one per package.
func report(t *testing.T, violations map[string]string) {
	t.Helper()
	keys := make([]string, 0, len(violations))
	for k := range violations {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Error(violations[k])
	}
}

func TestOnlyWindowCodeImportsEbitengine(t *testing.T) {
	g := load(t)
	violations := make(map[string]string)
	for _, p := range g.ours {
		if matchAny(windowAllowed, owner(p)) {
			continue
		}
		if _, dup := violations[owner(p)]; dup {
			continue
		}
		chain := g.findImport(p, func(id string, _ *pkg) bool {
			return matchAny(windowPackages, basePath(id))
		})
		if chain != nil {
			violations[owner(p)] = fmt.Sprintf("%s depends on %s: %s\n\tonly %s may; move the drawing into a /draw package that only the client imports",
				describe(p), chain[len(chain)-1], strings.Join(chain, " -> "), strings.Join(windowAllowed, ", "))
		}
	}
	report(t, violations)
}

func TestNoPackageShadowsStandardLibrary(t *testing.T) {
	g := load(t)
	violations := make(map[string]string)
	for _, p := range g.ours {
		if isTestVariant(p) || p.ForTest != "" {
			continue
		}
		ip := basePath(p.ImportPath)
		for _, name := range shadowedNames {
			if p.Name == name || path.Base(ip) == name {
				violations[ip] = fmt.Sprintf("package %s (import path %s) takes the standard library's name %q; a %s/ folder may only hold packages below it, as net/ holds net/msg",
					p.Name, ip, name, name)
			}
		}
	}
	report(t, violations)
}

func TestClosedPackagesImportOnlyStandardLibraryAndTremor(t *testing.T) {
	g := load(t)
	for _, rule := range closedPackages {
		t.Run(rule.pattern, func(t *testing.T) {
			violations := make(map[string]string)
			for _, p := range g.ours {
				if !match(rule.pattern, owner(p)) {
					continue
				}
				if _, dup := violations[owner(p)]; dup {
					continue
				}
				chain := g.findImport(p, func(id string, dep *pkg) bool {
					if dep != nil && dep.Standard {
						return false
					}
					return !matchAny(rule.allow, basePath(id))
				})
				if chain == nil {
					continue
				}
				what := chain[len(chain)-1]
				if what == "C" {
					what = `"C" (cgo)`
				}
				violations[owner(p)] = fmt.Sprintf("%s imports %s: %s\n\t%s may import only the standard library and %s",
					describe(p), what, strings.Join(chain, " -> "), rule.pattern, strings.Join(rule.allow, ", "))
			}
			report(t, violations)
		})
	}
}

func TestBuildsWithoutCgo(t *testing.T) {
	g := load(t)
	var pkgs []string
	for _, p := range g.ours {
		if isTestVariant(p) || p.ForTest != "" || matchAny(windowAllowed, p.ImportPath) {
			continue
		}
		pkgs = append(pkgs, p.ImportPath)
	}
	sort.Strings(pkgs)
	for _, cmd := range cgoFreeCommands {
		t.Run(cmd, func(t *testing.T) {
			if !slices.Contains(pkgs, cmd) {
				t.Fatalf("%s is missing: it must exist and build with CGO_ENABLED=0", cmd)
			}
			g.checkNoCgo(t, cmd)
		})
	}
	t.Run("all", func(t *testing.T) {
		// One build for speed; package by package only to explain a failure.
		if g.build(false, pkgs...) == nil {
			return
		}
		for _, p := range pkgs {
			t.Run(p, func(t *testing.T) { g.checkNoCgo(t, p) })
		}
	})
}

// build runs go build -o /dev/null on pkgs with cgo on or off.
func (g *graph) build(cgo bool, pkgs ...string) error {
	env := "CGO_ENABLED=0"
	if cgo {
		env = "CGO_ENABLED=1"
	}
	_, err := goCmd(g.root, []string{env}, append([]string{"build", "-o", os.DevNull}, pkgs...)...)
	return err
}

// checkNoCgo fails t if pkg builds only with cgo. It skips t if pkg does not
// build at all: that is a compile error, which go vet and go test report.
func (g *graph) checkNoCgo(t *testing.T, pkg string) {
	t.Helper()
	err := g.build(false, pkg)
	if err == nil {
		return
	}
	if err1 := g.build(true, pkg); err1 != nil {
		t.Skipf("cannot check: %s does not build even with cgo (go vet and go test report why):\n%v", pkg, err1)
	}
	t.Errorf("%s must build with CGO_ENABLED=0 but needs cgo (import \"C\", or a dependency that does):\n%v", pkg, err)
}

// layers is the layer order of docs/ARCHITECTURE.md, bottom first. A
// package may import only packages of its own layer or below; test files
// may point up (they drive a package from above). A package is in the
// layer of its longest matching pattern; one in no layer is an error, so
// a new package has to be placed here and in the document.
var layers = [][]string{
	{"tremor/net/...", "tremor/assets", "tremor/lessons", "tremor/internal/testutil", "tremor/web"},
	{"tremor/bg/...", "tremor/maps/..."},
	{"tremor/common/...", "tremor/lagometer"},
	{"tremor/cgame", "tremor/game", "tremor/game/bot", "tremor/game/framesync"},
	{"tremor/cgame/fx", "tremor/cgame/overlay", "tremor/ui/draw/view"},
	{"tremor/server", "tremor/server/rtc", "tremor/server/rtc/page", "tremor/client", "tremor/master"},
	{"tremor/client/headless", "tremor/client/browser", "tremor/internal/inspect", "tremor/internal/protospec", "tremor/game/gametest", "tremor/classroom"},
	{"tremor/ui/keys", "tremor/ui/menu"},
	{"tremor/ui/draw", "tremor/lagometer/draw", "tremor/ui/sound/..."},
	{"tremor/cmd/client/internal/..."},
	{"tremor/cmd/...", "tremor/internal/e2e/...", "tremor/internal/layout"},
}

// layerOf returns the layer of import path p and the pattern that placed
// it, or -1.
func layerOf(p string) (int, string) {
	best, pattern := -1, ""
	for i, l := range layers {
		for _, pat := range l {
			if match(pat, p) && len(pat) > len(pattern) {
				best, pattern = i, pat
			}
		}
	}
	return best, pattern
}

// upwardImports returns, for every non-test package of ours in pkgs, the
// first import that points up the layers, or the package's absence from
// them.
func upwardImports(pkgs []*pkg) map[string]string {
	violations := make(map[string]string)
	for _, p := range pkgs {
		if isTestVariant(p) || p.ForTest != "" {
			continue
		}
		ip := basePath(p.ImportPath)
		if !match(module+"/...", ip) {
			continue
		}
		l, pat := layerOf(ip)
		if l < 0 {
			violations[ip] = fmt.Sprintf("%s is in no layer: add it to internal/layout's layers and to docs/ARCHITECTURE.md", ip)
			continue
		}
		for _, imp := range p.Imports {
			if !match(module+"/...", imp) {
				continue
			}
			il, ipat := layerOf(imp)
			if il > l {
				violations[ip] = fmt.Sprintf("%s (layer %d, %s) imports %s (layer %d, %s): imports point down the layers of docs/ARCHITECTURE.md",
					ip, l, pat, imp, il, ipat)
				break
			}
		}
	}
	return violations
}

func TestImportsPointDownTheLayers(t *testing.T) {
	report(t, upwardImports(load(t).ours))
}

// An upward import added in a new package is caught: the package is laid
// over the module with go list's -overlay, so nothing is written to the
// tree.
func TestUpwardImportIsCaught(t *testing.T) {
	g := load(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "up.go")
	if err := os.WriteFile(src, []byte("package zzupward\n\nimport _ \"tremor/server\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	overlay, err := json.Marshal(map[string]any{"Replace": map[string]string{
		filepath.Join(g.root, "net", "zzupward", "up.go"): src,
	}})
	if err != nil {
		t.Fatal(err)
	}
	ov := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ov, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := goCmd(g.root, nil, "list", "-overlay", ov, "-json=ImportPath,Name,ForTest,Standard,Imports", "./net/zzupward")
	if err != nil {
		t.Fatal(err)
	}
	var p pkg
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatal(err)
	}
	v := upwardImports([]*pkg{&p})
	msg, ok := v["tremor/net/zzupward"]
	if !ok || !strings.Contains(msg, "imports tremor/server") {
		t.Fatalf("an upward import from net/ to server was not caught: %v", v)
	}
}
