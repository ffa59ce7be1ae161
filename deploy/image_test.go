//go:build linux

package deploy_test

import (
	"archive/tar"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"debug/elf"
	binenc "encoding/binary"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"maps"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"

	"github.com/kalends/kalends/models/modelstest"
	"github.com/kalends/kalends/scripts/image/ociimage"
)

const systemCA = "/etc/ssl/certs/ca-certificates.crt"

// The container image (scripts/image): built twice from the same inputs it
// is the same archive byte for byte; read back with go-containerregistry it
// is an index of linux/amd64 and linux/arm64 whose config and files are
// what the README promises; and its amd64 root file system runs kalends
// the way a container runtime would (a chroot, as user 65532, with the
// image's environment): migrate, then serve answering /healthz, and an
// HTTPS call out (an import) that trusts what the image's CA bundle holds.
func TestContainerImage(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(systemCA); err != nil {
		modelstest.MissingDependency(t, "%s (apt-get install ca-certificates)", systemCA)
	}
	dir := t.TempDir()
	amd64 := binary
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		amd64 = filepath.Join(dir, "kalends-linux-amd64")
		build := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags", "-s -w -buildid=",
			"-o", amd64, "github.com/kalends/kalends/cmd/kalends")
		build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("build linux/amd64: %v\n%s", err, out)
		}
	}
	// The real arm64 binary takes minutes to cross-compile with a cold
	// cache and is never run here: an ELF header saying arm64 stands in
	// for it, enough for the builder's checks and for the index.
	arm64 := filepath.Join(dir, "kalends-linux-arm64")
	if err := os.WriteFile(arm64, arm64Header(t), 0o600); err != nil {
		t.Fatal(err)
	}
	// The image's bundle: the system's and a test CA, whose server on
	// loopback the binary in the image must then trust (and only then).
	testCA, server := tlsServer(t)
	system, err := os.ReadFile(systemCA)
	if err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(bundle, append(slices.Clone(system), testCA...), 0o600); err != nil { //nolint:gosec // G703: a path under t.TempDir()
		t.Fatal(err)
	}
	created := time.Date(2026, 11, 27, 1, 2, 3, 0, time.UTC)
	opts := ociimage.Options{AMD64: amd64, ARM64: arm64, CABundle: bundle, Version: "v9.8.7-test",
		Commit: "0123456789abcdef0123456789abcdef01234567", Created: created, Source: "https://example.org/kalends"}

	// Reproducible: two builds, the same index digest and the same bytes.
	var sums [2][32]byte
	var digests [2]v1.Hash
	for i := range sums {
		opts.Out = filepath.Join(dir, "image"+string(rune('1'+i))+".tar")
		d, err := ociimage.Build(opts)
		if err != nil {
			t.Fatalf("build %d: %v", i+1, err)
		}
		b, err := os.ReadFile(opts.Out)
		if err != nil {
			t.Fatal(err)
		}
		sums[i], digests[i] = sha256.Sum256(b), d
	}
	if digests[0] != digests[1] || sums[0] != sums[1] {
		t.Fatalf("two builds differ: index %s and %s, archive %x and %x", digests[0], digests[1], sums[0], sums[1])
	}
	t.Logf("index %s, archive sha256 %x", digests[0], sums[0])

	// A missing CA bundle is said, not built without.
	bad := opts
	bad.CABundle, bad.Out = filepath.Join(dir, "no-such.crt"), filepath.Join(dir, "bad.tar")
	if _, err := ociimage.Build(bad); err == nil || !strings.Contains(err.Error(), "CA bundle") {
		t.Errorf("build without a CA bundle: %v, want an error naming it", err)
	}
	// A binary for another machine is refused.
	bad = opts
	bad.AMD64, bad.Out = arm64, filepath.Join(dir, "bad.tar")
	if _, err := ociimage.Build(bad); err == nil || !strings.Contains(err.Error(), "not linux/amd64") {
		t.Errorf("build with an arm64 binary as amd64: %v, want a refusal", err)
	}

	// Read back: index.json names one index, tagged, of two platforms.
	layoutDir := filepath.Join(dir, "layout")
	untar(t, opts.Out, layoutDir, false)
	top, err := layout.ImageIndexFromPath(layoutDir)
	if err != nil {
		t.Fatal(err)
	}
	topm, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(topm.Manifests) != 1 || topm.Manifests[0].Digest != digests[0] ||
		topm.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != "kalends:v9.8.7-test" {
		t.Fatalf("index.json: %+v, want one entry, the index %s named kalends:v9.8.7-test", topm.Manifests, digests[0])
	}
	idx, err := top.ImageIndex(digests[0])
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	var platforms []string
	for _, m := range im.Manifests {
		if m.Platform != nil {
			platforms = append(platforms, m.Platform.OS+"/"+m.Platform.Architecture)
		}
	}
	if !slices.Equal(platforms, []string{"linux/amd64", "linux/arm64"}) {
		t.Fatalf("platforms %v, want linux/amd64 and linux/arm64", platforms)
	}
	var amd64Layer []byte
	for i, m := range im.Manifests {
		img, err := idx.Image(m.Digest)
		if err != nil {
			t.Fatal(err)
		}
		arch := m.Platform.Architecture
		checkConfig(t, img, arch, created)
		want := map[string]string{"amd64": amd64, "arm64": arm64}[arch]
		layer := checkLayer(t, img, want, bundle)
		if i == 0 {
			amd64Layer = layer
		}
	}

	// Run it as a container would: its rootfs, its user, its environment.
	if os.Geteuid() != 0 {
		modelstest.MissingDependency(t, "root, to run the image's root file system in a chroot as user 65532")
	}
	chroot := need(t, "chroot", "coreutils")
	rootfs := filepath.Join(dir, "rootfs")
	layerFile := filepath.Join(dir, "layer.tar")
	if err := os.WriteFile(layerFile, amd64Layer, 0o600); err != nil {
		t.Fatal(err)
	}
	untar(t, layerFile, rootfs, true)
	img, _ := idx.Image(im.Manifests[0].Digest)
	cfg, _ := img.ConfigFile()
	addr := freeAddr(t)
	env := append(slices.Clone(cfg.Config.Env), "KALENDS_ADDR="+addr) // the last one wins
	run := func(args ...string) *exec.Cmd {
		cmd := exec.Command(chroot, append([]string{"--userspec=65532:65532", rootfs}, args...)...) //nolint:gosec // G204: the test's own paths
		cmd.Env = env
		return cmd
	}
	if out, err := run(cfg.Config.Entrypoint[0], "migrate").CombinedOutput(); err != nil {
		t.Fatalf("migrate in the image's root: %v\n%s", err, out)
	}
	fi, err := os.Stat(filepath.Join(rootfs, "data", "kalends.db"))
	if err != nil {
		t.Fatalf("migrate made no /data/kalends.db: %v", err)
	}
	if uid, gid := owner(fi); uid != ociimage.UID || gid != ociimage.GID {
		t.Errorf("/data/kalends.db owned by %d:%d, want 65532:65532", uid, gid)
	}
	if out, err := run("/kalends", "user", "create", "--login", "admin", "--password", "correct horse battery staple",
		"--role", "administrator", "--email", "admin@example.org").CombinedOutput(); err != nil {
		t.Fatalf("user create in the image's root: %v\n%s", err, out)
	}
	start(t, run(append(cfg.Config.Entrypoint, cfg.Config.Cmd...)...))
	waitHealthy(t, http.DefaultClient, "http://"+addr+"/healthz")

	// HTTPS from inside: an import from the test CA's server reaches it
	// (what the import then makes of a site that answers 404 does not
	// matter here). With the system's bundle alone in the image's place,
	// the same call fails on the certificate: the binary reads that file.
	imp := func() string {
		out, _ := run("/kalends", "import", "tec", server.URL+"/wp-json", "--allow-private-addresses", "--dry-run").CombinedOutput()
		return string(out)
	}
	if out := imp(); server.requests() == 0 || strings.Contains(out, "x509") {
		t.Errorf("an import from https://%s did not reach it through the image's CA bundle:\n%s", server.Listener.Addr(), out)
	}
	// The import retries with pauses: rather than wait for its last word,
	// the server's side says it (the client refused the certificate), and
	// the process is stopped.
	if err := os.WriteFile(filepath.Join(rootfs, "etc", "ssl", "certs", "ca-certificates.crt"), system, 0o644); err != nil { //nolint:gosec // G306: as in the image
		t.Fatal(err)
	}
	before := server.requests()
	refuse := run("/kalends", "import", "tec", server.URL+"/wp-json", "--allow-private-addresses", "--dry-run")
	out := start(t, refuse)
	modelstest.WaitFor(t, 20*time.Second, func() error {
		if server.refused.Load() == 0 {
			return errors.New("no handshake refused by the client yet; its output: " + out.String())
		}
		return nil
	})
	if server.requests() != before {
		t.Errorf("without the test CA in the image's bundle, the import still reached the server:\n%s", out)
	}
}

