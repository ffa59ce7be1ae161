package api

import (
	"net/http"

	"github.com/gofiber/fiber/v2"
)

// serveDoc answers GET /doc with the OpenAPI document (built in step 2).
func serveDoc(c *fiber.Ctx, r *Request) error {
	return NewError(http.StatusNotImplemented, "rest_not_implemented", "error.rest_not_implemented")
}
