//go:build !js

package main

import (
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
	cfg, opt, err := parseServe([]string{"--addr", "127.0.0.1:9001", "--data", "/tmp/x", "--node-name", "a",
		"--nats-cluster", "127.0.0.1:9101", "--nats-routes", "nats://127.0.0.1:9101, nats://127.0.0.1:9102", "--drain-timeout", "9s"})
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Cluster
	if c == nil || c.Name != "a" || c.ClusterAddr != "127.0.0.1:9101" || len(c.Routes) != 2 || c.StoreDir != "/tmp/x/nats/a" ||
		!strings.HasSuffix(c.PublicURL, ":9001") || opt.drain.Seconds() != 9 {
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