// countingServer is an https server on loopback that answers 404 and
// counts the requests it got (a failed handshake gets none).
type countingServer struct {
	*httptest.Server
	n       atomic.Int64
	refused atomic.Int64 // handshakes the client ended because it did not trust the certificate
}

func (s *countingServer) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("TLS handshake error")) && bytes.Contains(p, []byte("bad certificate")) {
		s.refused.Add(1)
	}
	return len(p), nil
}

func (s *countingServer) requests() int64 { return s.n.Load() }

// tlsServer starts an https server whose certificate (for 127.0.0.1) a
// new CA signed, and returns that CA in PEM and the server.
func tlsServer(t *testing.T) ([]byte, *countingServer) {
	t.Helper()
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	caKey, srvKey := key(), key()
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Kalends image test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	srvTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	s := &countingServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.n.Add(1)
		http.NotFound(w, nil)
	}))
	s.TLS = &tls.Config{MinVersion: tls.VersionTLS12,
		Certificates: []tls.Certificate{{Certificate: [][]byte{srvDER}, PrivateKey: srvKey}}}
	s.Config.ErrorLog = log.New(s, "", 0)
	s.StartTLS()
	t.Cleanup(s.Close)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), s
}

// checkConfig checks one platform's config against what README says.
func checkConfig(t *testing.T, img v1.Image, arch string, created time.Time) {
	t.Helper()
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Config
	if cfg.OS != "linux" || cfg.Architecture != arch || !cfg.Created.Equal(created) {
		t.Errorf("%s: os %s, architecture %s, created %v", arch, cfg.OS, cfg.Architecture, cfg.Created)
	}
	if !slices.Equal(c.Entrypoint, []string{"/kalends"}) || !slices.Equal(c.Cmd, []string{"serve"}) ||
		c.WorkingDir != "/data" || c.User != "65532:65532" {
		t.Errorf("%s: entrypoint %q, cmd %q, workdir %q, user %q", arch, c.Entrypoint, c.Cmd, c.WorkingDir, c.User)
	}
	for _, e := range []string{"KALENDS_ADDR=0.0.0.0:8080", "KALENDS_DB=sqlite:/data/kalends.db",
		"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"} {
		if !slices.Contains(c.Env, e) {
			t.Errorf("%s: env %q lacks %s", arch, c.Env, e)
		}
	}
	if _, ok := c.ExposedPorts["8080/tcp"]; !ok || len(c.ExposedPorts) != 1 {
		t.Errorf("%s: exposed ports %v, want 8080/tcp", arch, c.ExposedPorts)
	}
	if _, ok := c.Volumes["/data"]; !ok {
		t.Errorf("%s: volumes %v, want /data", arch, c.Volumes)
	}
	for k, v := range map[string]string{"version": "v9.8.7-test", "revision": "0123456789abcdef0123456789abcdef01234567",
		"created": "2026-11-27T01:02:03Z", "source": "https://example.org/kalends", "title": "Kalends"} {
		if got := c.Labels["org.opencontainers.image."+k]; got != v {
			t.Errorf("%s: label %s is %q, want %q", arch, k, got, v)
		}
	}
}

