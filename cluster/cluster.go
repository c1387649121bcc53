// Package cluster lets many `webtron serve` nodes share one lobby, on NATS:
// who owns a room is a lease in a JetStream key-value bucket, and which
// nodes are alive, how full they are and which rooms they hold travel as
// heartbeats on a core NATS subject.
//
// The two are kept apart on purpose. A JetStream leader failover stalls
// writes for several seconds; core NATS keeps flowing meanwhile, so nodes go
// on seeing each other alive and nobody takes a healthy node's rooms. A
// lease's renewal that fails keeps the room (the node goes on serving it);
// when writes resume the owner fences on the key's revision: a compare-and-
// set that succeeds proves nobody took the room meanwhile, one that fails
// because another node holds the key ends the room here (Options.OnLost).
//
// Leases expire through the bucket's MaxAge, not per-key TTLs (those need
// nats-server 2.11; Debian 12 ships 2.9.10), and expiries are found by
// reading the key, never by watching (watchers are not told of them without
// TTL markers). The package knows nothing of rooms beyond their names: the
// server (server/cluster.go) decides what a lost lease or a dead node means
// for its players.
//
// No stranger gets in: the nodes share a cluster secret, from which the
// embedded servers' route authorization and mutual TLS and the heartbeats'
// signatures are derived (secret.go); an embedded server's client port
// takes only its own node; external servers take the node's credentials.
// A node trusts, to place rooms on and to proxy players to, only the nodes
// whose signed heartbeats it hears.
package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
)

// Options configures a node. Zero durations take the defaults noted.
type Options struct {
	Name      string // this node's name, unique in the cluster (the host name)
	PublicURL string // http(s)://host:port where players and other nodes reach this node

	// NATS, when set, connects to these servers of an existing NATS cluster
	// as a client (nats:// or tls://, no credentials in them). Otherwise the
	// node embeds a NATS server of its own.
	NATS []string
	// ClusterAddr is the embedded server's route port (HOST:PORT) and Routes
	// the other nodes' (nats://HOST:PORT): with them the embedded servers
	// form one NATS cluster, over mutual TLS and with the route password
	// (both from Secret unless TLS names certificates). Without ClusterAddr
	// the embedded server stands alone (a cluster of one node) and listens
	// on no port at all.
	ClusterAddr string
	Routes      []string
	StoreDir    string // the embedded server's JetStream storage (required when embedding)
	// ReplayBytes is what the replay store (replays.go) may hold: the
	// embedded server reserves that much storage beyond its own 1 GiB.
	ReplayBytes int64

	// Secret is the cluster secret, the same on every node, at least
	// MinSecret bytes (secret.go says what is derived from it). Required.
	Secret []byte
	// TLS: with NATS, the CA of the servers and this node's client
	// certificate; when embedding, the route certificates.
	TLS TLSFiles
	// How this node authenticates to the NATS servers (NATS only): a
	// credentials file (JWT and nkey seed), an nkey seed file, or a user and
	// password; at most one of them.
	Creds, NKey    string
	User, Password string

	// Replicas of the lease bucket: 0 picks 3 when the node has routes or
	// external servers, 1 when it stands alone. Never mix nats-server 2.9
	// and 2.10+ servers in one JetStream cluster.
	Replicas int
	LeaseTTL time.Duration // a lease not renewed this long expires (20 s)
	Renew    time.Duration // how often the owner renews its leases (4 s)
	// Heartbeat is how often a node announces itself (1 s); a node not
	// heard for DeadAfter (4 s) is dead: its rooms leave the lobby and
	// others may take its leases.
	Heartbeat, DeadAfter time.Duration
	// OpTimeout bounds one JetStream request (2 s).
	OpTimeout time.Duration

	// OnLost is called, on a goroutine of the node's, with the name of a
	// room whose lease another node now holds: the room must stop here.
	OnLost func(room string)
	// OnTake is called, on a goroutine of the node's, with the name of a
	// room another node handed to this one (handover.go): the room must
	// start here, from its history; the error goes back to the asker.
	OnTake func(room string) error
	// Status returns what the heartbeat tells the others about this node;
	// Name, Incarnation and URL are filled in by the node.
	Status func() NodeInfo
	Logger *slog.Logger
}

