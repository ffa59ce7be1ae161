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

// authenticate reads HTTP Basic credentials (login + application password).
// No Authorization header: anonymous (nil, nil). Account passwords are not
// application passwords, so they fail like any wrong password. A wrong
// login and a wrong password give the same answer after the same work
// (AuthenticateAppPassword guarantees the work).
func authenticate(c *fiber.Ctx, r *Request) (*models.User, error) {
	h := strings.TrimSpace(c.Get(fiber.HeaderAuthorization))
	if h == "" {
		return nil, nil
	}
	scheme, cred, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return nil, errMalformedAuth()
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
	if err != nil {
		return nil, errMalformedAuth()
	}
	login, pw, ok := strings.Cut(string(raw), ":")
	if !ok || login == "" || !utf8.ValidString(login) || !utf8.ValidString(pw) ||
		strings.ContainsRune(login, 0) || strings.ContainsRune(pw, 0) {
		return nil, errMalformedAuth()
	}
	u, err := r.Deps.DB.AuthenticateAppPassword(r.Ctx, models.NormalizeLogin(login), pw, c.IP())
	if errors.Is(err, models.ErrBadCredentials) {
		return nil, NewError(http.StatusUnauthorized, "incorrect_password", "error.incorrect_password")
	}
	if err != nil {
		return nil, err
	}
	return u, nil
}

// errMalformedAuth: an Authorization header that is not valid Basic
// credentials.
func errMalformedAuth() *Error {
	return NewError(http.StatusUnauthorized, "rest_invalid_authorization", "error.rest_invalid_authorization")
}