// checkLayer checks the one layer's digests and files and returns it
// uncompressed.
func checkLayer(t *testing.T, img v1.Image, bin, ca string) []byte {
	t.Helper()
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers %d (%v), want one", len(layers), err)
	}
	l := layers[0]
	if mt, _ := l.MediaType(); mt != "application/vnd.oci.image.layer.v1.tar+gzip" {
		t.Errorf("layer media type %s", mt)
	}
	raw, digest, diffID := readAll(t, l.Compressed), mustHash(l.Digest), mustHash(l.DiffID)
	data := readAll(t, l.Uncompressed)
	if got := sha256.Sum256(raw); digest.Hex != hexOf(got) {
		t.Errorf("layer digest %s, its bytes hash to %x", digest, got)
	}
	if got := sha256.Sum256(data); diffID.Hex != hexOf(got) {
		t.Errorf("layer diff id %s, its tar hashes to %x", diffID, got)
	}
	want, err := os.ReadFile(bin) //nolint:gosec // G304: the test's own binary
	if err != nil {
		t.Fatal(err)
	}
	wantCA, err := os.ReadFile(ca) //nolint:gosec // G304: the test's own bundle
	if err != nil {
		t.Fatal(err)
	}
	type entry struct {
		mode     int64
		uid, gid int
		body     []byte
	}
	files := map[string]entry{}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		files[h.Name] = entry{h.Mode, h.Uid, h.Gid, body}
	}
	for name, w := range map[string]entry{
		"kalends":                           {0o755, 0, 0, want},
		"etc/ssl/certs/ca-certificates.crt": {0o644, 0, 0, wantCA},
		"data/":                             {0o755, 65532, 65532, nil},
		"tmp/":                              {0o1777, 0, 0, nil},
	} {
		f, ok := files[name]
		switch {
		case !ok:
			t.Errorf("the layer has no %s (it has %v)", name, slices.Sorted(maps.Keys(files)))
		case f.mode != w.mode || f.uid != w.uid || f.gid != w.gid:
			t.Errorf("%s: mode %o owner %d:%d, want %o %d:%d", name, f.mode, f.uid, f.gid, w.mode, w.uid, w.gid)
		case w.body != nil && !bytes.Equal(f.body, w.body):
			t.Errorf("%s: not the binary given", name)
		}
	}
	if !x509.NewCertPool().AppendCertsFromPEM(files["etc/ssl/certs/ca-certificates.crt"].body) {
		t.Error("the image's CA bundle holds no PEM certificate")
	}
	return data
}

