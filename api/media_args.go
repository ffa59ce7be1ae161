package api

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
)

// linkedImageArg is the image of a venue or organizer write.
func linkedImageArg(desc string) Arg {
	return Arg{Name: "image", HasDefault: true, Desc: desc, In: "body", Kind: KImage, MaxLen: 255, Accepts: "image"}
}

// parseImage reads an image argument: "" (no image), an absolute http(s)
// URL, or the id of a library image (a JSON integer or digits). The models
// operation checks that the id names an image.
func parseImage(a *Arg, v any) (any, *Reason) {
	bad := rsn("rest_invalid_param", "reason.events.invalid_image", nil)
	switch x := v.(type) {
	case json.Number:
		if n, err := strconv.ParseInt(string(x), 10, 64); err == nil && n > 0 {
			return strconv.FormatInt(n, 10), nil
		}
		return nil, bad
	case string:
		if rs := checkText(x, a.MaxLen); rs != nil {
			return nil, rs
		}
		s := strings.TrimSpace(x)
		if s == "" {
			return "", nil
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			if n <= 0 {
				return nil, bad
			}
			return strconv.FormatInt(n, 10), nil
		}
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, bad
		}
		return x, nil
	}
	return nil, invalidType("reason.not_string")
}
