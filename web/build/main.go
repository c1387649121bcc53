// Command build produces web/dist, the browser client that package webtron/web
// embeds: it installs three.js with npm when web/node_modules is missing,
// writes web/src/core/layout.ts from the Go constants the page shares with
// the core (layout.go), type-checks the TypeScript (strict), bundles it with esbuild's Go API,
// compiles web/wasm to WebAssembly, copies Go's wasm_exec.js, and writes
// index.html with every asset URL versioned by a hash of its content, plus a
// brotli and a gzip copy of each compressible file for the server to send as
// is, and reports each file's size as served.
//
// Run it from anywhere inside the repository:
//
//	go run ./web/build            # everything
//	go run ./web/build -typecheck=false   # skip tsc (faster; esbuild does not type-check)
//	go run ./web/build -sizes             # and the core's code by package
//	go run ./web/build -names             # keep function names, the core's and the page's (for CPU profiles; larger)
package main

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/andybalholm/brotli"

	"webtron/web"
)

// MaxWasmBytes is the budget for webtron.wasm before compression (3 MiB and
// 128 KiB): a phone on a slow link must be playing within seconds. A Go
// program that only installs one JavaScript function takes 1.9 MB of it (the
// runtime), so the build fails loudly rather than let the rest creep. The
// 128 KiB over 3 MiB came with the maps of other Axes (issue 24: the slanted
// geometry, sim/slant.go and sim/axes.go, 48,769 bytes, 14 KB gzipped, with
// the core at 3,141,194 bytes before it).
const MaxWasmBytes = 3<<20 + 128<<10

func main() {
	typecheck := flag.Bool("typecheck", true, "run the TypeScript type checker (tsc --noEmit)")
	sizes := flag.Bool("sizes", false, "also print the core's code by package (builds it again with its name section)")
	flag.StringVar(&sizesOf, "sizes-of", "", "with -sizes, also list the functions of these packages (comma-separated, named as -sizes names them), largest first")
	flag.BoolVar(&keepNames, "names", false, "keep function names: the core's name section, the scripts unminified (CPU profiles name them; larger files, for profiling only)")
	flag.Parse()
	if err := run(*typecheck, *sizes); err != nil {
		fmt.Fprintln(os.Stderr, "web/build:", err)
		os.Exit(1)
	}
}

