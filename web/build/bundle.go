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
	// WasmURL is where the page fetches the game core (versioned by the build).
	WasmURL string
	Minify  bool
	// ExternalThree leaves `three` unresolved, so the bundle step can be
	// checked on a fresh clone without npm (the test does).
	ExternalThree bool
}

// Bundle compiles web/src/main.ts and web/src/style.css with esbuild and
// returns the output files by name (app.js, app.js.map, style.css). esbuild
// strips types without checking them: tsc does that in the build.
func Bundle(web string, opt BundleOptions) (map[string][]byte, error) {
	if opt.WasmURL == "" {
		opt.WasmURL = "webtron.wasm"
	}
	var external []string
	if opt.ExternalThree {
		external = []string{"three"}
	}
	res := api.Build(api.BuildOptions{
		AbsWorkingDir: web,
		EntryPointsAdvanced: []api.EntryPoint{
			{InputPath: "src/main.ts", OutputPath: "app"},
			{InputPath: "src/style.css", OutputPath: "style"},
		},
		Outdir:            filepath.Join(web, "dist"),
		Bundle:            true,
		Write:             false,
		Format:            api.FormatIIFE,
		Target:            api.ES2020,
		Platform:          api.PlatformBrowser,
		Sourcemap:         api.SourceMapLinked,
		MinifyWhitespace:  opt.Minify,
		MinifyIdentifiers: opt.Minify,
		MinifySyntax:      opt.Minify,
		External:          external,
		Define:            map[string]string{"WASM_URL": strconv.Quote(opt.WasmURL)},
		LogLevel:          api.LogLevelSilent,
		Charset:           api.CharsetUTF8,
		LegalComments:     api.LegalCommentsEndOfFile,
	})
	if len(res.Errors) > 0 {
		msgs := api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage})
		return nil, errors.New(strings.Join(msgs, ""))
	}
	out := map[string][]byte{}
	for _, f := range res.OutputFiles {
		rel, err := filepath.Rel(filepath.Join(web, "dist"), f.Path)
		if err != nil {
			return nil, err
		}
		out[filepath.ToSlash(rel)] = f.Contents
	}
	for _, want := range []string{"app.js", "style.css"} {
		if _, ok := out[want]; !ok {
			return nil, fmt.Errorf("esbuild wrote no %s (got %d files)", want, len(out))
		}
	}
	return out, nil
}

// hasNodeModules reports whether npm has installed three.js in web.
func hasNodeModules(web string) bool {
	_, err := os.Stat(filepath.Join(web, "node_modules", "three", "package.json"))
	return err == nil
}
