package api

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// authenticate resolves the caller from the request (models.Store.Actor
// decides): HTTP Basic credentials (login + application password) win;
// otherwise the admin's session cookie acts as its user only with the
// session's nonce in X-WP-Nonce, as WordPress's cookie authentication
// does (a cookie alone is anonymous, so another site cannot write with a
// visitor's browser). Nothing sent: anonymous (nil, nil). Account passwords
// are not application passwords, so they fail like any wrong password. A
// wrong login and a wrong password give the same answer after the same
// work (AuthenticateAppPassword guarantees the work).
func authenticate(c *fiber.Ctx, r *Request) (*models.User, error) {
	cred := models.Credentials{SessionToken: c.Cookies(models.SessionCookie), Nonce: c.Get("X-WP-Nonce"), IP: c.IP()}
	if h := strings.TrimSpace(c.Get(fiber.HeaderAuthorization)); h != "" {
		login, pw, err := parseBasic(h)
		if err != nil {
			return nil, err
		}
		cred.Login, cred.AppPassword = login, pw
	}
	u, err := r.Deps.DB.Actor(r.Ctx, cred)
	if errors.Is(err, models.ErrBadCredentials) {
		return nil, NewError(http.StatusUnauthorized, "incorrect_password", "error.incorrect_password")
	}
	if rl := rateLimited(c, err); rl != nil {
		return nil, rl
	}
	if err != nil {
		return nil, err
	}
	return u, nil
}

// parseBasic reads the login and password of HTTP Basic credentials; any
// other Authorization header is malformed.
func parseBasic(h string) (login, password string, err error) {
	scheme, cred, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return "", "", errMalformedAuth()
	}
	raw, derr := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
	if derr != nil {
		return "", "", errMalformedAuth()
	}
	login, password, ok = strings.Cut(string(raw), ":")
	if !ok || login == "" || !utf8.ValidString(login) || !utf8.ValidString(password) ||
		strings.ContainsRune(login, 0) || strings.ContainsRune(password, 0) {
		return "", "", errMalformedAuth()
	}
	return login, password, nil
}

// errMalformedAuth: an Authorization header that is not valid Basic
// credentials.
func errMalformedAuth() *Error {
	return NewError(http.StatusUnauthorized, "rest_invalid_authorization", "error.rest_invalid_authorization")
}

// rateLimited turns a limit of models (too many failed sign-ins, too many
// writes) into a 429 with Retry-After; any other error gives nil.
func rateLimited(c *fiber.Ctx, err error) *Error {
	var rl *models.RateLimitError
	if !errors.As(err, &rl) {
		return nil
	}
	c.Set(fiber.HeaderRetryAfter, rl.RetryAfterSeconds())
	return NewError(http.StatusTooManyRequests, "rest_too_many_requests", rl.Reason)
}
