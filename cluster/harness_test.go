package cluster_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"webtron/cluster"
	"webtron/server"
)

// The webtron binary the process tests run, built once by the first test
// that needs it: kill -9 needs real processes.
var (
	buildOnce sync.Once
	binDir    string
	binary    string
	buildErr  error
)

func webtronBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "webtron-cluster-test"); buildErr != nil {
			return
		}
		binary = filepath.Join(binDir, "webtron")
		args := []string{"build", "-o", binary}
		if os.Getenv("WEBTRON_RACE") != "" { // the nodes under the race detector
			args = append(args, "-race")
		}
		out, err := exec.Command("go", append(args, "webtron/cmd/webtron")...).CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("building webtron: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// freePorts returns n TCP ports free on loopback right now.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// proc is a child process the test runs and may kill.
type proc struct {
	t    *testing.T
	name string
	args []string
	env  []string // besides the test's environment and the cluster secret
	log  string
	cmd  *exec.Cmd
	done chan struct{}
}

func (p *proc) start() {
	p.t.Helper()
	f, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		p.t.Fatal(err)
	}
	p.cmd = exec.Command(p.args[0], p.args[1:]...)
	p.cmd.Env = append(os.Environ(), append([]string{"WEBTRON_NATS_SECRET=" + string(testSecret)}, p.env...)...) // the nodes' cluster secret
	p.cmd.Stdout, p.cmd.Stderr = f, f
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		p.t.Fatalf("%s: %v", p.name, err)
	}
	p.done = make(chan struct{})
	go func() {
		p.cmd.Wait()
		f.Close()
		close(p.done)
	}()
}

// kill9 kills the process the hard way and waits for it.
func (p *proc) kill9() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// stop sends SIGTERM and waits (a cluster node drains first).
func (p *proc) stop(wait time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(wait):
		p.kill9()
	}
}

func (p *proc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// tail returns the end of the process's log, for failure messages.
func (p *proc) tail() string {
	b, _ := os.ReadFile(p.log)
	var keep []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.Contains(l, `"nats":"server"`) { // the embedded server's own chatter
			keep = append(keep, l)
		}
	}
	s := strings.Join(keep, "\n")
	if len(s) <= 8000 {
		return s
	}
	// What went wrong is often early and the end is a drain's chatter:
	// the warnings and errors first, then the end.
	var bad []string
	for _, l := range keep {
		if strings.Contains(l, `"level":"WARN"`) || strings.Contains(l, `"level":"ERROR"`) {
			bad = append(bad, l)
		}
	}
	w := strings.Join(bad, "\n")
	if len(w) > 4000 {
		w = w[:4000]
	}
	return "warnings and errors:\n" + w + "\n... the end:\n" + s[len(s)-8000:]
}

// node is one webtron serve process of the cluster under test.
type node struct {
	proc
	addr string // 127.0.0.1:port
}

func (n *node) url() string   { return "http://" + n.addr }
func (n *node) wsURL() string { return "ws://" + n.addr }

func getJSON(url string, v any) error {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("%s: HTTP %d", url, resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

func (n *node) nodes() ([]cluster.NodeInfo, error) {
	var v []cluster.NodeInfo
	err := getJSON(n.url()+"/api/nodes", &v)
	return v, err
}

func (n *node) rooms() ([]server.RoomInfo, error) {
	var v []server.RoomInfo
	err := getJSON(n.url()+"/api/rooms", &v)
	return v, err
}

// waitFor polls cond every 100 ms until it holds or d passes; it returns
// how long that took, or fails the test with what cond said last.
func waitFor(t *testing.T, d time.Duration, what string, cond func() error) time.Duration {
	t.Helper()
	start := time.Now()
	var err error
	for time.Since(start) < d {
		if err = cond(); err == nil {
			return time.Since(start)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: not within %v: %v", what, d, err)
	return 0
}

// waitCluster waits until every running node hears all of them, with the
// lease bucket ready.
func waitCluster(t *testing.T, nodes []*node, d time.Duration) {
	t.Helper()
	waitFor(t, d, "cluster formed", func() error {
		want := 0
		for _, n := range nodes {
			if n.running() {
				want++
			}
		}
		for _, n := range nodes {
			if !n.running() {
				continue
			}
			list, err := n.nodes()
			if err != nil {
				return err
			}
			if len(list) != want {
				return fmt.Errorf("%s hears %d nodes, want %d", n.name, len(list), want)
			}
			for _, i := range list {
				if !i.Ready {
					return fmt.Errorf("%s: lease bucket not ready on %s", n.name, i.Name)
				}
			}
		}
		return nil
	})
}

// owners maps each room to its node, as node n's lobby says.
func owners(n *node) (map[string]string, error) {
	rooms, err := n.rooms()
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, r := range rooms {
		m[r.Name] = r.Node
	}
	return m, nil
}

// natsAuth is how the tests' Debian NATS servers take the nodes in: TLS
// with client certificates of a test CA, and a user whose password the
// nodes read from WEBTRON_NATS_PASSWORD.
type natsAuth struct{ ca, serverCert, serverKey, cert, key string }

const natsPassword = "the-tests-nats-password"

func newNATSAuth(t *testing.T) natsAuth {
	ca := newPKI(t)
	_, sc, sk := ca.issue(t, true)
	_, cc, ck := ca.issue(t, false)
	return natsAuth{ca: ca.file, serverCert: sc, serverKey: sk, cert: cc, key: ck}
}

// nodeArgs are a node's flags for these servers (urls) and env its
// environment.
func (a natsAuth) nodeArgs(urls []string) (args, env []string) {
	return []string{"--nats", strings.Join(urls, ","), "--nats-user", "webtron",
			"--nats-ca", a.ca, "--nats-cert", a.cert, "--nats-key", a.key},
		[]string{"WEBTRON_NATS_PASSWORD=" + natsPassword}
}

// natsServer runs Debian's nats-server (2.9.10 on Debian 12) with a config
// of its own: JetStream on, its own ports and store, clients taken in as
// auth says, routes with a password.
// A monitor port (0: none) serves /varz.
func natsServer(t *testing.T, dir, name string, auth natsAuth, port, route int, routes []int, monitor ...int) *proc {
	t.Helper()
	var rs []string
	for _, r := range routes {
		rs = append(rs, fmt.Sprintf("nats://route:route-password@127.0.0.1:%d", r))
	}
	conf := fmt.Sprintf(`server_name: %s
listen: 127.0.0.1:%d
tls { cert_file: %q, key_file: %q, ca_file: %q, verify: true }
authorization { user: webtron, password: %q }
jetstream { store_dir: %q, max_memory_store: 64MB, max_file_store: 1GB }
cluster { name: webtron-test, listen: 127.0.0.1:%d, authorization { user: route, password: route-password }, routes: [%s] }
`, name, port, auth.serverCert, auth.serverKey, auth.ca, natsPassword, filepath.Join(dir, name), route, strings.Join(rs, ", "))
	if len(monitor) > 0 {
		conf += fmt.Sprintf("http: 127.0.0.1:%d\n", monitor[0])
	}
	path := filepath.Join(dir, name+".conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, name: name, args: []string{"nats-server", "-c", path}, log: filepath.Join(dir, name+".log")}
	p.start()
	return p
}

// ctxFor is a context that ends with the test or after d.
func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