// ErrOptions is wrapped by every configuration error.
var ErrOptions = errors.New("cluster: invalid options")

func (o *Options) defaults() error {
	if o.Name == "" {
		h, err := os.Hostname()
		if err != nil || h == "" {
			return fmt.Errorf("%w: no --node-name and no host name", ErrOptions)
		}
		o.Name = h
	}
	if strings.ContainsAny(o.Name, " \t\r\n*>.") {
		return fmt.Errorf("%w: node name %q has spaces, dots or wildcards", ErrOptions, o.Name)
	}
	u, err := url.Parse(o.PublicURL)
	if o.PublicURL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%w: public URL %q: want http(s)://host:port", ErrOptions, o.PublicURL)
	}
	o.PublicURL = strings.TrimSuffix(o.PublicURL, "/")
	if len(o.NATS) == 0 && o.StoreDir == "" {
		return fmt.Errorf("%w: an embedded NATS server needs a store directory", ErrOptions)
	}
	if len(o.NATS) > 0 && (o.ClusterAddr != "" || len(o.Routes) > 0) {
		return fmt.Errorf("%w: --nats (external servers) and --nats-cluster/--nats-routes (embedded) exclude each other", ErrOptions)
	}
	if len(o.Routes) > 0 && o.ClusterAddr == "" {
		return fmt.Errorf("%w: --nats-routes needs --nats-cluster (this node's route port)", ErrOptions)
	}
	if len(o.Secret) < MinSecret {
		return fmt.Errorf("%w: the cluster secret (WEBTRON_NATS_SECRET or --nats-secret-file) has %d bytes, want at least %d: "+
			"the same random value on every node, e.g. from `openssl rand -hex 32`", ErrOptions, len(o.Secret), MinSecret)
	}
	ways := 0
	for _, v := range []string{o.Creds, o.NKey, o.User} {
		if v != "" {
			ways++
		}
	}
	if ways > 1 {
		return fmt.Errorf("%w: give one of a NATS credentials file, an nkey seed file, or a user and password", ErrOptions)
	}
	if o.Password != "" && o.User == "" {
		return fmt.Errorf("%w: a NATS password needs a user", ErrOptions)
	}
	if len(o.NATS) == 0 && ways > 0 {
		return fmt.Errorf("%w: NATS credentials are for external servers (--nats); the embedded ones authenticate with the cluster secret", ErrOptions)
	}
	for _, s := range o.NATS {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "nats" && u.Scheme != "tls") || u.Host == "" {
			return fmt.Errorf("%w: --nats entry %q: want nats://HOST:PORT or tls://HOST:PORT", ErrOptions, s)
		}
		if u.User != nil {
			return fmt.Errorf("%w: --nats entry %s carries credentials, which every local user can read in the process list: "+
				"use --nats-creds, --nats-nkey, or --nats-user with WEBTRON_NATS_PASSWORD or --nats-password-file", ErrOptions, u.Redacted())
		}
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.LeaseTTL, 20*time.Second)
	def(&o.Renew, 4*time.Second)
	def(&o.Heartbeat, time.Second)
	def(&o.DeadAfter, 4*time.Second)
	def(&o.OpTimeout, 2*time.Second)
	if o.Renew*2 > o.LeaseTTL {
		return fmt.Errorf("%w: renewals every %v cannot keep %v leases through a stall", ErrOptions, o.Renew, o.LeaseTTL)
	}
	if o.Replicas == 0 {
		o.Replicas = 1
		if len(o.NATS) > 0 || len(o.Routes) > 0 {
			o.Replicas = 3
		}
	}
	if o.Replicas < 1 || o.Replicas > 5 {
		return fmt.Errorf("%w: replicas %d outside 1..5", ErrOptions, o.Replicas)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Status == nil {
		o.Status = func() NodeInfo { return NodeInfo{} }
	}
	return nil
}

