// Package deploy holds the deploy files of Kalends (kalends.service,
// Caddyfile, nginx.conf) and their tests: each file is checked by its own
// tool (systemd-analyze, caddy validate, nginx -t), Caddy runs in front of
// a release-built binary, and that binary migrates and serves in an empty
// directory with an empty environment. The container image that
// scripts/image builds is read back and its root file system run in a
// chroot. There is no Go code to import.
package deploy
