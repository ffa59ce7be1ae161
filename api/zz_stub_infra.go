package api

// Temporary stub of the infra branch: apicore writes the real NewServer
// (router, request id, access log, /healthz). Deleted when "api: router"
// lands on main.

import (
	"strings"

	"github.com/gofiber/fiber/v2"
)

// ServerOptions configures NewServer.
type ServerOptions struct {
	WebErrorHandler fiber.ErrorHandler
	Middleware      []fiber.Handler
}

// NewServer builds the fiber app with the API mounted.
func NewServer(d *Deps, o ServerOptions) *fiber.App {
	app := fiber.New(fiber.Config{
		DisableStartupMessage: true,
		BodyLimit:             1 << 20,
		ErrorHandler: func(c *fiber.Ctx, err error) error {
			if o.WebErrorHandler != nil && !strings.Contains(c.Path(), "/"+Namespace) {
				return o.WebErrorHandler(c, err)
			}
			status := fiber.StatusInternalServerError
			if fe, ok := err.(*fiber.Error); ok {
				status = fe.Code
			}
			return c.Status(status).JSON(fiber.Map{"code": "stub", "data": fiber.Map{"status": status}})
		},
	})
	for _, m := range o.Middleware {
		app.Use(m)
	}
	app.Get("/healthz", func(c *fiber.Ctx) error {
		if err := d.DB.Ping(c.UserContext()); err != nil {
			return c.Status(fiber.StatusServiceUnavailable).JSON(fiber.Map{"status": "unavailable"})
		}
		return c.JSON(fiber.Map{"status": "ok"})
	})
	return app
}
