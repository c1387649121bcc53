package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// Strangers against a node that embeds its NATS server: a NATS server that
// routes to its route port (or listens where one of its routes points), a
// node with another secret, a local client of its loopback client port.
// None gets in, so none of what they publish (a heartbeat of a node with a
// huge capacity, a lease naming another owner) reaches the node.

// rogueSecret is the cluster secret of the tests' nodes.
var rogueSecret = []byte("the-tests-cluster-secret-0123456789")

// logBuf is a node's log, for the test to read.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) { l.mu.Lock(); defer l.mu.Unlock(); return l.b.Write(p) }
func (l *logBuf) String() string              { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// embeddedNode starts a node that embeds its NATS server, with a route port
// on loopback (port) and routes to routes and to itself.
func embeddedNode(t *testing.T, name string, secret []byte, port int, routes ...string) (*Node, *logBuf) {
	t.Helper()
	log := &logBuf{}
	routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", port))
	n, err := Start(Options{Name: name, PublicURL: "http://" + name + ":1", ClusterAddr: fmt.Sprintf("127.0.0.1:%d", port),
		Routes: routes, StoreDir: t.TempDir(), Replicas: 1, Secret: secret,
		LeaseTTL: 3 * time.Second, Renew: 300 * time.Millisecond, Heartbeat: 100 * time.Millisecond, DeadAfter: 500 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(log, nil)),
		Status: func() NodeInfo { return NodeInfo{MaxPlayers: 10, MaxRooms: 10} }})
	if err != nil {
		t.Fatalf("%v; log:\n%s", err, log)
	}
	t.Cleanup(n.Close)
	return n, log
}

// forgedBeat is a stranger's heartbeat: a node with room for everyone,
// whose players would be proxied to a URL of the stranger's.
func forgedBeat() []byte {
	b, _ := json.Marshal(NodeInfo{Name: "evil", Incarnation: "x", URL: "http://evil.example:1", MaxPlayers: 1 << 30, MaxRooms: 1 << 20, Rooms: []RoomInfo{}})
	return b
}

// hears reports whether n counts a node named name among the live ones.
func hears(n *Node, name string) bool {
	for _, i := range n.Nodes() {
		if i.Name == name {
			return true
		}
	}
	return false
}

