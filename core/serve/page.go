package serve

import (
	"embed"
	"fmt"
	"io/fs"
	"net/http"
)

// pageFS holds the page at / and its assets: plain HTML, CSS and JavaScript
// and the shipped samples, all in the binary (nothing is loaded from
// elsewhere, so the page works offline).
//
//go:embed page
var pageFS embed.FS

// pageAssets serves page/ under /assets/.
func pageAssets() http.Handler {
	sub, err := fs.Sub(pageFS, "page")
	if err != nil {
		panic(err) // the embedded folder exists: a build error, not a user's
	}
	return http.StripPrefix("/assets/", http.FileServerFS(sub))
}

// handlePage answers GET / with the page and any other unknown route with
// a JSON 404 naming the routes.
func (st *site) handlePage(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no route %s %s (known: %s)", r.Method, r.URL.Path, st.routes()))
		return
	}
	if !allowGet(w, r, "/") {
		return
	}
	b, err := pageFS.ReadFile("page/index.html")
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b)
}
