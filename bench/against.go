package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// runAgainst loads this tree's binary and the binary of commit ref in
// turn, rounds times each, every size on calendars of each binary's own
// (seeded by it, kept under -reuse or a temporary directory for the whole
// run), and prints each row's req/s for both, their medians and the ratio:
// the interleaved comparison of issue 34's write budget (make
// bench-writes). Both run without any cache (--cache-size 0): an older
// binary has no --cache-answers, and writes keep no cache warm.
func runAgainst(ctx context.Context, c config, ref string, rounds int) error {
	if rounds < 1 {
		return fmt.Errorf("-rounds %d: at least one", rounds)
	}
	tmp, err := os.MkdirTemp("", "kalends-against-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	oldBin, err := buildCommit(ctx, ref, tmp)
	if err != nil {
		return err
	}
	newBin := filepath.Join(tmp, "kalends-tree")
	build := exec.CommandContext(ctx, "go", "build", "-o", newBin, "./cmd/kalends")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build: %w", err)
	}
	uncachedArgs = "--cache-size 0"
	keep := c.reuse
	if keep == "" {
		keep = tmp
	}
	type side struct{ name, bin, reuse string }
	sides := []side{{ref, oldBin, filepath.Join(keep, "against-"+ref)}, {"this tree", newBin, filepath.Join(keep, "against-tree")}}
	rates := map[string]map[string][]float64{}  // row (size and name) -> side -> req/s per round
	shares := map[string]map[string][]float64{} // the same, as shares of the run's static ceiling
	var rows []string
	for r := range rounds {
		for _, sd := range sides {
			if err := os.MkdirAll(sd.reuse, 0o700); err != nil {
				return err
			}
			cc := c
			cc.bin, cc.reuse = sd.bin, sd.reuse
			fmt.Fprintf(os.Stderr, "round %d of %d: %s\n", r+1, rounds, sd.name)
			rep, err := measure(ctx, cc)
			if err != nil {
				return fmt.Errorf("%s: %w", sd.name, err)
			}
			for _, res := range rep.Results {
				key := fmt.Sprintf("%d | %s", res.Size, res.Name)
				if rates[key] == nil {
					rates[key], shares[key] = map[string][]float64{}, map[string][]float64{}
					rows = append(rows, key)
				}
				rates[key][sd.name] = append(rates[key][sd.name], res.ReqPerS)
				shares[key][sd.name] = append(shares[key][sd.name], res.Ceiling)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s, %d rounds, alternating, each binary on its own calendars\n\n", machine(), rounds)
	fmt.Fprintf(&b, "| events | endpoint | %s req/s | this tree req/s | median %s | median this tree | this tree / %s | the same, each as a share of its run's static ceiling |\n", ref, ref, ref)
	b.WriteString("|---:|---|---|---|---:|---:|---:|---:|\n")
	ratio := func(a, b float64) string {
		if a <= 0 {
			return "—"
		}
		return fmt.Sprintf("%.2f", b/a)
	}
	for _, key := range rows {
		old, cur := rates[key][ref], rates[key]["this tree"]
		mo, mc := medianRate(old), medianRate(cur)
		fmt.Fprintf(&b, "| %s | %s | %s | %.0f | %.0f | %s | %s |\n", key, joinRates(old), joinRates(cur), mo, mc, ratio(mo, mc),
			ratio(medianRate(shares[key][ref]), medianRate(shares[key]["this tree"])))
	}
	b.WriteString("\nThe last column corrects for a machine whose load changed between runs (the static ceiling of each run\n" +
		"serves the same body from memory); on a quiet machine both ratios agree.\n")
	fmt.Print(b.String())
	return nil
}

// buildCommit builds the kalends of git commit ref (from git archive, so
// the work tree is left alone) into dir and returns the binary's path.
func buildCommit(ctx context.Context, ref, dir string) (string, error) {
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o700); err != nil {
		return "", err
	}
	archive := exec.CommandContext(ctx, "sh", "-c", `git archive --format=tar "$1" | tar -x -C "$2"`, "sh", ref, src)
	archive.Stderr = os.Stderr
	if err := archive.Run(); err != nil {
		return "", fmt.Errorf("git archive %s (a clone with its history is needed): %w", ref, err)
	}
	bin := filepath.Join(dir, "kalends-"+strings.ReplaceAll(ref, "/", "-"))
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/kalends")
	build.Dir, build.Stdout, build.Stderr = src, os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("build %s: %w", ref, err)
	}
	return bin, nil
}

func medianRate(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func joinRates(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.0f", x)
	}
	return strings.Join(parts, ", ")
}
