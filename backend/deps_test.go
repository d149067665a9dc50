package backend_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/ordo-db/ordo"

// goTool returns the go command. go test puts its own on PATH; without
// one the test fails (it never skips).
func goTool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on PATH: %v", err)
	}
	return p
}

func goList(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command(goTool(t), append([]string{"list"}, args...)...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list %v: %v\n%s", args, err, ee.Stderr)
		}
		t.Fatalf("go list %v: %v", args, err)
	}
	return strings.Fields(string(out))
}

// nonStdDeps lists the packages pkg links that are not in the standard
// library (pkg itself included).
func nonStdDeps(t *testing.T, pkg string) []string {
	return goList(t, "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg)
}

// TestDependencyShape fails if the imports stop pointing one way:
// backend and lock must link nothing but the standard library (and
// backend), index must not link the embedded engine or a Redis client,
// and backend/goredis must not link the engine.
func TestDependencyShape(t *testing.T) {
	only := map[string][]string{
		mod + "/backend": {mod + "/backend"},
		mod + "/lock":    {mod + "/backend", mod + "/lock"},
	}
	for pkg, allowed := range only {
		for _, d := range nonStdDeps(t, pkg) {
			if !slices.Contains(allowed, d) {
				t.Errorf("%s links %s (allowed beyond the standard library: %v)", pkg, d, allowed)
			}
		}
	}

	engine := []string{mod, mod + "/internal/engine", mod + "/internal/aof", mod + "/internal/script", mod + "/internal/search", "github.com/yuin/gopher-lua"}
	forbidden := map[string][]string{
		mod + "/index":           append([]string{"github.com/redis/go-redis/v9"}, engine...),
		mod + "/index/tuple":     append([]string{"github.com/redis/go-redis/v9", mod + "/backend"}, engine...),
		mod + "/backend/goredis": engine,
	}
	for pkg, bad := range forbidden {
		deps := nonStdDeps(t, pkg)
		if !slices.Contains(deps, pkg) {
			t.Fatalf("go list -deps %s does not list the package itself: %v", pkg, deps)
		}
		for _, d := range deps {
			for _, b := range bad {
				// A forbidden package and its subpackages (but the root
				// package ordo alone: everything here is below it).
				if d == b || (b != mod && strings.HasPrefix(d, b+"/")) {
					t.Errorf("%s links %s", pkg, d)
				}
			}
		}
	}
}

// TestOnlyGoredisImportsGoRedis: among the module's library packages
// (commands and examples build their own clients), only backend/goredis
// imports go-redis.
func TestOnlyGoredisImportsGoRedis(t *testing.T) {
	lines := goList(t, "-f", "{{.ImportPath}},{{.Name}},{{join .Imports \",\"}}", mod+"/...")
	seen := false
	for _, l := range lines {
		f := strings.Split(l, ",")
		pkg, name, imports := f[0], f[1], f[2:]
		if pkg == mod+"/backend/goredis" {
			seen = true
		}
		if name == "main" || pkg == mod+"/backend/goredis" {
			continue
		}
		if slices.Contains(imports, "github.com/redis/go-redis/v9") {
			t.Errorf("%s imports go-redis; only backend/goredis may", pkg)
		}
	}
	if !seen {
		t.Errorf("go list %s/... did not list backend/goredis: %v", mod, lines)
	}
}

// TestInternalLayering keeps data flowing one way inside the module:
// resp ← ds ← engine ← (aof, script) ← (server | package ordo), and rdb
// (stdlib only) ← engine. The
// protocol knows no command, a data structure knows no engine, and the
// engine reaches persistence, scripting and the server only through its
// typed hooks.
func TestInternalLayering(t *testing.T) {
	in := func(p string) string { return mod + "/internal/" + p }
	above := []string{mod, in("server"), in("aof"), in("script"), in("load"), in("redistest"), mod + "/backend",
		mod + "/index", mod + "/lock", "github.com/redis/go-redis/v9", "github.com/yuin/gopher-lua"}
	rules := map[string][]string{
		in("resp"):   append([]string{in("engine"), in("ds")}, above...),
		in("engine"): above,
		in("aof"):    {mod, in("server"), in("script"), "github.com/yuin/gopher-lua"},
		in("script"): {mod, in("server"), in("aof")},
		in("server"): {mod},
		// The RDB format knows no engine: the engine converts its values.
		// Of the data structures it links only ds/listpack, the listpack
		// element encoding that RDB payloads and stream nodes share.
		in("rdb"): append([]string{in("engine"), in("resp")}, above...),
	}
	for _, ds := range goList(t, mod+"/internal/ds/...") {
		if ds != in("ds/listpack") {
			rules[in("rdb")] = append(rules[in("rdb")], ds)
		}
	}
	for _, ds := range goList(t, mod+"/internal/ds/...") {
		rules[ds] = append([]string{in("engine"), in("resp")}, above...)
	}
	for pkg, bad := range rules {
		for _, d := range nonStdDeps(t, pkg) {
			for _, b := range bad {
				if d == b || (b != mod && strings.HasPrefix(d, b+"/")) {
					t.Errorf("%s links %s", pkg, d)
				}
			}
		}
	}
}
