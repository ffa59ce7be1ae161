package api

import (
	"testing"
	"time"

	"github.com/kalends/kalends/internal/admission"
	"github.com/kalends/kalends/models"
)

// A read that waits its whole turn at a full gate is answered 503 in the
// documented shape and the caller's language, with Retry-After; a write,
// which has slots of its own, goes through; once a slot is free the read
// is served.
func TestBusyGateAnswers503InTheCallersLanguage(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		e.Deps.Gate = admission.New(1, 1, 20*time.Millisecond)
		e.App = newTestApp(e.Deps, Routes())
		release, err := e.Deps.Gate.Enter()
		if err != nil {
			t.Fatal(err)
		}
		for _, lang := range []string{"en", "ja", "ko", "zh-hans"} {
			res := e.do(t, "GET", "/cal/events/v1/events?ml_language="+lang, nil, models.RoleAdministrator)
			body, _ := res.JSON(t).(map[string]any)
			want := e.Deps.I18n.T(lang, "error.server_busy", nil)
			if res.Status != 503 || res.Code(t) != "service_unavailable" || body["message"] != want || res.Header.Get("Retry-After") != "1" {
				t.Errorf("%s at a full gate: %d %v %s, want 503 service_unavailable %q with Retry-After", lang, res.Status, res.Header, res.Body, want)
			}
		}
		// Writes have slots of their own.
		if res := e.do(t, "POST", "/cal/events/v1/events", map[string]any{"title": "Written while busy",
			"start_date": "2030-01-02 10:00:00", "end_date": "2030-01-02 11:00:00"}, models.RoleAdministrator); res.Status != 201 {
			t.Errorf("a write at a full gate: %d %s", res.Status, res.Body)
		}
		release()
		if res := e.do(t, "GET", "/cal/events/v1/events", nil, ""); res.Status != 200 {
			t.Errorf("with a free slot: %d %s", res.Status, res.Body)
		}
	})
}