// watch records, from n's own NATS server, what a stranger publishes
// there: a heartbeat or a lease write that names the stranger ("evil", or
// the node "stranger").
func watch(t *testing.T, n *Node) func() string {
	t.Helper()
	var mu sync.Mutex
	var got string
	for _, subj := range []string{subject, "$KV.>"} {
		if _, err := n.nc.Subscribe(subj, func(m *nats.Msg) {
			if bytes.Contains(m.Data, []byte("evil")) || bytes.Contains(m.Data, []byte("stranger")) {
				mu.Lock()
				got = m.Subject + " " + string(m.Data)
				mu.Unlock()
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := n.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

// attack publishes, through nc, a forged heartbeat and a lease naming
// another owner for room "held" (a plain publish to the bucket's subject is
// a write, where the bucket is).
func attack(nc *nats.Conn) {
	nc.Publish(subject, forgedBeat())
	other, _ := json.Marshal(Owner{Node: "evil", Incarnation: "x"})
	nc.Publish("$KV."+Bucket+"."+roomKey("held"), other)
	nc.Flush()
}

// TestEmbeddedClientPortRefusesStrangers: the loopback client port that an
// embedded server opens to route takes no client but its own node: neither
// one without credentials, nor one that tries the route password or the
// cluster secret, nor one with an nkey of its own.
func TestEmbeddedClientPortRefusesStrangers(t *testing.T) {
	n, _ := embeddedNode(t, "a", rogueSecret, freePort(t))
	k := deriveKeys(rogueSecret)
	for _, c := range []struct {
		what string
		opts []nats.Option
	}{
		{"no credentials", nil},
		{"the route user and password", []nats.Option{nats.UserInfo(routeUser, k.routePass)}},
		{"the cluster secret as a password", []nats.Option{nats.UserInfo("webtron", string(rogueSecret))}},
		{"an nkey of its own", []nats.Option{nkeyOption(t)}},
	} {
		nc, err := nats.Connect(n.ns.ClientURL(), c.opts...)
		if err == nil {
			attack(nc)
			nc.Close()
			t.Fatalf("%s: the embedded server's client port took a stranger", c.what)
		}
		if !errors.Is(err, nats.ErrAuthorization) {
			t.Fatalf("%s: %v, want an authorization violation", c.what, err)
		}
	}
}

// nkeyOption authenticates with a new nkey.
func nkeyOption(t *testing.T) nats.Option {
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := kp.PublicKey()
	return nats.Nkey(pub, kp.Sign)
}

// rogueServer runs a NATS server in-process that calls itself part of the
// cluster "webtron", with its route port at routePort (0: a free one), and
// routes to routes; it returns its client URL.
func rogueServer(t *testing.T, routePort int, routes ...string) string {
	t.Helper()
	if routePort == 0 {
		routePort = freePort(t)
	}
	ns, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: -1, NoSigs: true, NoLog: true, ServerName: "rogue",
		Cluster: natsserver.ClusterOpts{Name: clusterName, Host: "127.0.0.1", Port: routePort},
		Routes:  natsserver.RoutesFromStr(strings.Join(routes, ","))})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("rogue NATS server not ready")
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	return ns.ClientURL()
}

// debianRogue runs Debian's nats-server (if installed) in the cluster
// "webtron", routing to route.
func debianRogue(t *testing.T, route string) (clientURL string) {
	t.Helper()
	if _, err := exec.LookPath("nats-server"); err != nil {
		t.Skip("nats-server is not installed (make test installs Debian's: scripts/install-nats-server.sh)")
	}
	dir := t.TempDir()
	port, rport := freePort(t), freePort(t)
	conf := fmt.Sprintf("server_name: rogue\nlisten: 127.0.0.1:%d\ncluster { name: %s, listen: 127.0.0.1:%d, routes: [%s] }\n",
		port, clusterName, rport, route)
	path := filepath.Join(dir, "rogue.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("nats-server", "-c", path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return fmt.Sprintf("nats://127.0.0.1:%d", port)
}

// TestRogueRouteRefused: a NATS server that routes to a node's route port
// (as the issue found: Debian's, cluster name "webtron"), one that guesses
// the route user, one that listens where one of the node's routes points,
// and a node with another cluster secret are refused, with an error in the
// log that says why; what a client of theirs publishes changes nothing on
// the node.
func TestRogueRouteRefused(t *testing.T) {
	// Node a's routes point to a port where nobody listens until the
	// stranger of "where a route points" does. (It never becomes ready:
	// JetStream waits for a route to another server, and the test needs
	// none.)
	slot, port := freePort(t), freePort(t)
	n, log := embeddedNode(t, "a", rogueSecret, port, fmt.Sprintf("nats://127.0.0.1:%d", slot))
	route := fmt.Sprintf("nats://127.0.0.1:%d", port)
	reached := watch(t, n)
	// Each case starts a stranger and returns a NATS client of its, or nil.
	cases := []struct {
		name string
		run  func(t *testing.T) *nats.Conn
	}{
		{"nats-server routing in", func(t *testing.T) *nats.Conn { return connect(t, rogueServer(t, 0, route)) }},
		{"nats-server guessing the route user", func(t *testing.T) *nats.Conn {
			return connect(t, rogueServer(t, 0, strings.Replace(route, "nats://", "nats://"+routeUser+":guess@", 1)))
		}},
		{"nats-server where a route points", func(t *testing.T) *nats.Conn { return connect(t, rogueServer(t, slot)) }},
		{"node with another secret", func(t *testing.T) *nats.Conn {
			embeddedNode(t, "stranger", []byte("another-secret-of-sixteen-bytes-at-least"), freePort(t), route)
			return nil
		}},
		{"Debian nats-server routing in", func(t *testing.T) *nats.Conn { return connect(t, debianRogue(t, route)) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := len(log.String())
			nc := c.run(t)
			// The stranger (or the node) retries the route every second or
			// so: two refusals, with the stranger's publications all
			// along, show that none got through.
			end := time.Now().Add(15 * time.Second)
			for {
				if nc != nil {
					attack(nc)
				}
				if m := reached(); m != "" {
					t.Fatalf("the stranger's publication reached the node: %s", m)
				}
				if hears(n, "evil") || hears(n, "stranger") {
					t.Fatalf("the node hears a stranger: %+v", n.Nodes())
				}
				if strings.Count(log.String()[before:], RouteRefused) >= 2 {
					break
				}
				if time.Now().After(end) {
					t.Fatalf("no route refusal logged in 15 s; log:\n%s", log.String()[before:])
				}
				time.Sleep(50 * time.Millisecond)
			}
			rz, err := n.ns.Routez(nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rz.Routes {
				t.Fatalf("a route to %q (%s)", r.RemoteName, r.IP)
			}
			if !strings.Contains(log.String()[before:], "secret_id="+n.keys.id) {
				t.Fatalf("the refusal does not name this node's secret id:\n%s", log.String()[before:])
			}
		})
	}
}

// connect is a client of a stranger's server.
func connect(t *testing.T, url string) *nats.Conn {
	t.Helper()
	var nc *nats.Conn
	var err error
	for range 50 { // Debian's server takes a moment to listen
		if nc, err = nats.Connect(url); err == nil {
			t.Cleanup(nc.Close)
			return nc
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal(err)
	return nil
}
