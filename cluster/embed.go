package cluster

import (
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
)

// clusterName is the NATS cluster the embedded servers form.
const clusterName = "webtron"

// startEmbedded runs this node's own NATS server with JetStream. Its only
// client is this process: when clustering, NATS needs a client port open
// before it routes, and that port (on loopback) takes only the holder of
// an nkey made at random for this run, which never leaves the process. Its
// routes, when clustering, are mutual TLS and carry the route password
// (secret.go). It returns the server and the client's nkey.
func startEmbedded(o *Options, k *keys, log *slog.Logger) (*natsserver.Server, nkeys.KeyPair, error) {
	client, err := nkeys.CreateUser()
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: the embedded server's client key: %w", err)
	}
	pub, err := client.PublicKey()
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: the embedded server's client key: %w", err)
	}
	so := &natsserver.Options{
		ServerName: o.Name,
		DontListen: true,
		Nkeys:      []*natsserver.NkeyUser{{Nkey: pub}},
		JetStream:  true,
		StoreDir:   o.StoreDir,
		// Leases are a few hundred bytes each: keep JetStream from
		// reserving most of the machine's memory and disk; replays take
		// what their limit allows.
		JetStreamMaxMemory: 64 << 20,
		JetStreamMaxStore:  1<<30 + o.ReplayBytes,
		NoSigs:             true,
		NoLog:              true,
	}
	if o.ClusterAddr != "" {
		host, port, err := splitHostPort(o.ClusterAddr)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: --nats-cluster: %v", ErrOptions, err)
		}
		tc, err := o.TLS.config(true)
		if !o.TLS.set() {
			tc, err = k.routeTLS(o.Name)
		}
		if err != nil {
			return nil, nil, err
		}
		so.Cluster = natsserver.ClusterOpts{Name: clusterName, Host: host, Port: port,
			Username: routeUser, Password: k.routePass, TLSConfig: tc, TLSTimeout: 5,
			// Routing starts only once a client port is open: give it one
			// on loopback, on a free port, and tell no client about it.
			NoAdvertise: true}
		so.DontListen, so.Host, so.Port = false, "127.0.0.1", -1
		for i, r := range o.Routes {
			u, err := url.Parse(r)
			if err != nil || u.Scheme != "nats" || u.Host == "" || u.Port() == "" {
				return nil, nil, fmt.Errorf("%w: --nats-routes entry %d %q: want nats://HOST:PORT", ErrOptions, i+1, r)
			}
			if u.User != nil {
				return nil, nil, fmt.Errorf("%w: --nats-routes entry %d carries credentials: routes authenticate with the cluster secret", ErrOptions, i+1)
			}
			u.User = url.UserPassword(routeUser, k.routePass)
			so.Routes = append(so.Routes, u)
		}
	}
	quickRaft()
	ns, err := natsserver.NewServer(so)
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: embedded NATS server: %w", err)
	}
	ns.SetLoggerV2(slogLogger{log.With("nats", "server"), k.id}, false, false, false)
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, nil, fmt.Errorf("cluster: embedded NATS server not ready in 10 s (route port %q)", o.ClusterAddr)
	}
	return ns, client, nil
}

func splitHostPort(a string) (string, int, error) {
	host, p, err := net.SplitHostPort(a)
	if err != nil {
		return "", 0, err
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("bad port in %q", a)
	}
	return host, port, nil
}

// slogLogger passes the embedded server's notices and warnings to the
// node's log; its debug and trace lines are dropped. A route refused for
// its credentials or certificate is an error, said in words that point to
// the likely cause.
type slogLogger struct {
	l  *slog.Logger
	id string // the secret's fingerprint
}

// RouteRefused begins the log line of a route that failed its TLS
// handshake or its authorization.
const RouteRefused = "cluster: a NATS route was refused"

func (s slogLogger) Noticef(format string, v ...any) { s.l.Debug(fmt.Sprintf(format, v...)) }
func (s slogLogger) Warnf(format string, v ...any)   { s.errorf(format, v...) }
func (s slogLogger) Fatalf(format string, v ...any)  { s.l.Error(fmt.Sprintf(format, v...)) }
func (s slogLogger) Errorf(format string, v ...any)  { s.errorf(format, v...) }
func (s slogLogger) Debugf(string, ...any)           {}
func (s slogLogger) Tracef(string, ...any)           {}

func (s slogLogger) errorf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	if strings.Contains(msg, " - rid:") && (strings.Contains(msg, "TLS route handshake error") ||
		strings.Contains(msg, "Authorization Violation") || strings.Contains(msg, "authentication error")) {
		s.l.Error(RouteRefused+": the other side is not a node of this cluster, or has another cluster secret "+
			"(WEBTRON_NATS_SECRET or --nats-secret-file: the same on every node) or other route certificates",
			"secret_id", s.id, "detail", msg)
		return
	}
	s.l.Warn(msg) // errors of a route or a client: it retries by itself
}
