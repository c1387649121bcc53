// Package web serves the browser client: the files `go run ./web/build` writes
// to web/dist, embedded in the binary so the server is one file to deploy.
//
// On a fresh clone dist holds only a placeholder; the handler then answers
// every page request with a short "run make build" page instead of failing
// to compile or serving nothing.
package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed all:dist
var dist embed.FS

// FS returns the built client files (index.html, app.js, worker.js,
// style.css, webtron.wasm, wasm_exec.js and their .br and .gz twins), rooted
// at dist.
func FS() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic("web: " + err.Error()) // "dist" is a constant, valid path
	}
	return sub
}

// Handler serves the embedded client; see NewHandler.
func Handler() http.Handler { return NewHandler(FS()) }

// NewHandler serves the client files in fsys (FS(), or os.DirFS("web/dist")
// while developing):
//   - "/" is index.html, sent with Cache-Control: no-cache, so a new build is
//     picked up on the next load;
//   - a URL whose ?v= matches the file's content hash (the build writes such
//     URLs into index.html) is immutable for a year; any other file is
//     no-cache, revalidated by ETag;
//   - name.br and name.gz, written by the build, are sent instead of name to
//     clients that accept brotli or gzip: brotli when both are accepted
//     equally (a fifth smaller on the wasm core), else the one preferred;
//   - when index.html is missing (nothing built), pages say how to build.
//
// Hashes are computed once, on first use, so requests never hash.
func NewHandler(fsys fs.FS) http.Handler {
	return &handler{fsys: fsys}
}

type handler struct {
	fsys   fs.FS
	once   sync.Once
	hashes map[string]string   // file name -> content hash, as the build stamps it
	coded  map[string][]coding // file name -> its compressed twins, best first
}

// coding is a compressed twin of a file: name+ext, sent with
// Content-Encoding: name.
type coding struct{ name, ext string }

// codings are the twins the build writes, in the order preferred when a
// client accepts several equally: brotli is the smaller.
var codings = []coding{{"br", ".br"}, {"gzip", ".gz"}}

// Hash is the version stamp of a file's content: the first 12 hex digits of
// its SHA-256 (web/build writes the same into index.html).
func Hash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:6])
}

func (h *handler) index() {
	h.hashes, h.coded = map[string]string{}, map[string][]coding{}
	fs.WalkDir(h.fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || twin(p) {
			return nil
		}
		if b, err := fs.ReadFile(h.fsys, p); err == nil {
			h.hashes[p] = Hash(b)
		}
		for _, c := range codings {
			if _, err := fs.Stat(h.fsys, p+c.ext); err == nil {
				h.coded[p] = append(h.coded[p], c)
			}
		}
		return nil
	})
}

// twin reports whether p is a compressed twin, served only in its file's stead.
func twin(p string) bool {
	for _, c := range codings {
		if strings.HasSuffix(p, c.ext) {
			return true
		}
	}
	return false
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.once.Do(h.index)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" {
		name = "index.html"
	}
	hash, ok := h.hashes[name]
	if !ok || strings.HasPrefix(path.Base(name), ".") {
		if name == "index.html" {
			notBuilt(w)
			return
		}
		http.NotFound(w, r)
		return
	}
	hdr := w.Header()
	if name != "index.html" && r.URL.Query().Get("v") == hash {
		hdr.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		hdr.Set("Cache-Control", "no-cache")
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	hdr.Set("Content-Type", ctype)
	hdr.Set("X-Content-Type-Options", "nosniff")
	file, etag := name, `"`+hash+`"`
	if have := h.coded[name]; len(have) > 0 {
		hdr.Add("Vary", "Accept-Encoding")
		if c, ok := choose(r.Header.Get("Accept-Encoding"), have); ok {
			file, etag = name+c.ext, `"`+hash+`-`+strings.TrimPrefix(c.ext, ".")+`"`
			hdr.Set("Content-Encoding", c.name)
		}
	}
	hdr.Set("ETag", etag)
	f, err := h.fsys.Open(file)
	if err != nil {
		http.Error(w, "cannot open "+file, http.StatusInternalServerError)
		return
	}
	defer f.Close()
	rs, ok := f.(io.ReadSeeker)
	if !ok {
		http.Error(w, "cannot seek "+file, http.StatusInternalServerError)
		return
	}
	// ServeContent answers If-None-Match with 304 from the ETag set above.
	http.ServeContent(w, r, name, zeroTime, rs)
}

// zeroTime makes ServeContent skip Last-Modified: embedded files have no
// modification time, and the ETag already identifies the content.
var zeroTime time.Time

// choose picks the twin to send for the Accept-Encoding header accept: the
// one of have with the highest q above zero ("*" stands for any coding not
// named), the first of have on a tie; ok is false when the client accepts
// none of them (it gets the file as is).
func choose(accept string, have []coding) (c coding, ok bool) {
	best := 0.0
	for _, h := range have {
		if q := quality(accept, h.name); q > best {
			c, ok, best = h, true, q
		}
	}
	return c, ok
}

// quality is the q that the Accept-Encoding header accept gives coding: 0
// when it is not named (nor "*"), 1 when named without a q.
func quality(accept, coding string) float64 {
	star := 0.0
	for _, part := range strings.Split(accept, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != coding && name != "*" {
			continue
		}
		v := 1.0
		for _, p := range strings.Split(params, ";") {
			k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.TrimSpace(k) == "q" {
				f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
				if err != nil || f < 0 || f > 1 {
					f = 0 // a q that does not parse accepts nothing
				}
				v = f
			}
		}
		if name == coding {
			return v
		}
		star = v
	}
	return star
}

// notBuilt answers page requests on a server built without the client.
func notBuilt(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusServiceUnavailable)
	io.WriteString(w, notBuiltPage)
}

const notBuiltPage = `<!doctype html><meta charset="utf-8"><title>Webtron: client not built</title>
<body style="background:#05070d;color:#cfe;font:16px system-ui;padding:3em">
<h1>Webtron</h1><p>The server is running, but this binary was built without the browser client.</p>
<p>Run <code>make build</code> (or <code>go run ./web/build</code> and rebuild the server), then reload.</p>`
