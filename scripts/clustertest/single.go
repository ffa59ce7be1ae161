package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// The throughput the issue asks for: the cluster's, through HAProxy, beside
// one instance on one MariaDB server, under the same mixed load (four
// readers, three API writers, the sign-in form poster) for the same steady
// window, measured in the same run on the same machine.

const (
	steadyWarmup = 3 * time.Second  // the load's start, not counted
	steadyWindow = 11 * time.Second // counted (it ends before the first kill, 15 s in)
)

// throughput is a load's rate over a window.
type throughput struct{ reads, writes float64 }

func (t throughput) String() string {
	return fmt.Sprintf("%.0f reads/s and %.1f acknowledged writes/s", t.reads, t.writes)
}

// ackedWrites counts the creates and updates acknowledged so far.
func (st *stats) ackedWrites() int64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	return int64(len(st.ackTimes) + st.updates)
}

// measureSteady waits out the warm-up of a load that started at start, then
// counts its reads and acknowledged writes over steadyWindow.
func measureSteady(ctx context.Context, st *stats, start time.Time) throughput {
	sleep(ctx, time.Until(start.Add(steadyWarmup)))
	r0, w0, t0 := st.reads.Load(), st.ackedWrites(), time.Now()
	sleep(ctx, steadyWindow)
	secs := time.Since(t0).Seconds()
	return throughput{reads: float64(st.reads.Load()-r0) / secs, writes: float64(st.ackedWrites()-w0) / secs}
}

// singleBaseline runs the load against one Kalends instance (the cluster's
// binary, with the cluster instances' options) on a new database of the
// plain MariaDB server KALENDS_TEST_MYSQL_DSN names (make cluster-test starts
// a throwaway one, as make test does), and returns its steady throughput.
func singleBaseline(ctx context.Context, bin string) (throughput, error) {
	dsn := os.Getenv("KALENDS_TEST_MYSQL_DSN")
	if dsn == "" {
		return throughput{}, errors.New("KALENDS_TEST_MYSQL_DSN is not set (make cluster-test starts a MariaDB and sets it)")
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return throughput{}, err
	}
	cfg := mysql.NewConfig()
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	cfg.Net, cfg.Addr, cfg.Timeout = "tcp", u.Host, 5*time.Second
	server, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return throughput{}, err
	}
	defer func() { _ = server.Close() }()
	const name = "kalends_cluster_single"
	for _, q := range []string{"DROP DATABASE IF EXISTS " + name, "CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"} {
		if _, err := server.ExecContext(ctx, q); err != nil {
			return throughput{}, fmt.Errorf("%s: %w", q, err)
		}
	}
	defer func() { _, _ = server.ExecContext(context.WithoutCancel(ctx), "DROP DATABASE IF EXISTS "+name) }()
	u.Path = "/" + name
	db := u.String()

	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return throughput{}, err
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	front := "http://" + addr
	logPath := filepath.Join(os.TempDir(), fmt.Sprintf("kalends-cluster-single-%d.log", os.Getpid()))
	logFile, err := os.Create(logPath) //nolint:gosec // G304: our own log, in the temporary directory
	if err != nil {
		return throughput{}, err
	}
	defer func() { _ = logFile.Close(); _ = os.Remove(logPath) }()
	srv := exec.CommandContext(ctx, bin, "serve", "--addr", addr, "--db", db, "--base-url", front, //nolint:gosec // the kalends binary under test
		"--admin-login", "admin", "--admin-password", "single-instance-password", "--publish-interval", "5s",
		"--cache-check", "250ms", "--write-limit", "0")
	srv.Stdout, srv.Stderr = logFile, logFile
	if err := srv.Start(); err != nil {
		return throughput{}, err
	}
	defer func() { _ = srv.Process.Signal(syscall.SIGTERM); _ = srv.Wait() }()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		res, err := get(front + "/healthz")
		if err == nil {
			_ = res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			log, _ := os.ReadFile(logPath) //nolint:gosec // G304: our own log
			return throughput{}, fmt.Errorf("the single instance did not answer /healthz within 2 minutes:\n%.2000s", log)
		}
		sleep(ctx, 100*time.Millisecond)
	}
	auth, err := appPasswordOf(ctx, bin, db)
	if err != nil {
		return throughput{}, fmt.Errorf("app password: %w", err)
	}

	st := &stats{acked: map[int64]string{}, maybe: map[int64]string{}, writesTo: map[int64]int{}, scheduled: map[int64]bool{}}
	loadCtx, stop := context.WithCancel(ctx)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() { reader(loadCtx, front, i, st) })
	}
	for i := range 3 {
		wg.Go(func() { writer(loadCtx, front, auth, i, st) })
	}
	wg.Go(func() { formPoster(loadCtx, front, st) })
	tp := measureSteady(ctx, st, start)
	stop()
	wg.Wait()
	if n := st.server500.Load(); n > 0 {
		return tp, fmt.Errorf("%d answers 500 from the single instance", n)
	}
	return tp, nil
}

// clusterBinary is the kalends binary the cluster runs.
func clusterBinary(e env) string {
	if *binary != "" {
		return *binary
	}
	return filepath.Join(e["KALENDS_CLUSTER_DIR"], "kalends")
}

// keepBinary copies the kalends binary at path to a temporary file.
func keepBinary(path string) (string, error) {
	b, err := os.ReadFile(path) //nolint:gosec // G304: the cluster's binary
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp("", "kalends-cluster-bin-")
	if err != nil {
		return "", err
	}
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		return "", err
	}
	if err := f.Chmod(0o755); err != nil { //nolint:gosec // G302: an executable
		_ = f.Close()
		return "", err
	}
	return f.Name(), f.Close()
}

// compareThroughput is the summary of the throughput check.
func compareThroughput(ctx context.Context, bin string, cluster throughput) string {
	single, err := singleBaseline(ctx, bin)
	if err != nil {
		fail("single-instance baseline: %v", err)
		return "through HAProxy: " + cluster.String() + "; one instance on one MariaDB: not measured"
	}
	ratio := ""
	if single.reads > 0 && single.writes > 0 {
		ratio = fmt.Sprintf(" (%.2f× the reads, %.2f× the writes)", cluster.reads/single.reads, cluster.writes/single.writes)
	}
	return fmt.Sprintf("over %s of steady load: three instances through HAProxy on Galera, %s; one instance on one MariaDB, %s%s",
		steadyWindow, cluster, single, ratio)
}
