package main

import (
	"fmt"
	"runtime"
	"strings"
)

func numCPU() int { return runtime.NumCPU() }

// renderTable prints the results as a Markdown table, with the change of
// req/s against the baseline where it has the same row.
func renderTable(rep Report, base *Report) string {
	old := map[string]Result{}
	if base != nil {
		for _, r := range base.Results {
			old[fmt.Sprint(r.Size, "/", r.Name)] = r
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s, %s, %s\n\n", rep.Machine, rep.DB, rep.When)
	b.WriteString("| events | endpoint | req/s | vs static | p50 ms | p99 ms | bytes | errors | RssAnon MB | VmHWM MB | SQL/req | vs baseline |\n")
	b.WriteString("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rep.Results {
		change := ""
		if o, ok := old[fmt.Sprint(r.Size, "/", r.Name)]; ok && o.ReqPerS > 0 {
			change = fmt.Sprintf("%+.0f%%", (r.ReqPerS/o.ReqPerS-1)*100)
		}
		queries := "—"
		if r.Queries > 0 {
			queries = fmt.Sprintf("%.1f", r.Queries)
		}
		fmt.Fprintf(&b, "| %d | %s | %.0f | %.1f%% | %.2f | %.2f | %d | %d | %.0f | %.0f | %s | %s |\n",
			r.Size, r.Name, r.ReqPerS, r.Ceiling*100, r.P50Ms, r.P99Ms, r.Bytes, r.Errors,
			float64(r.RSSAnon)/1024, float64(r.VMHWM)/1024, queries, change)
	}
	if len(rep.Sizes) > 0 {
		b.WriteString("\n| events | series | seed s | database MB |\n|---:|---:|---:|---:|\n")
		for _, s := range rep.Sizes {
			seed := fmt.Sprintf("%.0f", s.SeedS)
			if s.Reused {
				seed = "reused"
			}
			fmt.Fprintf(&b, "| %d | %d | %s | %.0f |\n", s.Events, s.Series, seed, float64(s.DBBytes)/(1<<20))
		}
	}
	fmt.Fprintf(&b, "\nwhole run: %.0f s\n", rep.Took)
	return b.String()
}
