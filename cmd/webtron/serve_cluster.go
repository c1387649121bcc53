//go:build !js

package main

import (
	"bytes"
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
// starts no NATS at all. Secrets are never flags (a command line is
// visible to every local user): the cluster secret and a NATS password come
// from files or the environment.
type clusterFlags struct {
	nats, natsCluster, natsRoutes, publicURL, nodeName string
	secretFile, creds, nkey, user, passwordFile        string
	ca, cert, key                                      string
	replicas                                           int
	drain                                              time.Duration
	durable, writeAhead                                bool
}

// Environment variables that hold secrets themselves (no flag names them).
const (
	envSecret   = "WEBTRON_NATS_SECRET"
	envPassword = "WEBTRON_NATS_PASSWORD"
)

func (f *clusterFlags) register(fs *flag.FlagSet) map[string]string {
	fs.StringVar(&f.nats, "nats", "", "join a cluster through these NATS servers (nats://HOST:PORT or tls://HOST:PORT,...), as a client; no credentials in them")
	fs.StringVar(&f.natsCluster, "nats-cluster", "", "embedded NATS server's route port (HOST:PORT): nodes form the NATS cluster among themselves")
	fs.StringVar(&f.natsRoutes, "nats-routes", "", "the other nodes' route ports (nats://HOST:PORT,...), with --nats-cluster")
	fs.StringVar(&f.secretFile, "nats-secret-file", "", "file holding the cluster secret, the same on every node (or "+envSecret+" holds it): routes' authorization and TLS, signed heartbeats")
	fs.StringVar(&f.creds, "nats-creds", "", "with --nats: NATS credentials file (user JWT and nkey seed)")
	fs.StringVar(&f.nkey, "nats-nkey", "", "with --nats: NATS nkey seed file")
	fs.StringVar(&f.user, "nats-user", "", "with --nats: NATS user; its password from --nats-password-file or "+envPassword)
	fs.StringVar(&f.passwordFile, "nats-password-file", "", "file holding the password of --nats-user")
	fs.StringVar(&f.ca, "nats-ca", "", "with --nats: CA of the NATS servers' certificates (PEM); with --nats-cluster: CA of the route certificates")
	fs.StringVar(&f.cert, "nats-cert", "", "with --nats: client certificate (PEM); with --nats-cluster: route certificate, in place of the one made from the secret")
	fs.StringVar(&f.key, "nats-key", "", "key of --nats-cert (PEM)")
	fs.StringVar(&f.publicURL, "public-url", "", "where players and other nodes reach this node (http(s)://host:port; default http://HOSTNAME:PORT)")
	fs.StringVar(&f.nodeName, "node-name", "", "this node's name in the cluster (default: the host name)")
	fs.IntVar(&f.replicas, "nats-replicas", 0, "replicas of the room lease bucket (0: 3 in a cluster, 1 alone)")
	fs.DurationVar(&f.drain, "drain-timeout", 60*time.Second, "on SIGTERM, how long a cluster node lets the rounds of rooms it cannot hand to another node (--durable-rooms=false, no other node) finish before closing them")
	fs.BoolVar(&f.durable, "durable-rooms", true, "in a cluster, replicate each room's history as it is made, so that another node carries its round on when this one dies (false: rooms die with their node)")
	fs.BoolVar(&f.writeAhead, "write-ahead", false, "with --durable-rooms, send nothing of a room until the cluster has stored the history it follows (write-ahead; default: broadcast first, hold only finality; docs/netcode.md)")
	return map[string]string{"nats": "WEBTRON_NATS", "nats-cluster": "WEBTRON_NATS_CLUSTER", "nats-routes": "WEBTRON_NATS_ROUTES",
		"nats-secret-file": "WEBTRON_NATS_SECRET_FILE", "nats-creds": "WEBTRON_NATS_CREDS", "nats-nkey": "WEBTRON_NATS_NKEY",
		"nats-user": "WEBTRON_NATS_USER", "nats-password-file": "WEBTRON_NATS_PASSWORD_FILE",
		"nats-ca": "WEBTRON_NATS_CA", "nats-cert": "WEBTRON_NATS_CERT", "nats-key": "WEBTRON_NATS_KEY",
		"public-url": "WEBTRON_PUBLIC_URL", "node-name": "WEBTRON_NODE_NAME", "nats-replicas": "WEBTRON_NATS_REPLICAS",
		"drain-timeout": "WEBTRON_DRAIN_TIMEOUT", "durable-rooms": "WEBTRON_DURABLE_ROOMS",
		"write-ahead": "WEBTRON_WRITE_AHEAD"}
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
		NATS: splitList(f.nats), Routes: splitList(f.natsRoutes), Replicas: f.replicas,
		Creds: f.creds, NKey: f.nkey, User: f.user, TLS: cluster.TLSFiles{CA: f.ca, Cert: f.cert, Key: f.key}}
	var err error
	if o.Secret, err = secret("the cluster secret", envSecret, "--nats-secret-file", f.secretFile); err != nil {
		return nil, err
	}
	pass, err := secret("the NATS password", envPassword, "--nats-password-file", f.passwordFile)
	if err != nil {
		return nil, err
	}
	if (len(pass) > 0) != (f.user != "") {
		return nil, fmt.Errorf("--nats-user and its password (%s or --nats-password-file) go together", envPassword)
	}
	o.Password = string(pass)
	for _, file := range []struct{ flag, path string }{{"--nats-creds", f.creds}, {"--nats-nkey", f.nkey}, {"--nats-ca", f.ca}, {"--nats-cert", f.cert}, {"--nats-key", f.key}} {
		if file.path == "" {
			continue
		}
		if _, err := os.Stat(file.path); err != nil {
			return nil, fmt.Errorf("%s: %w", file.flag, err)
		}
	}
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

// secret reads a secret from the environment variable env or from the
// file a flag names (not both), trailing white space dropped; nil when
// neither is given.
func secret(what, env, flagName, file string) ([]byte, error) {
	v, inEnv := os.LookupEnv(env)
	switch {
	case inEnv && file != "":
		return nil, fmt.Errorf("%s: both %s and %s are set: give one", what, env, flagName)
	case inEnv:
		if v = strings.TrimSpace(v); v == "" {
			return nil, fmt.Errorf("%s: %s is empty", what, env)
		}
		return []byte(v), nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", what, flagName, err)
		}
		if b = bytes.TrimSpace(b); len(b) == 0 {
			return nil, fmt.Errorf("%s: %s %s is empty", what, flagName, file)
		}
		return b, nil
	}
	return nil, nil
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