// untar extracts an archive of regular files and directories; with
// owners, it also sets the owners and modes recorded (as root).
func untar(t *testing.T, archive, dest string, owners bool) {
	t.Helper()
	f, err := os.Open(archive) //nolint:gosec // G304: the test's own file
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if !filepath.IsLocal(h.Name) {
			t.Fatalf("%s: entry %q leaves the archive", archive, h.Name)
		}
		p := filepath.Join(dest, h.Name)    //nolint:gosec // G305: filepath.IsLocal checked it just above
		mode := os.FileMode(h.Mode & 0o777) //nolint:gosec // G115: masked to the permission bits
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, 0o755) //nolint:gosec // G301: the image's directories are 0755 (chmod follows)
		case tar.TypeReg:
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil { //nolint:gosec // G301: as above
				var b []byte
				if b, err = io.ReadAll(tr); err == nil {
					err = os.WriteFile(p, b, 0o600)
				}
			}
		default:
			t.Fatalf("%s: unexpected entry %s (type %c)", archive, h.Name, h.Typeflag)
		}
		if err == nil && owners {
			if h.Mode&0o1000 != 0 {
				mode |= os.ModeSticky
			}
			if err = os.Chmod(p, mode); err == nil {
				err = os.Lchown(p, h.Uid, h.Gid)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// arm64Header is the 64-byte ELF header of a static linux/arm64
// executable, without code.
func arm64Header(t *testing.T) []byte {
	t.Helper()
	h := elf.Header64{Type: uint16(elf.ET_EXEC), Machine: uint16(elf.EM_AARCH64), Version: uint32(elf.EV_CURRENT), Ehsize: 64}
	copy(h.Ident[:], elf.ELFMAG)
	h.Ident[elf.EI_CLASS], h.Ident[elf.EI_DATA], h.Ident[elf.EI_VERSION] = byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)
	var buf bytes.Buffer
	if err := binenc.Write(&buf, binenc.LittleEndian, h); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func readAll(t *testing.T, open func() (io.ReadCloser, error)) []byte {
	t.Helper()
	rc, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rc.Close() }()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustHash(f func() (v1.Hash, error)) v1.Hash {
	h, _ := f()
	return h
}

func hexOf(sum [32]byte) string { return hex.EncodeToString(sum[:]) }

func owner(fi os.FileInfo) (uid, gid int) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return -1, -1
	}
	return int(st.Uid), int(st.Gid)
}
