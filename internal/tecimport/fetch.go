package tecimport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/kalends/kalends/internal/safehttp"
)

// StatusError is an answer of the source that is not a success.
type StatusError struct {
	URL    string
	Status int
	Code   string // the WordPress error code of the body, when it has one
}

func (e *StatusError) Error() string {
	if e.Code != "" {
		return fmt.Sprintf("%s answered %d (%s)", e.URL, e.Status, e.Code)
	}
	return fmt.Sprintf("%s answered %d", e.URL, e.Status)
}

// retryable says whether an answer's status is worth asking again: the
// site asked to slow down, or failed on its side.
func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500
}

// fetch gets rawURL through the guarded client, asking again on 429 and
// 5xx (and on a network error that is not the guard's refusal) at most
// Retries times, waiting Backoff, then twice as long each time, or what
// Retry-After says, up to MaxWait.
func (im *importer) fetch(ctx context.Context, rawURL string, maxBytes int64) (*safehttp.Response, error) {
	wait := im.opt.Backoff
	for attempt := 0; ; attempt++ {
		res, err := im.opt.Client.Fetch(ctx, http.MethodGet, rawURL, http.Header{"Accept": {"application/json"}}, maxBytes)
		var retry bool
		var after time.Duration
		switch {
		case err != nil:
			retry = !refused(err) && ctx.Err() == nil
		case retryable(res.StatusCode):
			retry = true
			after = retryAfter(res.Header.Get("Retry-After"))
		}
		if !retry || attempt >= im.opt.Retries {
			if err != nil {
				return nil, err
			}
			return res, nil
		}
		d := wait
		if after > 0 {
			d = after
		}
		d = min(d, im.opt.MaxWait)
		im.retries.Add(1)
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		wait *= 2
	}
}

// refused says whether err is the guard's (asking again cannot help).
func refused(err error) bool {
	for _, e := range []error{safehttp.ErrAddress, safehttp.ErrRedirect, safehttp.ErrInsecureCredentials,
		safehttp.ErrTooLarge, safehttp.ErrScheme} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t)
	}
	return 0
}

// getJSON fetches rawURL and decodes its JSON body into v; an answer that
// is not 200 is a *StatusError.
func (im *importer) getJSON(ctx context.Context, rawURL string, v any) (*safehttp.Response, error) {
	res, err := im.fetch(ctx, rawURL, safehttp.PageMaxBytes)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		se := &StatusError{URL: rawURL, Status: res.StatusCode}
		var body struct {
			Code string `json:"code"`
		}
		if json.Unmarshal(res.Body, &body) == nil {
			se.Code = body.Code
		}
		return res, se
	}
	if err := json.Unmarshal(res.Body, v); err != nil {
		return res, fmt.Errorf("%s: not the JSON expected: %w", rawURL, err)
	}
	return res, nil
}

// listPage is one page of a TEC list: the records under the list's key
// and the next page's address.
type listPage struct {
	Next  string `json:"next_rest_url"`
	Total int    `json:"total"`
}

// list reads every page of a TEC collection (events, venues, organizers,
// categories, tags) under key, following next_rest_url from the first
// page asked with query (per_page is clamped to 50 by TEC). Each record is
// kept raw, in the order the site lists them.
func (im *importer) list(ctx context.Context, collection, key string, query url.Values) ([]json.RawMessage, error) {
	query.Set("per_page", "50")
	next := im.api(collection) + "?" + query.Encode()
	var out []json.RawMessage
	seen := map[string]bool{}
	for next != "" {
		if seen[next] {
			return out, fmt.Errorf("%s: next_rest_url loops back to a page already read", next)
		}
		seen[next] = true
		if err := im.sameSite(next); err != nil {
			return out, err
		}
		// TEC writes its next_rest_url with the dates' spaces as they
		// are: the query is encoded again before it is sent.
		// What was asked stays asked on every page: a site that leaves
		// a parameter out of next_rest_url (a language, hide_empty) would
		// otherwise answer the later pages differently.
		if u, err := url.Parse(next); err == nil {
			nq := u.Query()
			for k, v := range query {
				if k != "page" && !nq.Has(k) {
					nq[k] = v
				}
			}
			u.RawQuery = nq.Encode()
			next = u.String()
		}
		var raw map[string]json.RawMessage
		res, err := im.getJSON(ctx, next, &raw)
		var se *StatusError
		if errors.As(err, &se) && res != nil && res.StatusCode == http.StatusNotFound && len(out) > 0 {
			break // past the last page (TEC answers 404 there)
		}
		if err != nil {
			return out, err
		}
		var items []json.RawMessage
		if b, ok := raw[key]; ok {
			if err := json.Unmarshal(b, &items); err != nil {
				return out, fmt.Errorf("%s: %q is not a list: %w", next, key, err)
			}
		}
		out = append(out, items...)
		var p listPage
		if b, ok := raw["next_rest_url"]; ok {
			_ = json.Unmarshal(b, &p.Next)
		}
		next = p.Next
		if len(items) == 0 {
			break
		}
		im.progress(key+" (list)", len(out), 0)
	}
	return out, nil
}

// api is the URL of a route of the namespace.
func (im *importer) api(route string) string {
	return im.root + "/" + im.opt.Namespace + "/" + strings.TrimPrefix(route, "/")
}

// sameSite refuses a next page on another site than the one imported.
func (im *importer) sameSite(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("next_rest_url %q: %w", rawURL, err)
	}
	if !strings.EqualFold(u.Host, im.rootURL.Host) {
		return fmt.Errorf("next_rest_url %q leaves the site %s", rawURL, im.rootURL.Host)
	}
	return nil
}
