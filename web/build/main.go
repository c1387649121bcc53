// Command build produces web/dist, the browser client that package webtron/web
// embeds: it installs three.js with npm when web/node_modules is missing,
// writes web/src/core/layout.ts from the Go constants the page shares with
// the core (layout.go), type-checks the TypeScript (strict), bundles it with esbuild's Go API,
// compiles web/wasm to WebAssembly, copies Go's wasm_exec.js, and writes
// index.html with every asset URL versioned by a hash of its content, plus a
// gzip copy of each compressible file for the server to send as is.
//
// Run it from anywhere inside the repository:
//
//	go run ./web/build            # everything
//	go run ./web/build -typecheck=false   # skip tsc (faster; esbuild does not type-check)
package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"webtron/web"
)

// MaxWasmBytes is the budget for webtron.wasm before compression (3 MiB): a
// phone on a slow link must be playing within seconds. The Go runtime and fmt
// alone take 2.6 MB of it, so the build fails loudly rather than let it creep.
const MaxWasmBytes = 3 << 20

func main() {
	typecheck := flag.Bool("typecheck", true, "run the TypeScript type checker (tsc --noEmit)")
	flag.Parse()
	if err := run(*typecheck); err != nil {
		fmt.Fprintln(os.Stderr, "web/build:", err)
		os.Exit(1)
	}
}

func run(typecheck bool) error {
	web, err := findWeb()
	if err != nil {
		return err
	}
	dist := filepath.Join(web, "dist")
	if err := cleanDist(dist); err != nil {
		return err
	}
	if err := step("npm", func() error { return ensureNodeModules(web) }); err != nil {
		return err
	}
	if err := step("layout", func() error { return writeLayout(web) }); err != nil {
		return err
	}
	if typecheck {
		if err := step("tsc", func() error { return typeCheck(web) }); err != nil {
			return err
		}
	}
	var wasm []byte
	if err := step("wasm", func() (err error) { wasm, err = buildWasm(web); return err }); err != nil {
		return err
	}
	files := map[string][]byte{"webtron.wasm": wasm}
	exec, err := os.ReadFile(filepath.Join(goroot(), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		return fmt.Errorf("wasm_exec.js: %w", err)
	}
	files["wasm_exec.js"] = exec
	if err := step("esbuild", func() error {
		out, err := Bundle(web, BundleOptions{WasmURL: versioned("webtron.wasm", wasm), WasmExecURL: versioned("wasm_exec.js", exec), Minify: true})
		if err != nil {
			return err
		}
		for name, b := range out {
			files[name] = b
		}
		return nil
	}); err != nil {
		return err
	}
	page, err := os.ReadFile(filepath.Join(web, "src", "index.html"))
	if err != nil {
		return err
	}
	files["index.html"] = stampURLs(page, files)
	for name, b := range files {
		if err := writeWithGzip(filepath.Join(dist, name), b); err != nil {
			return err
		}
	}
	fmt.Printf("web/build: wrote %s (webtron.wasm %d bytes, %d gzipped; app.js %d bytes; worker.js %d bytes)\n",
		dist, len(wasm), gzipSize(wasm), len(files["app.js"]), len(files["worker.js"]))
	return nil
}

// findWeb returns the web directory of the repository containing the working
// directory, so `go run ./web/build` works from the root and from web/.
func findWeb() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "web"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// cleanDist empties dist but keeps its committed placeholder, which go:embed
// needs on a fresh clone.
func cleanDist(dist string) error {
	if err := os.MkdirAll(dist, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(dist)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == ".keep" {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dist, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func step(name string, f func() error) error {
	t := time.Now()
	if err := f(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	fmt.Printf("web/build: %-8s %v\n", name, time.Since(t).Round(time.Millisecond))
	return nil
}

// ensureNodeModules installs the npm packages when they are missing: `npm ci`
// from the lock file, so every machine bundles the same three.js.
func ensureNodeModules(web string) error {
	if hasNodeModules(web) {
		return nil
	}
	args := []string{"ci", "--no-audit", "--no-fund"}
	if _, err := os.Stat(filepath.Join(web, "package-lock.json")); err != nil {
		args[0] = "install"
	}
	return command(web, nil, "npm", args...)
}

func typeCheck(web string) error {
	return command(web, nil, "node", filepath.Join("node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", "tsconfig.json")
}

// buildWasm compiles the game core. -trimpath keeps local paths out of the
// binary; -s drops the symbol table, a third of the size.
func buildWasm(web string) ([]byte, error) {
	out := filepath.Join(os.TempDir(), fmt.Sprintf("webtron-%d.wasm", os.Getpid()))
	defer os.Remove(out)
	env := append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if err := command(filepath.Dir(web), env, "go", "build", "-trimpath", "-ldflags=-s", "-o", out, "./web/wasm"); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	if len(b) > MaxWasmBytes {
		return nil, fmt.Errorf("webtron.wasm is %d bytes, over the %d-byte budget: find what grew (go list -deps -json ./web/wasm) before raising it", len(b), MaxWasmBytes)
	}
	return b, nil
}

func command(dir string, env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return nil
}

func goroot() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// versioned returns name?v=HASH: the server marks URLs whose version matches
// the file as immutable, so browsers never ask again until a build changes it.
func versioned(name string, b []byte) string { return name + "?v=" + web.Hash(b) }

// stampURLs replaces each {{name}} placeholder in the page by the file's
// versioned URL.
func stampURLs(page []byte, files map[string][]byte) []byte {
	for name, b := range files {
		page = bytes.ReplaceAll(page, []byte("{{"+name+"}}"), []byte(versioned(name, b)))
	}
	return page
}

// writeWithGzip writes the file and, for text and wasm, name.gz compressed at
// the best level: it is done once here instead of on every request.
func writeWithGzip(path string, b []byte) error {
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return err
	}
	switch filepath.Ext(path) {
	case ".html", ".js", ".css", ".wasm", ".json", ".svg": // not .map: rarely fetched, 3 MB
	default:
		return nil
	}
	return os.WriteFile(path+".gz", gzipBytes(b), 0o644)
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func gzipSize(b []byte) int { return len(gzipBytes(b)) }
