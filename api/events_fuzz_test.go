package api

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// FuzzEventsCreate sends arbitrary JSON bodies to POST /events as an
// administrator: any answer but a 5xx is fine. The committed corpus in
// testdata/fuzz/FuzzEventsCreate holds the interesting hostile cases.
func FuzzEventsCreate(f *testing.F) {
	for _, s := range []string{
		`{"title":"Fuzz","start_date":"2027-01-01 10:00","end_date":"2027-01-01 11:00"}`,
		`{"title":"Fuzz","start_date":"0000-00-00","end_date":"99999-01-01"}`,
		`{"title":"Fuzz","start_date":"2027-01-01","end_date":"2027-01-01","venue":[{"venue":"A"},{"id":1},"2,3"]}`,
		`{"title":"Fuzz","start_date":"2027-01-01","end_date":"2027-01-01","categories":[{"id":"x"},{"name":""},[1]]}`,
		`{"title":"Fuzz","start_date":"2027-01-01","end_date":"2027-01-01","cost":[[1],{"a":1}],"timezone":"UTC+5.75"}`,
	} {
		f.Add(s)
	}
	app, admin := eventsTestApp(f, modelstest.Open(f, models.SQLite))
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest("POST", "/cal/events/v1/events", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.SetBasicAuth("administrator", admin)
		res, err := app.Test(req, -1)
		if err != nil {
			t.Fatalf("request: %v", err)
		}
		_ = res.Body.Close()
		if res.StatusCode >= http.StatusInternalServerError {
			t.Fatalf("status %d for %q", res.StatusCode, body)
		}
	})
}

// eventsTestApp builds the real app on db with an administrator, for
// fuzzing and benchmarks (testEnv needs a *testing.T); it returns the app
// and the administrator's application password.
func eventsTestApp(tb testing.TB, db *models.DB) (*fiber.App, string) {
	tb.Helper()
	bundle, err := i18n.New(nil)
	if err != nil {
		tb.Fatal(err)
	}
	site := &models.Site{BaseURL: "http://example.test", MaxPerPage: 500, Location: time.UTC, DefaultLanguage: "en",
		CurrencySymbol: "$", CurrencyPosition: "prefix", CurrencyCode: "USD"}
	db.UseSite(site)
	d := &Deps{DB: db, I18n: bundle, Logger: slog.New(slog.DiscardHandler), Site: site}
	ctx := context.Background()
	u, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "administrator", Password: "password-administrator",
		Role: models.RoleAdministrator})
	if err != nil {
		tb.Fatal(err)
	}
	pw, _, err := db.CreateAppPassword(ctx, u.ID, "fuzz")
	if err != nil {
		tb.Fatal(err)
	}
	return newTestApp(d, Routes()), pw
}
