package api

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Requests fasthttp cannot parse never reach a route; they still get the
// WordPress error shape, not the admin's HTML page or plain text.
func TestUnparseableRequestsGetAJSONError(t *testing.T) {
	t.Parallel()
	e := synthEnv(t)
	web := func(c *fiber.Ctx, err error) error {
		return c.Status(599).SendString("<html>web</html>")
	}
	app := newServerWithRoutes(e.Deps, ServerOptions{WebErrorHandler: web}, syntheticRoutes())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	for name, raw := range map[string]string{
		"request line over the buffer": "GET /cal/events/v1/things?x=" + strings.Repeat("a", 40<<10) + " HTTP/1.1\r\nHost: x\r\n\r\n",
		"negative content length":      "POST /cal/events/v1/things HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
	} {
		conn, err := net.DialTimeout("tcp", ln.Addr().String(), 3*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.WriteString(conn, raw); err != nil {
			t.Fatalf("%s: write: %v", name, err)
		}
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s: read: %v", name, err)
		}
		body, _ := io.ReadAll(res.Body)
		conn.Close()
		var m struct {
			Code string `json:"code"`
			Data struct {
				Status int `json:"status"`
			} `json:"data"`
		}
		if res.StatusCode < 400 || res.StatusCode >= 500 || json.Unmarshal(body, &m) != nil || m.Code == "" || m.Data.Status != res.StatusCode {
			t.Errorf("%s: %d %s %.200s", name, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
	}
}
