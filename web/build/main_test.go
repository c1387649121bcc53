package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
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
	out, err := Bundle(web, BundleOptions{WasmURL: "webtron.wasm?v=test", ExternalThree: !withThree})
	if err != nil {
		t.Fatal(err)
	}
	app := out["app.js"]
	if !bytes.Contains(app, []byte("webtron.wasm?v=test")) {
		t.Error("app.js does not carry the versioned wasm URL")
	}
	if !bytes.Contains(app, []byte("webtronCore")) {
		t.Error("app.js does not mention webtronCore: is main.ts the entry point?")
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
	files := map[string][]byte{"app.js": app, "style.css": out["style.css"], "wasm_exec.js": []byte("x")}
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
