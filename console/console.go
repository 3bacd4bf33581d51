// Package console is the web console: HTML, CSS and JavaScript modules
// embedded in the binary and served as they are (no build step, nothing
// fetched at run time). The pages use only the public API.
package console

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
)

//go:embed web
var files embed.FS

// assetPrefix is where assets are served, under the version of the whole
// set: a new binary's assets get new URLs, so browsers may cache them for
// good.
const assetPrefix = "/assets/"

// securityHeaders go on every console answer. The policy allows nothing
// but this site's own files: no inline script or style, no frames. The
// pages build the DOM from nodes and text only; requiring Trusted Types
// makes the browser refuse any string that would be parsed as HTML or
// script (innerHTML and the like), so such a sink cannot creep in.
var securityHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; " +
		"require-trusted-types-for 'script'",
	"X-Frame-Options":              "DENY",
	"X-Content-Type-Options":       "nosniff",
	"Referrer-Policy":              "no-referrer", // mail links carry tokens in the URL
	"Cross-Origin-Opener-Policy":   "same-origin",
	"Cross-Origin-Resource-Policy": "same-origin",
	"Permissions-Policy":           "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
}

// asset is one file, served plain or gzipped. It is compressed the first
// time it is asked for, not at start: compressing every file at start
// cost the server 35 ms and 30 MB of allocations before it could answer.
type asset struct {
	body         []byte
	contentType  string
	etag         string
	compressible bool
	gzOnce       sync.Once
	gz           []byte // nil when gzip does not make it smaller
}

// gzipped is the compressed body, nil when there is none worth sending.
func (a *asset) gzipped() []byte {
	if !a.compressible {
		return nil
	}
	a.gzOnce.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(a.body) // writes to a bytes.Buffer do not fail
		zw.Close()
		if buf.Len() < len(a.body) {
			a.gz = buf.Bytes()
		}
	})
	return a.gz
}

// Console serves the pages.
type Console struct {
	version string
	assets  map[string]*asset // by name under web/
	index   *asset
}

// New loads the embedded files.
func New() (*Console, error) {
	sum := sha256.New()
	raw := map[string][]byte{}
	err := fs.WalkDir(files, "web", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, "web/")
		raw[name] = b
		fmt.Fprintf(sum, "%s\x00%d\x00", name, len(b))
		sum.Write(b)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("console files: %w", err)
	}
	c := &Console{version: hex.EncodeToString(sum.Sum(nil))[:12], assets: map[string]*asset{}}
	for name, b := range raw {
		if name == "index.html" {
			b = bytes.ReplaceAll(b, []byte("/assets/VERSION/"), []byte(assetPrefix+c.version+"/"))
		}
		c.assets[name] = newAsset(name, b)
	}
	if c.index = c.assets["index.html"]; c.index == nil {
		return nil, fmt.Errorf("console files: no index.html")
	}
	return c, nil
}

func newAsset(name string, b []byte) *asset {
	ct := mime.TypeByExtension(path.Ext(name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	sum := sha256.Sum256(b)
	return &asset{body: b, contentType: ct, etag: `"` + hex.EncodeToString(sum[:8]) + `"`,
		compressible: strings.HasPrefix(ct, "text/") || strings.Contains(ct, "javascript") || strings.Contains(ct, "json") || strings.Contains(ct, "svg")}
}

// Size is the bytes of every script and style sheet, uncompressed.
func (c *Console) Size() (scripts, styles int) {
	for name, a := range c.assets {
		switch path.Ext(name) {
		case ".js":
			scripts += len(a.body)
		case ".css":
			styles += len(a.body)
		}
	}
	return scripts, styles
}

// ServeHTTP answers GET and HEAD outside /api/: an asset of this version
// under /assets/<version>/, and for any other path the page, whose script
// shows what the path names.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	for k, v := range securityHeaders {
		h.Set(k, v)
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, assetPrefix); ok {
		version, name, _ := strings.Cut(rest, "/")
		a := c.assets[name]
		if version != c.version || a == nil || name == "index.html" {
			h.Set("Cache-Control", "no-store")
			h.Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintln(w, "Not found: this asset is not part of this version of Garrison; reload the page.")
			return
		}
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		c.serve(w, r, a)
		return
	}
	// The page itself is checked on every visit, so a new binary's page
	// (naming its new assets) is seen at once.
	h.Set("Cache-Control", "no-cache")
	c.serve(w, r, c.index)
}

func (c *Console) serve(w http.ResponseWriter, r *http.Request, a *asset) {
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	body, etag := a.body, a.etag
	if gz := a.gzipped(); gz != nil {
		h.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			body, etag = gz, a.etag[:len(a.etag)-1]+`-gz"`
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("ETag", etag)
	// Either encoding's tag validates: both carry the same bytes.
	if match := r.Header.Get("If-None-Match"); match != "" && (etagMatches(match, a.etag) || etagMatches(match, etag)) {
		h.Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// acceptsGzip reads an Accept-Encoding header: gzip listed without q=0.
func acceptsGzip(header string) bool {
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") || strings.TrimSpace(coding) == "*" {
			q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}

func etagMatches(header, etag string) bool {
	for part := range strings.SplitSeq(header, ",") {
		if p := strings.TrimPrefix(strings.TrimSpace(part), "W/"); p == etag || p == "*" {
			return true
		}
	}
	return false
}
