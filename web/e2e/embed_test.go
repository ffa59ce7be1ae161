package e2e

import (
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/internal/browsertest"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// hostSite is another site on a loopback origin: its pages frame the
// calendar through /embed.js, or /admin/login directly.
func hostSite(t *testing.T, calendar *string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		attr := r.URL.Query().Get("embed")
		if attr == "" {
			attr = "lang=ja&view=month"
		}
		body := `<div data-kalends-events="` + html.EscapeString(attr) + `" data-kalends-title="催し"></div><script src="` + *calendar + `/embed.js"></script>`
		if r.URL.Path == "/login.html" {
			body = `<iframe id="login" src="` + *calendar + `/admin/login"></iframe>`
		}
		if r.URL.Path == "/favicon.ico" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		_, _ = fmt.Fprint(w, `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Host</title></head><body><h1>Our neighbourhood</h1>`+body+`</body></html>`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// refusedFrame waits until the browser reports that a frame was refused by
// frame-ancestors.
func refusedFrame(t *testing.T, p *browsertest.Page) {
	t.Helper()
	err := modelstest.Await(10*time.Second, func() error {
		for _, m := range p.TakeProblems() {
			if strings.Contains(m, "frame-ancestors") {
				return nil
			}
		}
		return errors.New("no frame-ancestors refusal reported")
	})
	if err != nil {
		t.Error(err)
	}
}

// A page on a listed origin embeds the Japanese month through /embed.js
// and the frame takes its content's height; a page on an unlisted origin
// is refused, and so is /admin/login framed by the listed one.
func TestEmbedOnAnotherSite(t *testing.T) {
	var calendar string
	listed, unlisted := hostSite(t, &calendar), hostSite(t, &calendar)
	srv := browsertest.StartServer(t, "--embed-origins="+listed.URL)
	calendar = srv.URL
	admin := srv.User(t, models.RoleAdministrator)
	now := time.Now().UTC()
	for i := range 6 {
		day := time.Date(now.Year(), now.Month(), 1+i*4, 18, 0, 0, 0, time.UTC).Format("2006-01-02 15:04:05")
		srv.CreateEvent(t, admin, map[string]any{"title": "川辺の夕べ " + strconv.Itoa(i), "start_date": day, "end_date": day, "status": "publish"})
	}

	p := browsertest.NewPage(t, listed.URL)
	p.Visit("/")
	browsertest.WaitUntil(p, `(() => { const f = document.querySelector('div[data-kalends-events] iframe');
		return f && f.dataset.kalendsHeight && f.dataset.kalendsHeight !== "480"; })()`)
	height, _ := strconv.Atoi(p.Attr(`div[data-kalends-events] iframe`, "data-kalends-height"))
	src := p.Attr(`div[data-kalends-events] iframe`, "src")
	if height < 300 || !strings.HasPrefix(src, srv.URL+"/ja/embed/events/month/") {
		t.Errorf("frame %s resized to %d px", src, height)
	}
	if got := browsertest.Eval[int](p, `document.querySelector('div[data-kalends-events] iframe').getBoundingClientRect().height`); got != height {
		t.Errorf("the frame is %d px high, its content %d", got, height)
	}
	p.Visit("/login.html")
	refusedFrame(t, p)

	q := browsertest.NewPage(t, unlisted.URL)
	q.Visit("/")
	refusedFrame(t, q)
	if q.Attr(`div[data-kalends-events] iframe`, "data-kalends-height") != "" {
		t.Error("a frame on an unlisted origin was resized")
	}
}
