package api

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/gofiber/fiber/v2"
)

// requestIDKey is the fiber Locals key of the request id.
const requestIDKey = "kalends.request_id"

// RequestID gives every request an id: the client's X-Request-Id when it is
// short and plain (so ids can be followed across a proxy), else a random
// one. The id is echoed in the X-Request-Id response header.
func RequestID() fiber.Handler {
	return func(c *fiber.Ctx) error {
		id := c.Get(fiber.HeaderXRequestID)
		if !plainID(id) {
			var b [8]byte
			_, _ = rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		} else {
			id = string([]byte(id)) // the header buffer is reused after the request
		}
		c.Locals(requestIDKey, id)
		c.Set(fiber.HeaderXRequestID, id)
		return c.Next()
	}
}

// RequestIDOf returns the id RequestID gave the request ("" without it).
func RequestIDOf(c *fiber.Ctx) string {
	s, _ := c.Locals(requestIDKey).(string)
	return s
}

// plainID accepts ids of 1 to 64 letters, digits, '-', '_' and '.', so a
// client cannot inject text into the logs through the header.
func plainID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '_' || ch == '.') {
			return false
		}
	}
	return true
}

// AccessLog writes one log line per request: method, path, status,
// duration and request id. An error returned down the chain is handed to
// the app's error handler here, so the line shows the status the client
// gets.
func AccessLog(l *slog.Logger) fiber.Handler {
	if l == nil {
		l = slog.New(slog.DiscardHandler)
	}
	return func(c *fiber.Ctx) error {
		start := time.Now()
		if err := c.Next(); err != nil {
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				l.Error("http: error handler failed", "err", herr, "request_id", RequestIDOf(c))
				_ = c.SendStatus(fiber.StatusInternalServerError)
			}
		}
		l.Info("http request",
			"method", c.Method(),
			"path", c.Path(),
			"status", c.Response().StatusCode(),
			"duration", time.Since(start),
			"request_id", RequestIDOf(c))
		return nil
	}
}

// Recover turns a panic into a 500 (rendered by the error handler without
// detail) and logs its value and stack.
func Recover(l *slog.Logger) fiber.Handler {
	if l == nil {
		l = slog.New(slog.DiscardHandler)
	}
	return func(c *fiber.Ctx) (err error) {
		defer func() {
			if v := recover(); v != nil {
				l.Error("http: panic", "panic", fmt.Sprint(v), "stack", string(debug.Stack()),
					"request_id", RequestIDOf(c))
				err = ErrInternal(fmt.Errorf("api: panic: %v", v))
			}
		}()
		return c.Next()
	}
}