// Node is this process's membership of the cluster.
type Node struct {
	opt  Options
	log  *slog.Logger
	inc  string // incarnation: tells a restarted node from its former self
	keys keys   // derived from the cluster secret
	ns   *natsserver.Server
	nc   *nats.Conn
	js   jetstream.JetStream
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup

	kvMu  sync.Mutex
	kv    jetstream.KeyValue // nil until the bucket is ready
	hist  jetstream.Stream   // the history stream; nil until ready
	ready chan struct{}      // closed once the bucket and the history stream are ready

	histGen atomic.Uint64  // numbers this run's history writers
	histWG  sync.WaitGroup // the history writers
	deaths  chan struct{}  // a token per node taken for dead by a probe (Deaths)
	changed chan struct{}  // a heartbeat wanted before the next tick (Changed)

	leader     atomic.Pointer[string] // the lease stream's leader (leaderLoop)
	forgedLog  atomic.Int64           // when a forged heartbeat was last logged (unix ns)
	refusedLog atomic.Int64           // when a refused reconnection was last logged (unix ns)
	leases     leaseTable
	reg        registry
	metrics    Metrics
}

// Start joins the cluster: it starts the embedded NATS server (unless
// Options.NATS names servers), connects, and begins announcing this node and
// renewing its leases. The lease bucket may take a while to become
// available (a JetStream cluster needs a quorum of its servers); Ready tells.
func Start(o Options) (*Node, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	n := &Node{opt: o, log: o.Logger.With("node", o.Name), inc: newIncarnation(), ready: make(chan struct{}), deaths: make(chan struct{}, 1), changed: make(chan struct{}, 1), keys: deriveKeys(o.Secret)}
	n.leases.init()
	n.reg.init(o.Name)
	n.ctx, n.stop = context.WithCancel(context.Background())
	var err error
	var client nkeys.KeyPair
	if len(o.NATS) == 0 {
		if n.ns, client, err = startEmbedded(&o, &n.keys, n.log); err != nil {
			return nil, err
		}
	}
	n.log.Info("cluster: joining", "secret_id", n.keys.id)
	if n.nc, err = n.connect(client); err != nil {
		n.shutdownServer()
		return nil, err
	}
	if n.js, err = jetstream.New(n.nc); err != nil {
		n.nc.Close()
		n.shutdownServer()
		return nil, fmt.Errorf("cluster: jetstream: %w", err)
	}
	if err = n.reg.subscribe(n); err == nil {
		err = n.answerProbes()
	}
	if err == nil {
		err = n.answerTakes()
	}
	if err != nil {
		n.nc.Close()
		n.shutdownServer()
		return nil, err
	}
	n.wg.Add(5)
	go n.probeLoop()
	go n.openBucket()
	go n.leaderLoop()
	go n.announceLoop()
	go n.renewLoop()
	return n, nil
}

func newIncarnation() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// connect opens this node's NATS connection: in-process to the embedded
// server, or to the external servers. It reconnects forever: a node cut off
// from NATS keeps serving the rooms it has. A first attempt that the
// servers refuse (credentials, TLS) is an error: a node that would retry
// forever with what will never work says so at start instead.
func (n *Node) connect(client nkeys.KeyPair) (*nats.Conn, error) {
	opts := []nats.Option{nats.Name("webtron " + n.opt.Name), nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond), nats.IgnoreAuthErrorAbort(),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				n.log.Warn("cluster: NATS disconnected", "err", err)
			}
		}),
		nats.ReconnectErrHandler(func(_ *nats.Conn, err error) {
			if refused(err) && oncePer(&n.refusedLog, time.Minute) {
				n.log.Error("cluster: NATS refused this node; retrying", "err", err, "check", n.authHint())
			}
		}),
		nats.ReconnectHandler(func(c *nats.Conn) { n.log.Info("cluster: NATS reconnected", "server", c.ConnectedUrlRedacted()) })}
	url := strings.Join(n.opt.NATS, ",")
	if n.ns != nil {
		pub, err := client.PublicKey()
		if err != nil {
			return nil, fmt.Errorf("cluster: the embedded server's client key: %w", err)
		}
		opts = append(opts, nats.InProcessServer(n.ns), nats.Nkey(pub, client.Sign))
		url = ""
	} else {
		o := n.opt
		switch {
		case o.Creds != "":
			opts = append(opts, nats.UserCredentials(o.Creds))
		case o.NKey != "":
			opt, err := nats.NkeyOptionFromSeed(o.NKey)
			if err != nil {
				return nil, fmt.Errorf("%w: nkey seed file: %v", ErrOptions, err)
			}
			opts = append(opts, opt)
		case o.User != "":
			opts = append(opts, nats.UserInfo(o.User, o.Password))
		}
		if o.TLS.set() {
			tc, err := o.TLS.config(false)
			if err != nil {
				return nil, err
			}
			opts = append(opts, nats.Secure(tc))
		}
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil && !refused(err) {
		// Unreachable for now: start, and keep trying.
		nc, err = nats.Connect(url, append(opts, nats.RetryOnFailedConnect(true))...)
	}
	if err != nil {
		if refused(err) {
			return nil, fmt.Errorf("cluster: the NATS servers %s refused this node: %w (check %s)", url, err, n.authHint())
		}
		return nil, fmt.Errorf("cluster: connecting to NATS %s: %w", url, err)
	}
	return nc, nil
}

