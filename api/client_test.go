package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/internal/apiclient"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// appDoer sends the generated client's requests through the real app.
type appDoer struct{ app *fiber.App }

func (d appDoer) Do(req *http.Request) (*http.Response, error) { return d.app.Test(req, -1) }

// EnvUpdateAPIClient, set, rewrites internal/apiclient/openapi.json from
// /doc (then `go generate ./internal/apiclient` regenerates the client;
// `make apiclient` does both).
const EnvUpdateAPIClient = "KALENDS_UPDATE_APICLIENT"

// Issue 15 item 12: the client generated from /doc by oapi-codegen (a
// well-kept generator) compiles, lists and creates events; the document it
// was generated from is the one /doc serves now.
func TestGeneratedClientListsAndCreatesEvents(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, modelstest.Open(t, models.SQLite))
	doc := e.do(t, "GET", "/cal/events/v1/doc", nil, "")
	mustStatus(t, doc, http.StatusOK)
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, doc.Body, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	file := filepath.Join("..", "internal", "apiclient", "openapi.json")
	if os.Getenv(EnvUpdateAPIClient) != "" {
		if err := os.WriteFile(file, pretty.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	committed, err := os.ReadFile(file) //nolint:gosec // G304: a file of this module.
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, pretty.Bytes()) {
		t.Errorf("internal/apiclient/openapi.json differs from /doc: run make apiclient and commit the result")
	}

	ctx := context.Background()
	auth := func(_ context.Context, req *http.Request) error {
		req.SetBasicAuth(string(models.RoleEditor), e.passwords[models.RoleEditor])
		return nil
	}
	c, err := apiclient.NewClientWithResponses("http://example.test/cal/events/v1", apiclient.WithHTTPClient(appDoer{e.App}),
		apiclient.WithRequestEditorFn(auth))
	if err != nil {
		t.Fatal(err)
	}
	title, start, end := "Generated", day(2)+" 10:00:00", day(2)+" 12:00:00"
	// The shapes /doc describes for terms and costs: a category by name,
	// a cost as text.
	var cats apiclient.CreateEventJSONBody_Categories
	var cost apiclient.CreateEventJSONBody_Cost
	var costText apiclient.CreateEventJSONBodyCost0
	if err := errors.Join(cats.FromCreateEventJSONBodyCategories2("Music"), costText.FromCreateEventJSONBodyCost00("¥1,000～¥3,000"),
		cost.FromCreateEventJSONBodyCost0(costText)); err != nil {
		t.Fatal(err)
	}
	created, err := c.CreateEventWithResponse(ctx, nil, apiclient.CreateEventJSONRequestBody{Title: title, StartDate: start, EndDate: end,
		Categories: &cats, Cost: &cost})
	if err != nil || created.StatusCode() != http.StatusCreated || created.JSON201 == nil || created.JSON201.Title == nil || *created.JSON201.Title != title {
		t.Fatalf("create through the generated client: %v %d %s", err, created.StatusCode(), created.Body)
	}
	list, err := c.ListEventsWithResponse(ctx, &apiclient.ListEventsParams{})
	if err != nil || list.StatusCode() != http.StatusOK || list.JSON200 == nil || list.JSON200.Events == nil || len(*list.JSON200.Events) != 1 {
		t.Fatalf("list through the generated client: %v %d %.300s", err, list.StatusCode(), list.Body)
	}
	ev := (*list.JSON200.Events)[0]
	if ev.Title == nil || *ev.Title != title || ev.Categories == nil || len(*ev.Categories) != 1 || ev.Cost == nil || *ev.Cost != "¥1,000 – ¥3,000" {
		t.Errorf("listed event: title %v, categories %v, cost %v", ev.Title, ev.Categories, ev.Cost)
	}
}
