// Package ociimage builds Kalends' container image without a container
// daemon: an OCI image layout holding an index of linux/amd64 and
// linux/arm64, written as one tar (an "OCI archive", what `podman load`
// and `skopeo copy oci-archive:` read).
//
// Each platform's image is one layer on nothing (no base image): the
// static binary at /kalends, a CA bundle at /etc/ssl/certs (imports and
// webhooks call HTTPS; Go's crypto/x509 reads that path on Linux, and
// SSL_CERT_FILE names it too), /data for the SQLite file and uploads,
// owned by the user the image runs as, and /tmp.
//
// The archive is reproducible: every time in it (file times, the config's
// created time, the archive's own entries) is the commit's date, and
// nothing else varies, so two builds of one commit give the same digests.
package ociimage

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/x509"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// What the image holds and how it runs.
const (
	// UID and GID the image runs as: not root, and the number distroless
	// images call nonroot, so a volume prepared for one fits the other.
	UID = 65532
	GID = 65532
	// BinaryPath is where the binary goes; it is the entrypoint.
	BinaryPath = "/kalends"
	// CAPath is where the CA bundle goes: the first file Go's crypto/x509
	// tries on Linux, and what SSL_CERT_FILE names.
	CAPath = "/etc/ssl/certs/ca-certificates.crt"
	// DataDir holds the SQLite file (and, beside it, uploaded images); it
	// is the working directory and a volume.
	DataDir = "/data"
	// Port is the port kalends listens on in the container.
	Port = "8080"
)

// Env is the environment the image sets: kalends listens on every address
// of the container (its default 127.0.0.1 would be unreachable from
// outside), keeps its database in the volume, and finds the CA bundle.
var Env = []string{
	"KALENDS_ADDR=0.0.0.0:" + Port,
	"KALENDS_DB=sqlite:" + DataDir + "/kalends.db",
	"SSL_CERT_FILE=" + CAPath,
}

// Options says what to build from and where to write it.
type Options struct {
	AMD64, ARM64 string    // static linux binaries (make release's dist/kalends-*-linux-*)
	CABundle     string    // PEM file of CA certificates
	Version      string    // kalends version (a label, and the archive's reference name)
	Commit       string    // git commit (a label)
	Created      time.Time // the commit's date: every time in the archive
	Source       string    // repository URL (a label; left out when empty)
	Out          string    // the archive to write
}

// Build writes the archive named by o.Out (through a temporary file beside
// it, renamed at the end) and returns the digest of the multi-platform
// index, the name the image goes by in a registry.
func Build(o Options) (v1.Hash, error) {
	var none v1.Hash
	if o.Created.IsZero() {
		return none, errors.New("image: no creation date (the commit's date, RFC 3339)")
	}
	if o.Version == "" || o.Commit == "" {
		return none, errors.New("image: the version and the commit are needed (they become labels)")
	}
	created := o.Created.UTC().Truncate(time.Second)
	ca, err := readCABundle(o.CABundle)
	if err != nil {
		return none, err
	}
	platforms := []struct{ arch, bin string }{{"amd64", o.AMD64}, {"arm64", o.ARM64}}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range platforms {
		img, err := platformImage(p.arch, p.bin, ca, created, o)
		if err != nil {
			return none, err
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: p.arch}},
		})
	}
	digest, err := idx.Digest()
	if err != nil {
		return none, fmt.Errorf("image: index digest: %w", err)
	}
	// index.json names one thing, the multi-platform index, tagged with
	// the version: tools that read an archive pick the platform they run
	// on from it, as from a registry.
	top := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), mutate.IndexAddendum{
		Add: idx,
		Descriptor: v1.Descriptor{Annotations: map[string]string{
			"org.opencontainers.image.ref.name": "kalends:" + tag(o.Version),
		}},
	})
	dir, err := os.MkdirTemp("", "kalends-image-")
	if err != nil {
		return none, fmt.Errorf("image: %w", err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	if _, err := layout.Write(dir, top); err != nil {
		return none, fmt.Errorf("image: write the layout: %w", err)
	}
	if err := writeArchive(dir, o.Out, created); err != nil {
		return none, err
	}
	return digest, nil
}

// tag makes a version a valid image tag (podman names the loaded image
// localhost/kalends:TAG): characters a tag cannot hold, such as semver's
// +, become -, and it is cut to 128 characters.
func tag(version string) string {
	t := []byte(version)
	for i, c := range t {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' ||
			i > 0 && (c == '.' || c == '-')
		if !ok {
			t[i] = '-'
		}
	}
	if t[0] == '-' {
		t[0] = '_'
	}
	return string(t[:min(len(t), 128)])
}

// readCABundle reads the bundle and checks that it holds certificates.
func readCABundle(path string) ([]byte, error) {
	if path == "" {
		return nil, errors.New("image: no CA bundle given")
	}
	b, err := os.ReadFile(path) //nolint:gosec // G304: the bundle the caller named
	if err != nil {
		return nil, fmt.Errorf("image: CA bundle: %w (on Debian and Ubuntu: apt-get install ca-certificates; or name one with -ca)", err)
	}
	if !x509.NewCertPool().AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("image: CA bundle %s holds no PEM certificate", path)
	}
	return b, nil
}