// refused reports whether err is a NATS server's refusal of this client:
// its credentials or its TLS (a certificate not trusted either way, which
// nats.go reports as ErrTLS, or an alert from the server), which retrying
// will not change. A timeout is no refusal.
func refused(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	var op *net.OpError // "remote error: tls: certificate required", read after the handshake
	return errors.Is(err, nats.ErrAuthorization) || errors.Is(err, nats.ErrAuthExpired) ||
		errors.Is(err, nats.ErrAuthRevoked) || errors.Is(err, nats.ErrAccountAuthExpired) ||
		errors.Is(err, nats.ErrSecureConnRequired) || errors.Is(err, nats.ErrSecureConnWanted) ||
		errors.Is(err, nats.ErrTLS) || (errors.As(err, &op) && op.Op == "remote error")
}

// authHint names what a node's NATS refusal depends on.
func (n *Node) authHint() string {
	var got []string
	o := n.opt
	for _, v := range []struct {
		set  bool
		what string
	}{
		{o.Creds != "", "the credentials file " + o.Creds}, {o.NKey != "", "the nkey seed file " + o.NKey},
		{o.User != "", "the user " + o.User + " and its password (WEBTRON_NATS_PASSWORD or --nats-password-file)"},
		{o.TLS.CA != "", "the CA " + o.TLS.CA}, {o.TLS.Cert != "", "the client certificate " + o.TLS.Cert},
	} {
		if v.set {
			got = append(got, v.what)
		}
	}
	if len(got) == 0 {
		return "the servers' authorization: this node gives no credentials (--nats-creds, --nats-nkey or --nats-user) and no TLS settings (--nats-ca, --nats-cert)"
	}
	return strings.Join(got, ", ")
}

// Name returns this node's name.
func (n *Node) Name() string { return n.opt.Name }

// URL returns this node's public URL.
func (n *Node) URL() string { return n.opt.PublicURL }

// Incarnation returns this run's identity: a restarted node has a new one.
func (n *Node) Incarnation() string { return n.inc }

// Ready is closed once the lease bucket can be used.
func (n *Node) Ready() <-chan struct{} { return n.ready }

// Close lets the history writers that were closed finish (2 s at most),
// stops announcing and renewing (leases still held expire or are taken
// over; Release them first to hand rooms on at once), says goodbye so the
// lobby forgets this node now, and stops the embedded server.
func (n *Node) Close() {
	n.closeHistories(2 * time.Second)
	n.stop()
	n.wg.Wait()
	n.reg.bye(n)
	n.nc.Flush()
	n.nc.Close()
	n.shutdownServer()
}

func (n *Node) shutdownServer() {
	if n.ns != nil {
		n.ns.Shutdown()
		n.ns.WaitForShutdown()
	}
}

// opctx bounds one JetStream request.
func (n *Node) opctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(n.ctx, n.opt.OpTimeout)
}
