package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/andybalholm/brotli"

	"webtron/proto"
	"webtron/sim"
	"webtron/web/view"
)

// TestBundle runs the build's esbuild step on web/src. It needs no network:
// without node_modules (a fresh clone), three.js is left external, which
// still checks that every TypeScript file parses and every local import
// resolves. Types are checked by tsc in the full build, not here: it needs npm.
func TestBundle(t *testing.T) {
	web, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	withThree := hasNodeModules(web)
	out, err := Bundle(web, BundleOptions{WasmURL: "webtron.wasm?v=test", WasmExecURL: "wasm_exec.js?v=test", ExternalThree: !withThree})
	if err != nil {
		t.Fatal(err)
	}
	app, worker := out["app.js"], out["worker.js"]
	for _, url := range []string{"webtron.wasm?v=test", "wasm_exec.js?v=test"} {
		if !bytes.Contains(worker, []byte(url)) {
			t.Errorf("worker.js does not carry the versioned URL %s", url)
		}
	}
	if !bytes.Contains(worker, []byte("webtronCore")) {
		t.Error("worker.js does not mention webtronCore: is worker/main.ts its entry point?")
	}
	if !bytes.Contains(app, []byte(versioned("worker.js", worker))) {
		t.Error("app.js does not start the worker by its versioned URL")
	}
	if bytes.Contains(app, []byte("webtronCore")) {
		t.Error("app.js mentions webtronCore: the core belongs in the worker")
	}
	if withThree && bytes.Contains(app, []byte(`require("three")`)) {
		t.Error("three.js was not bundled although node_modules has it")
	}
	if len(out["style.css"]) == 0 {
		t.Error("style.css is empty")
	}
	// The page must reference every file the build versions.
	page, err := os.ReadFile(filepath.Join(web, "src", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"app.js": app, "style.css": out["style.css"]}
	stamped := stampURLs(page, files)
	if bytes.Contains(stamped, []byte("{{")) {
		t.Errorf("index.html keeps a placeholder after stamping: %s", stamped)
	}
	for name := range files {
		if !bytes.Contains(stamped, []byte(versioned(name, files[name]))) {
			t.Errorf("index.html does not reference %s", name)
		}
	}
}

// TestNoCDN: every asset is bundled; the page must never reach for another host.
func TestNoCDN(t *testing.T) {
	err := filepath.WalkDir("../src", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, bad := range []string{"http://", "https://", "//cdn", "unpkg", "jsdelivr"} {
			if bytes.Contains(b, []byte(bad)) {
				t.Errorf("%s mentions %q: assets must be bundled", path, bad)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLayoutCurrent: the committed layout.ts is what the build generates from
// the Go constants; `go run ./web/build` rewrites it.
func TestLayoutCurrent(t *testing.T) {
	have, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(LayoutFile)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, layoutTS()) {
		t.Errorf("%s differs from the Go constants: run go run ./web/build and commit it", LayoutFile)
	}
}

// TestLayoutGroups: offsets lie inside their records and no two names of a
// group share a value (a copy-paste slip in the table).
func TestLayoutGroups(t *testing.T) {
	limit := map[string]int64{"H": view.HeaderWords, "C": view.CycleWords, "W": view.WallWords, "E": view.ExplWords, "Ho": view.HoleWords}
	for _, g := range layoutGroups() {
		seen := map[int64]string{}
		for _, f := range g.fields {
			if other, dup := seen[f.value]; dup {
				t.Errorf("%s.%s and %s.%s are both %d", g.name, f.name, g.name, other, f.value)
			}
			seen[f.value] = f.name
			if n, ok := limit[g.name]; ok && (f.value < 0 || f.value >= n) {
				t.Errorf("%s.%s = %d is outside its %d-word record", g.name, f.name, f.value, n)
			}
		}
	}
}

// TestLayoutComplete: every close code and death cause the Go side knows has
// its TypeScript name (they are found by their String methods, which name
// exactly the values defined).
func TestLayoutComplete(t *testing.T) {
	have := map[string]map[int64]bool{}
	for _, g := range layoutGroups() {
		have[g.name] = map[int64]bool{}
		for _, f := range g.fields {
			have[g.name][f.value] = true
		}
	}
	for c := range 256 {
		if proto.CloseCode(c).String() != fmt.Sprint("code ", c) && !have["Close"][int64(c)] {
			t.Errorf("close code %d (%s) is missing from layout.ts", c, proto.CloseCode(c))
		}
	}
	for c := 1; c < 256; c++ {
		if sim.DeathCause(c).String() != "" && !have["Cause"][int64(c)] {
			t.Errorf("death cause %d (%s) is missing from layout.ts", c, sim.DeathCause(c))
		}
	}
}

// TestWriteAll: each compressible file gets a .br and a .gz twin that decode
// to it; source maps get none; the sizes reported are the files written.
func TestWriteAll(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dist := t.TempDir()
	files := map[string][]byte{
		"app.js":       bytes.Repeat([]byte("console.log('webtron');"), 200),
		"webtron.wasm": append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte{1, 2, 3, 4}, 500)...),
		"app.js.map":   []byte(`{"version":3}`),
	}
	sizes, err := writeAll(dist, files)
	if err != nil {
		t.Fatal(err)
	}
	if len(sizes) != len(files) {
		t.Fatalf("%d sizes for %d files", len(sizes), len(files))
	}
	for _, s := range sizes {
		raw, err := os.ReadFile(filepath.Join(dist, s.name))
		if err != nil || !bytes.Equal(raw, files[s.name]) || s.raw != len(raw) {
			t.Fatalf("%s: wrote %d bytes (%v), reported %d, want %d", s.name, len(raw), err, s.raw, len(files[s.name]))
		}
		_, errBr := os.Stat(filepath.Join(dist, s.name+".br"))
		_, errGz := os.Stat(filepath.Join(dist, s.name+".gz"))
		if s.name == "app.js.map" {
			if errBr == nil || errGz == nil || s.br != 0 || s.gz != 0 {
				t.Errorf("%s has compressed twins", s.name)
			}
			continue
		}
		brf, err := os.Open(filepath.Join(dist, s.name+".br"))
		if err != nil {
			t.Fatal(err)
		}
		defer brf.Close()
		if b, err := io.ReadAll(brotli.NewReader(brf)); err != nil || !bytes.Equal(b, raw) {
			t.Errorf("%s.br decodes to %d bytes (%v), want %d", s.name, len(b), err, len(raw))
		}
		gzf, err := os.Open(filepath.Join(dist, s.name+".gz"))
		if err != nil {
			t.Fatal(err)
		}
		defer gzf.Close()
		zr, err := gzip.NewReader(gzf)
		if err != nil {
			t.Fatal(err)
		}
		if b, err := io.ReadAll(zr); err != nil || !bytes.Equal(b, raw) {
			t.Errorf("%s.gz decodes to %d bytes (%v), want %d", s.name, len(b), err, len(raw))
		}
		fi, _ := os.Stat(filepath.Join(dist, s.name+".br"))
		if int(fi.Size()) != s.br || s.br >= s.raw {
			t.Errorf("%s: .br is %d bytes, reported %d, raw %d", s.name, fi.Size(), s.br, s.raw)
		}
	}
}

// TestBrotliCache: a second compression of the same bytes comes from the
// cache; a cached file that does not decode to them is not used; the cache
// keeps at most brotliCacheFiles.
func TestBrotliCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	b := bytes.Repeat([]byte("webtron "), 1000)
	first, err := brotliBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	cached, _ := filepath.Glob(filepath.Join(brotliCache(), "*.br"))
	if len(cached) != 1 {
		t.Fatalf("the cache holds %d files, want 1", len(cached))
	}
	// The cache entry is used as is: replace it by another encoding of the
	// same bytes (brotli's fastest), and see that one come back.
	var other bytes.Buffer
	zw := brotli.NewWriterLevel(&other, brotli.BestSpeed)
	zw.Write(b)
	zw.Close()
	if bytes.Equal(other.Bytes(), first) {
		t.Fatal("brotli's fastest and best levels wrote the same bytes: the test cannot tell them apart")
	}
	if err := os.WriteFile(cached[0], other.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := brotliBytes(b)
	if err != nil || !bytes.Equal(again, other.Bytes()) {
		t.Fatalf("second compression: %d bytes (%v), want the cached %d", len(again), err, other.Len())
	}
	// A corrupt entry is compressed afresh (and replaced).
	if err := os.WriteFile(cached[0], []byte("not brotli"), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh, err := brotliBytes(b)
	if err != nil || !bytes.Equal(fresh, first) {
		t.Fatalf("after corruption: %d bytes (%v), want %d", len(fresh), err, len(first))
	}
	if c, _ := os.ReadFile(cached[0]); !bytes.Equal(c, first) {
		t.Errorf("the corrupt entry was not replaced: %q", c)
	}
	for i := range brotliCacheFiles + 5 {
		if _, err := brotliBytes([]byte(fmt.Sprint("file ", i))); err != nil {
			t.Fatal(err)
		}
	}
	if all, _ := filepath.Glob(filepath.Join(brotliCache(), "*")); len(all) != brotliCacheFiles {
		t.Errorf("the cache holds %d files, want %d", len(all), brotliCacheFiles)
	}
}
