package main

import (
	"strings"
	"testing"
)

const wrkOutput = `Running 6s test @ http://127.0.0.1:18090/cal/events/v1/events
  2 threads and 16 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    83.42ms   61.23ms 370.60ms   80.12%
    Req/Sec    96.16     38.96   170.00     67.50%
  Latency Distribution
     50%   75.17ms
     75%  101.23ms
     90%  150.00ms
     99%  370.60ms
  1152 requests in 6.01s, 345.10MB read
  Socket errors: connect 0, read 2, write 0, timeout 3
  Non-2xx or 3xx responses: 4
Requests/sec:    191.60
Transfer/sec:     57.42MB
`

func TestParseWrk(t *testing.T) {
	r, err := parseWrk(wrkOutput)
	if err != nil {
		t.Fatal(err)
	}
	if r.ReqPerS != 191.60 || r.P50Ms != 75.17 || r.P99Ms != 370.60 || r.Requests != 1152 || r.Errors != 9 {
		t.Errorf("parsed %+v", r)
	}
	if read := 345.10 * (1 << 20); r.Bytes != int64(read/1152) {
		t.Errorf("bytes per response %d", r.Bytes)
	}
	if _, err := parseWrk("unable to connect"); err == nil {
		t.Error("output without a rate was accepted")
	}
}

func TestUnits(t *testing.T) {
	for s, want := range map[string]float64{"850.00us": 0.85, "1.20ms": 1.2, "1.05s": 1050, "2.00m": 120000} {
		if got := durationMs(s); got < want-1e-9 || got > want+1e-9 {
			t.Errorf("durationMs(%s) = %v, want %v", s, got, want)
		}
	}
	for s, want := range map[string]float64{"512B": 512, "2.00KB": 2048, "1.00MB": 1 << 20} {
		if got := sizeBytes(s); got != want {
			t.Errorf("sizeBytes(%s) = %v, want %v", s, got, want)
		}
	}
}

func TestTableComparesWithTheBaseline(t *testing.T) {
	now := Report{Machine: "m", DB: "sqlite", Results: []Result{{Size: 10, Name: "list", ReqPerS: 150, Ceiling: 0.5, Queries: 6}},
		Sizes: []Size{{Events: 10, Series: 1, SeedS: 2.4, DBBytes: 3 << 20}, {Events: 20, Reused: true, DBBytes: 5 << 20}}}
	base := &Report{Results: []Result{{Size: 10, Name: "list", ReqPerS: 100}}}
	out := renderTable(now, base)
	if !strings.Contains(out, "| 10 | list | 150 | 50.0% |") || !strings.Contains(out, "+50%") || !strings.Contains(out, "| 6.0 |") ||
		!strings.Contains(out, "| 10 | 1 | 2 | 3 |") || !strings.Contains(out, "| 20 | 0 | reused | 5 |") {
		t.Errorf("table:\n%s", out)
	}
}

// TestFillURLsAreDistinct: the cache fill step must not ask for one answer
// twice, or it measures hits instead of filling.
func TestFillURLsAreDistinct(t *testing.T) {
	seen := map[string]int{}
	for i := range 10000 {
		u := fillURL(i, searchWords)
		if j, ok := seen[u]; ok {
			t.Fatalf("URL %d repeats URL %d: %s", i, j, u)
		}
		seen[u] = i
	}
}