func run(typecheck, sizes bool) error {
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
		out, err := Bundle(web, BundleOptions{WasmURL: versioned("webtron.wasm", wasm), WasmExecURL: versioned("wasm_exec.js", exec), Minify: !keepNames})
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
	var written []size
	if err := step("compress", func() (err error) { written, err = writeAll(dist, files); return err }); err != nil {
		return err
	}
	fmt.Printf("web/build: wrote %s\n", dist)
	report(os.Stdout, written)
	if sizes {
		return printSizes(os.Stdout, web)
	}
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

// keepNames is -names: the core built without -s, the scripts not minified.
var keepNames bool

// buildWasm compiles the game core. -trimpath keeps local paths out of the
// binary; -s drops the symbol table, a third of the size.
func buildWasm(web string) ([]byte, error) {
	out := filepath.Join(os.TempDir(), fmt.Sprintf("webtron-%d.wasm", os.Getpid()))
	defer os.Remove(out)
	env := append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	ldflags := "-ldflags=-s"
	if keepNames {
		ldflags = "-ldflags="
	}
	if err := command(filepath.Dir(web), env, "go", "build", "-trimpath", ldflags, "-o", out, "./web/wasm"); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	if len(b) > MaxWasmBytes && !keepNames {
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

// compressible reports whether the server sends name compressed: text and
// wasm, not the source maps (rarely fetched, 3 MB).
func compressible(name string) bool {
	switch filepath.Ext(name) {
	case ".html", ".js", ".css", ".wasm", ".json", ".svg":
		return true
	}
	return false
}

// size is one file as written: its bytes, and those of its twins (0 when
// it has none).
type size struct {
	name        string
	raw, gz, br int
}

// writeAll writes each file into dist and, for the compressible ones,
// name.br and name.gz at their best levels: done once here instead of on
// every request. The files are compressed side by side: brotli's best
// level is slow (about 10 s for the 3 MB core on an idle core).
func writeAll(dist string, files map[string][]byte) ([]size, error) {
	sizes := make([]size, 0, len(files))
	for name, b := range files {
		sizes = append(sizes, size{name: name, raw: len(b)})
	}
	slices.SortFunc(sizes, func(a, b size) int { return cmp.Compare(a.name, b.name) })
	errs := make([]error, len(sizes))
	var wg sync.WaitGroup
	for i := range sizes {
		wg.Go(func() { errs[i] = writeFile(dist, files[sizes[i].name], &sizes[i]) })
	}
	wg.Wait()
	return sizes, errors.Join(errs...)
}

func writeFile(dist string, b []byte, sz *size) error {
	path := filepath.Join(dist, sz.name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return err
	}
	if !compressible(sz.name) {
		return nil
	}
	gzipped := gzipBytes(b)
	brotlied, err := brotliBytes(b)
	if err != nil {
		return err
	}
	sz.gz, sz.br = len(gzipped), len(brotlied)
	if err := os.WriteFile(path+".gz", gzipped, 0o644); err != nil {
		return err
	}
	return os.WriteFile(path+".br", brotlied, 0o644)
}

// report prints each file's size and what a browser fetches of it (brotli
// when it has a twin), and the total a first visit fetches: every file but
// the source maps.
func report(w io.Writer, sizes []size) {
	total := 0
	for _, s := range sizes {
		if s.br == 0 {
			fmt.Fprintf(w, "web/build:   %-14s %9d bytes\n", s.name, s.raw)
			continue
		}
		fmt.Fprintf(w, "web/build:   %-14s %9d bytes, %7d gzipped, %7d brotli\n", s.name, s.raw, s.gz, s.br)
		total += s.br
	}
	fmt.Fprintf(w, "web/build: a first visit fetches %d bytes of these (brotli)\n", total)
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// brotliBytes compresses b at brotli's best quality (11: 3.5% smaller than
// 10 on the core, but three times as slow). The result is kept in the
// user's cache directory under the SHA-256 of b, so that a build whose core
// did not change (an edit of the TypeScript) does not pay for it again; a
// cached copy is used only if it decodes to b.
func brotliBytes(b []byte) ([]byte, error) {
	sum := sha256.Sum256(b)
	cache := brotliCache()
	path := ""
	if cache != "" {
		path = filepath.Join(cache, hex.EncodeToString(sum[:])+".br")
		if c, err := os.ReadFile(path); err == nil {
			if d, err := io.ReadAll(brotli.NewReader(bytes.NewReader(c))); err == nil && bytes.Equal(d, b) {
				now := time.Now()
				os.Chtimes(path, now, now) // recently used: pruned last
				return c, nil
			}
		}
	}
	var buf bytes.Buffer
	zw := brotli.NewWriterLevel(&buf, brotli.BestCompression)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		return nil, err
	}
	if path != "" {
		keep(cache, path, buf.Bytes())
	}
	return buf.Bytes(), nil
}

// brotliCacheFiles is how many compressed files the cache keeps: a build's
// worth and some, the least recently used going first.
const brotliCacheFiles = 24

// brotliCache is the directory of brotliBytes' cache, "" when there is none.
func brotliCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	dir = filepath.Join(dir, "webtron-build", "brotli")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ""
	}
	return dir
}

// keep writes b to path in the cache dir (through a temporary file, so that
// a build stopped half way leaves no half file) and prunes the cache to
// brotliCacheFiles. A cache that cannot be written only costs time.
func keep(dir, path string, b []byte) {
	tmp, err := os.CreateTemp(dir, "tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type aged struct {
		name string
		mod  time.Time
	}
	var files []aged
	for _, e := range entries {
		if info, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), ".br") {
			files = append(files, aged{e.Name(), info.ModTime()})
		}
	}
	slices.SortFunc(files, func(a, b aged) int { return b.mod.Compare(a.mod) })
	for _, f := range files[min(len(files), brotliCacheFiles):] {
		os.Remove(filepath.Join(dir, f.name))
	}
}
