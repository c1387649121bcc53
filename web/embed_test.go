package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/andybalholm/brotli"
)

func br(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := brotli.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// built is what web/build writes, in miniature.
func built(t *testing.T) (fstest.MapFS, map[string][]byte) {
	files := map[string][]byte{
		"index.html":   []byte("<!doctype html><title>Webtron</title>"),
		"app.js":       []byte(strings.Repeat("console.log('webtron');", 50)),
		"webtron.wasm": []byte("\x00asm\x01\x00\x00\x00"),
		"style.css":    []byte("body{}"),
		"old.js":       []byte(strings.Repeat("console.log('gzip only');", 50)),
	}
	fsys := fstest.MapFS{".keep": {}}
	for name, b := range files {
		fsys[name] = &fstest.MapFile{Data: b}
		if name != "style.css" { // a file without twins is served plain
			fsys[name+".gz"] = &fstest.MapFile{Data: gz(t, b)}
		}
		if name != "style.css" && name != "old.js" { // old.js: a build from before brotli
			fsys[name+".br"] = &fstest.MapFile{Data: br(t, b)}
		}
	}
	return fsys, files
}

func get(h http.Handler, target string, hdr ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestIndexIsNoCache(t *testing.T) {
	fsys, files := built(t)
	h := NewHandler(fsys)
	for _, target := range []string{"/", "/?room=arena&name=flynn", "/index.html"} {
		rec := get(h, target)
		if rec.Code != 200 || rec.Body.String() != string(files["index.html"]) {
			t.Fatalf("GET %s: %d %q", target, rec.Code, rec.Body)
		}
		if cc := rec.Header().Get("Cache-Control"); cc != "no-cache" {
			t.Errorf("GET %s: Cache-Control %q, want no-cache", target, cc)
		}
		if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("GET %s: Content-Type %q", target, ct)
		}
	}
}

func TestGzipAndImmutable(t *testing.T) {
	fsys, files := built(t)
	h := NewHandler(fsys)
	url := "/app.js?v=" + Hash(files["app.js"])
	rec := get(h, url, "Accept-Encoding", "gzip, deflate")
	if rec.Code != 200 || rec.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("GET %s: %d, Content-Encoding %q", url, rec.Code, rec.Header().Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(zr)
	if !bytes.Equal(body, files["app.js"]) {
		t.Fatalf("gzip body decodes to %q", body)
	}
	if cc := rec.Header().Get("Cache-Control"); !strings.Contains(cc, "immutable") {
		t.Errorf("Cache-Control %q, want immutable for a current versioned URL", cc)
	}
	if v := rec.Header().Get("Vary"); v != "Accept-Encoding" {
		t.Errorf("Vary %q", v)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
		t.Errorf("Content-Type %q", ct)
	}

	// Without gzip: the plain file, same cache policy.
	rec = get(h, url)
	if rec.Header().Get("Content-Encoding") != "" || rec.Body.String() != string(files["app.js"]) {
		t.Fatalf("plain GET: encoding %q, body %d bytes", rec.Header().Get("Content-Encoding"), rec.Body.Len())
	}
	// gzip;q=0 refuses gzip.
	if rec = get(h, url, "Accept-Encoding", "gzip;q=0"); rec.Header().Get("Content-Encoding") != "" {
		t.Fatal("gzip;q=0 still got gzip")
	}
	// A stale or missing version must not be cached for ever.
	for _, u := range []string{"/app.js", "/app.js?v=000000000000"} {
		if cc := get(h, u).Header().Get("Cache-Control"); cc != "no-cache" {
			t.Errorf("GET %s: Cache-Control %q, want no-cache", u, cc)
		}
	}
}

// TestBrotli: a browser that accepts brotli gets the build's .br twin,
// under its own ETag; one that prefers gzip, or refuses brotli, gets gzip.
func TestBrotli(t *testing.T) {
	fsys, files := built(t)
	h := NewHandler(fsys)
	for _, name := range []string{"app.js", "webtron.wasm", "index.html"} {
		url := "/" + name
		if name != "index.html" {
			url += "?v=" + Hash(files[name])
		}
		rec := get(h, url, "Accept-Encoding", "gzip, deflate, br, zstd") // Chromium's
		if rec.Code != 200 || rec.Header().Get("Content-Encoding") != "br" {
			t.Fatalf("GET %s: %d, Content-Encoding %q, want br", url, rec.Code, rec.Header().Get("Content-Encoding"))
		}
		body, err := io.ReadAll(brotli.NewReader(rec.Body))
		if err != nil || !bytes.Equal(body, files[name]) {
			t.Fatalf("GET %s: the brotli body decodes to %d bytes (%v), want the file's %d", url, len(body), err, len(files[name]))
		}
		if v := rec.Header().Get("Vary"); v != "Accept-Encoding" {
			t.Errorf("GET %s: Vary %q", url, v)
		}
		etag := rec.Header().Get("ETag")
		if want := `"` + Hash(files[name]) + `-br"`; etag != want {
			t.Errorf("GET %s: ETag %s, want %s (apart from the gzip and the plain file's)", url, etag, want)
		}
		if rec := get(h, url, "Accept-Encoding", "br", "If-None-Match", etag); rec.Code != http.StatusNotModified {
			t.Errorf("GET %s If-None-Match %s: %d, want 304", url, etag, rec.Code)
		}
	}
	url := "/app.js?v=" + Hash(files["app.js"])
	for accept, want := range map[string]string{
		"br":                  "br",
		"BR;q=0.5":            "br",
		"gzip;q=1, br;q=0.5":  "gzip",
		"br;q=0, gzip":        "gzip",
		"br;q=0.0, *;q=0.3":   "gzip",
		"*":                   "br",
		"br;q=x, gzip;q=0.1":  "gzip", // a q that does not parse accepts nothing
		"identity":            "",
		"br;q=0, gzip;q=0.00": "",
		"":                    "",
	} {
		if got := get(h, url, "Accept-Encoding", accept).Header().Get("Content-Encoding"); got != want {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q, want %q", accept, got, want)
		}
	}
	// A file with a .gz twin only (a build from before brotli) is still sent gzipped.
	if got := get(h, "/old.js", "Accept-Encoding", "br, gzip").Header().Get("Content-Encoding"); got != "gzip" {
		t.Errorf("old.js: Content-Encoding %q, want gzip", got)
	}
	for _, u := range []string{"/app.js.br", "/webtron.wasm.br"} {
		if rec := get(h, u); rec.Code != 404 {
			t.Errorf("GET %s: %d, want 404: twins are sent only in their file's stead", u, rec.Code)
		}
	}
}

func TestRevalidate(t *testing.T) {
	fsys, _ := built(t)
	h := NewHandler(fsys)
	rec := get(h, "/style.css")
	etag := rec.Header().Get("ETag")
	if rec.Code != 200 || etag == "" || rec.Header().Get("Vary") != "" {
		t.Fatalf("GET /style.css: %d, ETag %q, Vary %q", rec.Code, etag, rec.Header().Get("Vary"))
	}
	if rec = get(h, "/style.css", "If-None-Match", etag); rec.Code != http.StatusNotModified {
		t.Fatalf("If-None-Match: %d, want 304", rec.Code)
	}
}

func TestWasmType(t *testing.T) {
	fsys, _ := built(t)
	rec := get(NewHandler(fsys), "/webtron.wasm", "Accept-Encoding", "gzip")
	// instantiateStreaming refuses any other type.
	if ct := rec.Header().Get("Content-Type"); ct != "application/wasm" {
		t.Fatalf("Content-Type %q", ct)
	}
}

func TestNotFoundAndMethods(t *testing.T) {
	fsys, _ := built(t)
	h := NewHandler(fsys)
	for _, u := range []string{"/nope.js", "/.keep", "/app.js.gz/x", "/../go.mod"} {
		if rec := get(h, u); rec.Code != 404 {
			t.Errorf("GET %s: %d, want 404", u, rec.Code)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d", rec.Code)
	}
}

func TestMissingBuild(t *testing.T) {
	h := NewHandler(fstest.MapFS{".keep": {}})
	rec := get(h, "/")
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "make build") {
		t.Fatalf("GET / without a build: %d %q", rec.Code, rec.Body)
	}
	if rec := get(h, "/app.js"); rec.Code != 404 {
		t.Fatalf("GET /app.js without a build: %d", rec.Code)
	}
}

// TestEmbedded checks the real embedded files, built or not: either a page
// or the build hint, never an error.
func TestEmbedded(t *testing.T) {
	rec := get(Handler(), "/")
	switch rec.Code {
	case 200:
		for _, ref := range []string{"app.js?v=", "style.css?v="} {
			if !strings.Contains(rec.Body.String(), ref) {
				t.Errorf("index.html does not reference %s", ref)
			}
		}
		// The worker fetches these by the URLs built into app.js and worker.js.
		for _, name := range []string{"worker.js", "webtron.wasm", "wasm_exec.js"} {
			if rec := get(Handler(), "/"+name); rec.Code != 200 {
				t.Errorf("GET /%s: %d", name, rec.Code)
			}
		}
	case http.StatusServiceUnavailable:
		t.Log("client not built: the handler shows the build hint")
	default:
		t.Fatalf("GET /: %d", rec.Code)
	}
}
