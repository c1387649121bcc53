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
)

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
	}
	fsys := fstest.MapFS{".keep": {}}
	for name, b := range files {
		fsys[name] = &fstest.MapFile{Data: b}
		if name != "style.css" { // a file without a .gz twin is served plain
			fsys[name+".gz"] = &fstest.MapFile{Data: gz(t, b)}
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
	rec := get(h, url, "Accept-Encoding", "br, gzip;q=0.8")
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
