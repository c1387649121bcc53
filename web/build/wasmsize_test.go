package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCoreLeavesOut builds the core and checks that what the browser does
// not need stays out of it. Each entry is a function name prefix (as the
// name section spells it) and what it would cost.
func TestCoreLeavesOut(t *testing.T) {
	web, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	funcs, data, err := namedCore(web, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range funcs {
		total += n
	}
	// The reader itself: a core has its main and the runtime, and megabytes.
	if funcs["main.main"] == 0 || funcs["runtime.mallocgc"] == 0 || total < 1<<20 || data < 1<<19 {
		t.Fatalf("read %d functions, %d bytes of code, %d of data, main.main %d bytes: the name section was not read right",
			len(funcs), total, data, funcs["main.main"])
	}
	for _, bad := range []struct{ prefix, why string }{
		{"fmt.", "fmt is 400 KB of the core: build messages with strconv and webtron/internal/errwrap"},
		{"encoding_json.", "encoding/json's reflection: JSON for the page is written by hand (web/wasm/info.go)"},
		{"errors.As", "errors.As links internal/reflectlite, 12 KB of brotli: walk Unwrap (web/wasm protoError)"},
		{"errors.Is", "errors.Is links internal/reflectlite, 12 KB of brotli: compare, or walk Unwrap"},
		{"os.", "package os emulates a file system in JavaScript: the core has no files"},
	} {
		for fn, n := range funcs {
			if strings.HasPrefix(fn, bad.prefix) {
				t.Errorf("the core links %s (%d bytes of code): %s", fn, n, bad.why)
				break
			}
		}
	}
}
