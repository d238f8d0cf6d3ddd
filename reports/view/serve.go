package view

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Handler serves the site without writing it: index.html and each case's page rendered when asked for, and the
// runs' files under /raw/run/ and /raw/baseline/ (beneath the run folders
// only, as plain text, sandboxed), which the pages' raw links point at.
func (s *Site) Handler() (http.Handler, error) {
	r, base := s.run, s.base
	l := linker{served: []prefix{{r.dir, "../raw/run/"}}}
	if base != nil {
		l.served = append(l.served, prefix{base.dir, "../raw/baseline/"})
	}
	byPage := make(map[string]string, len(r.cases))
	for _, id := range r.cases {
		byPage[pageName(id)] = id
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		idx, _ := buildIndex(r, base)
		render(w, "index", idx)
	})
	mux.Handle("GET /index.html", http.RedirectHandler("/", http.StatusMovedPermanently))
	mux.HandleFunc("GET /cases/{page}", func(w http.ResponseWriter, req *http.Request) {
		id, ok := byPage[req.PathValue("page")]
		if !ok {
			http.NotFound(w, req)
			return
		}
		render(w, "case", buildCase(r, base, id, l))
	})
	if err := mountRaw(mux, "/raw/run/", r.dir); err != nil {
		return nil, err
	}
	if base != nil {
		if err := mountRaw(mux, "/raw/baseline/", base.dir); err != nil {
			return nil, err
		}
	}
	return mux, nil
}

// render executes a page into memory, then sends it.
func render(w http.ResponseWriter, name string, data any) {
	var buf bytes.Buffer
	if err := execute(&buf, name, data); err != nil {
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(buf.Bytes())
}

// mountRaw serves the files beneath dir (os.Root: a link out of it is
// refused) as plain text under path: a session's files are the tools' to
// write, so none may be served as a page of this origin.
func mountRaw(mux *http.ServeMux, path, dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return errcode.Wrap(errcode.IO, err, "serve %s", dir)
	}
	files := http.StripPrefix(path, http.FileServerFS(root.FS()))
	mux.Handle("GET "+path, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
		h.Set("X-Content-Type-Options", "nosniff")
		if !strings.HasSuffix(req.URL.Path, "/") {
			h.Set("Content-Type", "text/plain; charset=utf-8")
		}
		files.ServeHTTP(w, req)
	}))
	return nil
}

// Serve serves h on addr until ctx ends; ready is told the site's URL
// once it listens.
func Serve(ctx context.Context, addr string, h http.Handler, ready func(url string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return errcode.Wrap(errcode.Usage, err, "listen on %s", addr).
			WithHint("give a free host:port, e.g. --serve 127.0.0.1:8000")
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	ready("http://" + ln.Addr().String() + "/")
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = srv.Shutdown(sctx)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return errcode.Wrap(errcode.IO, err, "serve on %s", addr)
	}
	return nil
}