// checkBinary refuses what would not run in the image: a binary for
// another machine, or one that needs a dynamic loader and libraries the
// image does not have (a build with cgo).
func checkBinary(path, arch string) ([]byte, error) {
	if path == "" {
		return nil, fmt.Errorf("image: no linux/%s binary given", arch)
	}
	b, err := os.ReadFile(path) //nolint:gosec // G304: the binary the caller named
	if err != nil {
		return nil, fmt.Errorf("image: linux/%s binary: %w", arch, err)
	}
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("image: %s is not a Linux (ELF) binary: %w", path, err)
	}
	want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[arch]
	if f.Machine != want {
		return nil, fmt.Errorf("image: %s is built for %v, not linux/%s", path, f.Machine, arch)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return nil, fmt.Errorf("image: %s is linked dynamically; build it with CGO_ENABLED=0 (make release does)", path)
		}
	}
	return b, nil
}

// platformImage is the image of one platform: its layer and its config.
func platformImage(arch, bin string, ca []byte, created time.Time, o Options) (v1.Image, error) {
	b, err := checkBinary(bin, arch)
	if err != nil {
		return nil, err
	}
	rootfs, err := layerTar(b, ca, created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(rootfs)), nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressionLevel(gzip.DefaultCompression), tarball.WithCompressedCaching)
	if err != nil {
		return nil, fmt.Errorf("image: layer: %w", err)
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{Layer: layer, History: v1.History{
		Created:   v1.Time{Time: created},
		CreatedBy: "scripts/image: the static binary, a CA bundle, /data and /tmp",
	}})
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	cfg = cfg.DeepCopy()
	cfg.Created = v1.Time{Time: created}
	cfg.OS, cfg.Architecture = "linux", arch
	labels := map[string]string{
		"org.opencontainers.image.title":    "Kalends",
		"org.opencontainers.image.version":  o.Version,
		"org.opencontainers.image.revision": o.Commit,
		"org.opencontainers.image.created":  created.Format(time.RFC3339),
	}
	if o.Source != "" {
		labels["org.opencontainers.image.source"] = o.Source
	}
	cfg.Config = v1.Config{
		Entrypoint:   []string{BinaryPath},
		Cmd:          []string{"serve"},
		WorkingDir:   DataDir,
		User:         fmt.Sprintf("%d:%d", UID, GID),
		Env:          Env,
		ExposedPorts: map[string]struct{}{Port + "/tcp": {}},
		Volumes:      map[string]struct{}{DataDir: {}},
		Labels:       labels,
	}
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return nil, fmt.Errorf("image: config: %w", err)
	}
	return img, nil
}

// layerTar is the uncompressed layer: parents before children, each with
// the same time and explicit owners.
func layerTar(bin, ca []byte, created time.Time) ([]byte, error) {
	entries := []struct {
		hdr  tar.Header
		body []byte
	}{
		{tar.Header{Name: "data/", Typeflag: tar.TypeDir, Mode: 0o755, Uid: UID, Gid: GID}, nil},
		{tar.Header{Name: "etc/", Typeflag: tar.TypeDir, Mode: 0o755}, nil},
		{tar.Header{Name: "etc/ssl/", Typeflag: tar.TypeDir, Mode: 0o755}, nil},
		{tar.Header{Name: "etc/ssl/certs/", Typeflag: tar.TypeDir, Mode: 0o755}, nil},
		{tar.Header{Name: CAPath[1:], Typeflag: tar.TypeReg, Mode: 0o644}, ca},
		{tar.Header{Name: BinaryPath[1:], Typeflag: tar.TypeReg, Mode: 0o755}, bin},
		{tar.Header{Name: "tmp/", Typeflag: tar.TypeDir, Mode: 0o1777}, nil},
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := e.hdr
		h.ModTime, h.Size, h.Format = created, int64(len(e.body)), tar.FormatPAX
		if err := tw.WriteHeader(&h); err != nil {
			return nil, fmt.Errorf("image: layer %s: %w", h.Name, err)
		}
		if _, err := tw.Write(e.body); err != nil {
			return nil, fmt.Errorf("image: layer %s: %w", h.Name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("image: layer: %w", err)
	}
	return buf.Bytes(), nil
}

// writeArchive tars the layout directory into out: names sorted, one time,
// root's owner, so the archive's bytes depend on the layout's alone.
func writeArchive(dir, out string, created time.Time) error {
	var names []string
	err := filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != dir {
			names = append(names, path)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("image: %w", err)
	}
	sort.Strings(names)
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+"-*")
	if err != nil {
		return fmt.Errorf("image: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	tw := tar.NewWriter(tmp)
	for _, path := range names {
		if err := addFile(tw, dir, path, created); err != nil {
			_ = tmp.Close()
			return err
		}
	}
	if err := tw.Close(); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("image: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("image: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("image: %w", err)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return fmt.Errorf("image: %w", err)
	}
	return nil
}

func addFile(tw *tar.Writer, dir, path string, created time.Time) error {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return fmt.Errorf("image: %w", err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("image: %w", err)
	}
	h := &tar.Header{Name: filepath.ToSlash(rel), ModTime: created, Format: tar.FormatPAX}
	if fi.IsDir() {
		h.Typeflag, h.Name, h.Mode = tar.TypeDir, h.Name+"/", 0o755
		return tw.WriteHeader(h)
	}
	h.Typeflag, h.Mode, h.Size = tar.TypeReg, 0o644, fi.Size()
	if err := tw.WriteHeader(h); err != nil {
		return fmt.Errorf("image: %w", err)
	}
	f, err := os.Open(path) //nolint:gosec // G304: a file of the layout just written
	if err != nil {
		return fmt.Errorf("image: %w", err)
	}
	defer func() { _ = f.Close() }()
	if _, err := io.Copy(tw, f); err != nil {
		return fmt.Errorf("image: %s: %w", rel, err)
	}
	return nil
}
