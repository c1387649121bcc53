//go:build !js

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeClusterFlags: no cluster flag is a single node (no NATS at all);
// the cluster flags fill the node's options; contradictions are errors that
// name the flags.
func TestServeClusterFlags(t *testing.T) {
	cfg, _, err := parseServe(nil)
	if err != nil || cfg.Cluster != nil {
		t.Fatalf("no flags: cluster %+v, err %v; want a single node", cfg.Cluster, err)
	}
	t.Setenv(envSecret, " from-the-environment-0123456789\n")
	cfg, opt, err := parseServe([]string{"--addr", "127.0.0.1:9001", "--data", "/tmp/x", "--node-name", "a",
		"--nats-cluster", "127.0.0.1:9101", "--nats-routes", "nats://127.0.0.1:9101, nats://127.0.0.1:9102", "--drain-timeout", "9s"})
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Cluster
	if c == nil || c.Name != "a" || c.ClusterAddr != "127.0.0.1:9101" || len(c.Routes) != 2 || c.StoreDir != "/tmp/x/nats/a" ||
		!strings.HasSuffix(c.PublicURL, ":9001") || opt.drain.Seconds() != 9 || string(c.Secret) != "from-the-environment-0123456789" {
		t.Fatalf("cluster options %+v, drain %v", c, opt.drain)
	}
	cfg, _, err = parseServe([]string{"--nats", "nats://n1:4222,nats://n2:4222", "--public-url", "https://a.example.com"})
	if err != nil || len(cfg.Cluster.NATS) != 2 || cfg.Cluster.StoreDir != "" || cfg.Cluster.PublicURL != "https://a.example.com" {
		t.Fatalf("--nats: %+v %v", cfg.Cluster, err)
	}
	for _, args := range [][]string{
		{"--public-url", "http://a:1"},
		{"--node-name", "a"},
		{"--nats-cluster", "127.0.0.1:1", "--data", ""},
		{"--nats", "nats://x:1", "--drain-timeout", "0s"},
	} {
		if _, _, err := parseServe(args); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

// TestServeClusterSecrets: the cluster secret and a NATS password come from
// the environment or from files, never from a flag's value; the other NATS
// settings are files, checked at start.
func TestServeClusterSecrets(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	secretFile, passFile, creds := file("secret", "from-a-file-0123456789\n"), file("pass", "hunter2\n"), file("creds", "x")
	ca, cert, key := file("ca", "x"), file("cert", "x"), file("key", "x")
	cfg, _, err := parseServe([]string{"--nats", "tls://n1:4222", "--nats-secret-file", secretFile, "--nats-user", "webtron",
		"--nats-password-file", passFile, "--nats-ca", ca, "--nats-cert", cert, "--nats-key", key})
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Cluster
	if string(c.Secret) != "from-a-file-0123456789" || c.User != "webtron" || c.Password != "hunter2" ||
		c.TLS.CA != ca || c.TLS.Cert != cert || c.TLS.Key != key {
		t.Fatalf("options %+v", c)
	}
	t.Setenv(envPassword, "from-env")
	if cfg, _, err = parseServe([]string{"--nats", "nats://n1:4222", "--nats-secret-file", secretFile, "--nats-user", "webtron"}); err != nil || cfg.Cluster.Password != "from-env" {
		t.Fatalf("password from %s: %+v %v", envPassword, cfg.Cluster, err)
	}
	os.Unsetenv(envPassword)
	if cfg, _, err = parseServe([]string{"--nats", "nats://n1:4222", "--nats-secret-file", secretFile, "--nats-creds", creds}); err != nil || cfg.Cluster.Creds != creds {
		t.Fatalf("--nats-creds: %+v %v", cfg.Cluster, err)
	}
	t.Setenv(envSecret, "from-the-environment-0123456789")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--nats", "nats://n1:4222", "--nats-secret-file", secretFile}, "both " + envSecret},
		{[]string{"--nats", "nats://n1:4222", "--nats-user", "webtron"}, "go together"},
		{[]string{"--nats", "nats://n1:4222", "--nats-password-file", passFile}, "go together"},
		{[]string{"--nats", "nats://n1:4222", "--nats-creds", filepath.Join(dir, "missing")}, "--nats-creds"},
		{[]string{"--nats", "nats://n1:4222", "--nats-ca", filepath.Join(dir, "missing")}, "--nats-ca"},
	} {
		if _, _, err := parseServe(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one saying %q", c.args, err, c.want)
		}
	}
	os.Unsetenv(envSecret)
	if _, _, err := parseServe([]string{"--nats", "nats://n1:4222", "--nats-secret-file", file("empty", "\n")}); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("an empty secret file: %v", err)
	}
}
