package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
)

// parseArgs runs the argument pipeline of SPEC §2, in this order: read the
// sources (JSON body > form body > query string > path), attach defaults,
// check required arguments (all missing names in one error), parse and
// validate every present argument by its Kind and then its Validate (all
// invalid arguments in one error). Authorization comes after, in serve.
func parseArgs(c *fiber.Ctx, r *Request) error {
	src, err := readSources(c, r)
	if err != nil {
		return err
	}
	// The path locates the record even when a body or query value of the
	// same name wins in Args, so its text is checked on its own: a NUL
	// byte or invalid UTF-8 must never reach the store.
	for k, v := range r.Path {
		if rs := checkText(v, 0); rs != nil {
			return ErrInvalidParam(k, *rs)
		}
	}
	if s, ok := src["ml_language"].(string); ok && i18n.Valid(s) {
		r.Lang = s
	}
	r.Args = map[string]any{}
	r.Sent = map[string]bool{}
	for k := range r.Path {
		r.Sent[k] = true
	}
	args := r.Endpoint.Args

	var missing []string
	for i := range args {
		a := &args[i]
		v, ok := src[a.Name]
		if ok && v == nil && a.Kind != KRaw {
			ok = false // JSON null is "not sent"
		}
		if !ok {
			if a.Required {
				missing = append(missing, a.Name)
				continue
			}
			if def, has := defaultOf(r, a); has {
				r.Args[a.Name] = def
			}
			continue
		}
		r.Sent[a.Name] = true
	}
	if len(missing) > 0 {
		e := NewError(http.StatusBadRequest, "rest_missing_callback_param", "error.rest_missing_callback_param")
		e.Missing = missing
		return e
	}

	var invalid []models.FieldError
	ok := make([]bool, len(args))
	for i := range args {
		a := &args[i]
		if !r.Sent[a.Name] {
			continue
		}
		v, reason := parseKind(r, a, src[a.Name])
		if reason != nil {
			reason.Field = a.Name
			invalid = append(invalid, *reason)
			continue
		}
		r.Args[a.Name] = v
		ok[i] = true
	}
	// Validate may look at other arguments, so it runs once all are parsed.
	for i := range args {
		a := &args[i]
		if !ok[i] || a.Validate == nil {
			continue
		}
		if reason := a.Validate(r, r.Args[a.Name]); reason != nil {
			reason.Field = a.Name
			invalid = append(invalid, *reason)
			delete(r.Args, a.Name)
		}
	}
	if len(invalid) > 0 {
		sortInvalid(invalid, args)
		return invalidParams(invalid)
	}
	return nil
}

// sortInvalid puts invalid arguments in declaration order (Validate
// failures were appended after kind failures).
func sortInvalid(inv []models.FieldError, args []Arg) {
	pos := map[string]int{}
	for i, a := range args {
		pos[a.Name] = i
	}
	for i := 1; i < len(inv); i++ {
		for j := i; j > 0 && pos[inv[j].Field] < pos[inv[j-1].Field]; j-- {
			inv[j], inv[j-1] = inv[j-1], inv[j]
		}
	}
}

// defaultOf returns the default of an argument that was not sent, in the
// Go type of its kind (Args promises that type): a published default such
// as hide_empty's "1" becomes true, per_page's 120 becomes int64.
func defaultOf(r *Request, a *Arg) (any, bool) {
	var v any
	switch {
	case a.DefaultFunc != nil:
		v = a.DefaultFunc(r)
	case a.HasDefault:
		v = a.Default
	default:
		return nil, false
	}
	j := v
	switch n := v.(type) {
	case int:
		j = json.Number(strconv.Itoa(n))
	case int32:
		j = json.Number(strconv.FormatInt(int64(n), 10))
	case int64:
		j = json.Number(strconv.FormatInt(n, 10))
	case float64:
		j = json.Number(strconv.FormatFloat(n, 'g', -1, 64))
	}
	switch a.Kind {
	case KInt, KPositiveInt:
		if n, rs := parseInt(j); rs == nil {
			return n, true
		}
	case KBool:
		if b, rs := parseBool(j); rs == nil {
			return b, true
		}
	case KNumber:
		if f, rs := parseNumber(j); rs == nil {
			return f, true
		}
	}
	return v, true
}

// readSources merges the request's parameter sources into one map of
// top-level names, the highest source winning: JSON body, form body, query
// string, path.
func readSources(c *fiber.Ctx, r *Request) (map[string]any, error) {
	out := map[string]any{}
	for k, v := range r.Path {
		out[k] = v
	}
	for k, v := range parsePairs(string(c.Request().URI().QueryString())) {
		out[k] = v
	}
	ct, _, _ := mime.ParseMediaType(c.Get(fiber.HeaderContentType))
	ct = strings.ToLower(ct)
	body := c.Body()
	if r.Method != fiber.MethodGet {
		switch ct {
		case fiber.MIMEApplicationForm:
			for k, v := range parsePairs(string(body)) {
				out[k] = v
			}
		case fiber.MIMEMultipartForm:
			// A malformed multipart body carries no parameters (as PHP).
			if f, err := c.MultipartForm(); err == nil {
				for k, v := range parseMultiValues(f.Value) {
					out[k] = v
				}
			}
		}
	}
	if ct == fiber.MIMEApplicationJSON && len(bytes.TrimSpace(body)) > 0 {
		obj, err := decodeJSONObject(body)
		if err != nil {
			return nil, err
		}
		for k, v := range obj {
			out[k] = v
		}
	}
	return out, nil
}

// decodeJSONObject decodes a JSON body that must be one object. Numbers
// stay json.Number so that integers keep every digit and a number sent
// for a string argument can be told apart.
func decodeJSONObject(body []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == nil {
		if _, terr := dec.Token(); !errors.Is(terr, io.EOF) {
			err = errors.New("api: trailing data after the JSON value")
		}
	}
	if err != nil {
		return nil, invalidJSON("reason.json_syntax")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, invalidJSON("reason.json_not_object")
	}
	return obj, nil
}

// invalidJSON is 400 rest_invalid_json with PHP's error code for a syntax
// error (4, what WordPress reports) and our own explanation.
func invalidJSON(reasonID string) *Error {
	e := NewError(http.StatusBadRequest, "rest_invalid_json", "error.rest_invalid_json")
	e.Data = Obj{{"json_error_code", 4}, {"json_error_message", jsonReason{reasonID}}}
	return e
}

// jsonReason is a message id inside Error.Data, rendered in the request
// language by errorBody.
type jsonReason struct{ id string }
