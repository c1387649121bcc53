package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// BundleOptions tune Bundle.
type BundleOptions struct {
	// WasmURL is where the worker fetches the game core (versioned by the build).
	WasmURL string
	// WasmExecURL is where the worker fetches Go's wasm_exec.js.
	WasmExecURL string
	Minify      bool
	// ExternalThree leaves `three` unresolved, so the bundle step can be
	// checked on a fresh clone without npm (the test does).
	ExternalThree bool
}

// Bundle compiles the page (web/src/main.ts and style.css) and the core's
// worker (web/src/worker/main.ts) with esbuild and returns the output files
// by name (app.js, worker.js, style.css and their maps). The worker is built
// first: the page starts it by its versioned URL. esbuild strips types
// without checking them: tsc does that in the build.
func Bundle(web string, opt BundleOptions) (map[string][]byte, error) {
	if opt.WasmURL == "" {
		opt.WasmURL = "webtron.wasm"
	}
	if opt.WasmExecURL == "" {
		opt.WasmExecURL = "wasm_exec.js"
	}
	out := map[string][]byte{}
	err := esbuild(web, opt, out, map[string]string{"src/worker/main.ts": "worker"},
		map[string]string{"WASM_URL": strconv.Quote(opt.WasmURL), "WASM_EXEC_URL": strconv.Quote(opt.WasmExecURL)})
	if err != nil {
		return nil, err
	}
	if _, ok := out["worker.js"]; !ok {
		return nil, fmt.Errorf("esbuild wrote no worker.js (got %d files)", len(out))
	}
	err = esbuild(web, opt, out, map[string]string{"src/main.ts": "app", "src/style.css": "style"},
		map[string]string{"WORKER_URL": strconv.Quote(versioned("worker.js", out["worker.js"]))})
	if err != nil {
		return nil, err
	}
	for _, want := range []string{"app.js", "style.css"} {
		if _, ok := out[want]; !ok {
			return nil, fmt.Errorf("esbuild wrote no %s (got %d files)", want, len(out))
		}
	}
	return out, nil
}

// esbuild bundles entries (input path -> output name) into out.
func esbuild(web string, opt BundleOptions, out map[string][]byte, entries map[string]string, define map[string]string) error {
	var external []string
	if opt.ExternalThree {
		external = []string{"three"}
	}
	// The page is ES modules split into chunks: main.ts loads the game and
	// three.js (play.ts) with a dynamic import, so the lobby needs neither.
	// The worker, loaded with importScripts beside wasm_exec.js, stays one
	// classic script.
	format, split := api.FormatIIFE, false
	if _, page := entries["src/main.ts"]; page {
		format, split = api.FormatESModule, true
	}
	var points []api.EntryPoint
	for in, name := range entries {
		points = append(points, api.EntryPoint{InputPath: in, OutputPath: name})
	}
	res := api.Build(api.BuildOptions{
		AbsWorkingDir:       web,
		EntryPointsAdvanced: points,
		Outdir:              filepath.Join(web, "dist"),
		Bundle:              true,
		Write:               false,
		Format:              format,
		Splitting:           split,
		ChunkNames:          "chunk-[hash]",
		Target:              api.ES2020,
		Platform:            api.PlatformBrowser,
		Sourcemap:           api.SourceMapLinked,
		MinifyWhitespace:    opt.Minify,
		MinifyIdentifiers:   opt.Minify,
		MinifySyntax:        opt.Minify,
		External:            external,
		Define:              define,
		LogLevel:            api.LogLevelSilent,
		Charset:             api.CharsetUTF8,
		LegalComments:       api.LegalCommentsEndOfFile,
	})
	if len(res.Errors) > 0 {
		msgs := api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage})
		return errors.New(strings.Join(msgs, ""))
	}
	for _, f := range res.OutputFiles {
		rel, err := filepath.Rel(filepath.Join(web, "dist"), f.Path)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = f.Contents
	}
	return nil
}

// hasNodeModules reports whether npm has installed three.js in web.
func hasNodeModules(web string) bool {
	_, err := os.Stat(filepath.Join(web, "node_modules", "three", "package.json"))
	return err == nil
}
