package cluster

import (
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
)

// clusterName is the NATS cluster the embedded servers form.
const clusterName = "webtron"

// startEmbedded runs this node's own NATS server with JetStream. It listens
// for clients only when Options.ClientAddr asks it to, and on the route port
// only when clustering.
func startEmbedded(o *Options, log *slog.Logger) (*natsserver.Server, error) {
	so := &natsserver.Options{
		ServerName: o.Name,
		DontListen: o.ClientAddr == "",
		JetStream:  true,
		StoreDir:   o.StoreDir,
		// Leases are a few hundred bytes each: keep JetStream from
		// reserving most of the machine's memory and disk.
		JetStreamMaxMemory: 64 << 20,
		JetStreamMaxStore:  1 << 30,
		NoSigs:             true,
		NoLog:              true,
	}
	if o.ClientAddr != "" {
		host, port, err := splitHostPort(o.ClientAddr)
		if err != nil {
			return nil, fmt.Errorf("%w: NATS client address: %v", ErrOptions, err)
		}
		so.Host, so.Port = host, port
	}
	if o.ClusterAddr != "" {
		host, port, err := splitHostPort(o.ClusterAddr)
		if err != nil {
			return nil, fmt.Errorf("%w: --nats-cluster: %v", ErrOptions, err)
		}
		so.Cluster = natsserver.ClusterOpts{Name: clusterName, Host: host, Port: port}
		if so.DontListen {
			// Routing starts only once a client port is open: give it one
			// on loopback, on a free port, and tell no client about it.
			so.DontListen, so.Host, so.Port, so.Cluster.NoAdvertise = false, "127.0.0.1", -1, true
		}
		so.Routes = natsserver.RoutesFromStr(strings.Join(o.Routes, ","))
		for i, r := range so.Routes {
			if r == nil || r.Host == "" {
				return nil, fmt.Errorf("%w: --nats-routes entry %d: want nats://HOST:PORT", ErrOptions, i+1)
			}
		}
	}
	ns, err := natsserver.NewServer(so)
	if err != nil {
		return nil, fmt.Errorf("cluster: embedded NATS server: %w", err)
	}
	ns.SetLoggerV2(slogLogger{log.With("nats", "server")}, false, false, false)
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("cluster: embedded NATS server not ready in 10 s (route port %q)", o.ClusterAddr)
	}
	return ns, nil
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
// node's log; its debug and trace lines are dropped.
type slogLogger struct{ l *slog.Logger }

func (s slogLogger) Noticef(format string, v ...any) { s.l.Debug(fmt.Sprintf(format, v...)) }
func (s slogLogger) Warnf(format string, v ...any)   { s.l.Warn(fmt.Sprintf(format, v...)) }
func (s slogLogger) Fatalf(format string, v ...any)  { s.l.Error(fmt.Sprintf(format, v...)) }
func (s slogLogger) Errorf(format string, v ...any)  { s.l.Warn(fmt.Sprintf(format, v...)) } // it retries by itself
func (s slogLogger) Debugf(string, ...any)           {}
func (s slogLogger) Tracef(string, ...any)           {}
