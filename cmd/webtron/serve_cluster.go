//go:build !js

package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"webtron/cluster"
	"webtron/server"
)

// clusterFlags are serve's flags for running as one node of many
// (docs/deploy.md). With none of them set the server is a single node and
// starts no NATS at all.
type clusterFlags struct {
	nats, natsCluster, natsRoutes, publicURL, nodeName string
	replicas                                           int
	drain                                              time.Duration
}

func (f *clusterFlags) register(fs *flag.FlagSet) map[string]string {
	fs.StringVar(&f.nats, "nats", "", "join a cluster through these NATS servers (nats://HOST:PORT,...), as a client")
	fs.StringVar(&f.natsCluster, "nats-cluster", "", "embedded NATS server's route port (HOST:PORT): nodes form the NATS cluster among themselves")
	fs.StringVar(&f.natsRoutes, "nats-routes", "", "the other nodes' route ports (nats://HOST:PORT,...), with --nats-cluster")
	fs.StringVar(&f.publicURL, "public-url", "", "where players and other nodes reach this node (http(s)://host:port; default http://HOSTNAME:PORT)")
	fs.StringVar(&f.nodeName, "node-name", "", "this node's name in the cluster (default: the host name)")
	fs.IntVar(&f.replicas, "nats-replicas", 0, "replicas of the room lease bucket (0: 3 in a cluster, 1 alone)")
	fs.DurationVar(&f.drain, "drain-timeout", 60*time.Second, "on SIGTERM, how long a cluster node lets rounds in progress finish before closing their rooms")
	return map[string]string{"nats": "WEBTRON_NATS", "nats-cluster": "WEBTRON_NATS_CLUSTER", "nats-routes": "WEBTRON_NATS_ROUTES",
		"public-url": "WEBTRON_PUBLIC_URL", "node-name": "WEBTRON_NODE_NAME", "nats-replicas": "WEBTRON_NATS_REPLICAS",
		"drain-timeout": "WEBTRON_DRAIN_TIMEOUT"}
}

// enabled reports whether any flag asks for a cluster.
func (f *clusterFlags) enabled() bool {
	return f.nats != "" || f.natsCluster != "" || f.natsRoutes != ""
}

// options turns the flags into the cluster's options; nil for a single node.
func (f *clusterFlags) options(addr, data string) (*cluster.Options, error) {
	if !f.enabled() {
		if f.publicURL != "" || f.nodeName != "" {
			return nil, fmt.Errorf("--public-url and --node-name need --nats or --nats-cluster")
		}
		return nil, nil
	}
	if f.drain <= 0 {
		return nil, fmt.Errorf("--drain-timeout %v: must be positive", f.drain)
	}
	o := &cluster.Options{Name: f.nodeName, PublicURL: f.publicURL, ClusterAddr: f.natsCluster,
		NATS: splitList(f.nats), Routes: splitList(f.natsRoutes), Replicas: f.replicas}
	if o.Name == "" {
		h, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("--node-name: no host name to default to: %w", err)
		}
		o.Name = h
	}
	if o.PublicURL == "" {
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, fmt.Errorf("--public-url: cannot derive it from --addr %q: %w", addr, err)
		}
		h, _ := os.Hostname()
		o.PublicURL = "http://" + net.JoinHostPort(h, port)
	}
	if len(o.NATS) == 0 {
		if data == "" {
			return nil, fmt.Errorf("an embedded NATS server keeps its JetStream store under --data: give one")
		}
		o.StoreDir = filepath.Join(data, "nats", o.Name)
	}
	return o, nil
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// drain lets a cluster node's rounds finish before it shuts down.
func drain(srv *server.Server, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	srv.Drain(ctx)
}
