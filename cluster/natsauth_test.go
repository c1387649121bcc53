package cluster_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/jwt/v2"
	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"

	"webtron/cluster"
)

// A node joins external NATS servers (--nats) with the operator's
// credentials: a user and password, an nkey, a credentials file (JWT), a CA
// and a client certificate. Servers that refuse it make Start fail at once
// with an error that says what to check, instead of a node that retries
// forever behind "nats: connection closed".

// authServer runs a NATS server with JetStream and o's authorization on
// loopback until the test ends; it returns its client URL.
func authServer(t *testing.T, o *natsserver.Options) string {
	t.Helper()
	if o.Port == 0 {
		o.Port = -1
	}
	o.Host, o.JetStream, o.StoreDir, o.NoSigs, o.NoLog = "127.0.0.1", true, t.TempDir(), true, true
	ns, err := natsserver.NewServer(o)
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("NATS server not ready")
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	return ns.ClientURL() // tls:// when the server wants TLS
}

// authOpts are a node's options for url with how it authenticates.
func authOpts(url string, set func(*cluster.Options)) cluster.Options {
	o := cluster.Options{Name: "a", PublicURL: "http://a:1", NATS: []string{url}, Replicas: 1, Secret: testSecret,
		Heartbeat: 100 * time.Millisecond, DeadAfter: 500 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	set(&o)
	return o
}

// joins starts a node with o and waits for its lease bucket.
func joins(t *testing.T, o cluster.Options) {
	t.Helper()
	n, err := cluster.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	select {
	case <-n.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("lease bucket not ready")
	}
}

// refused starts a node with o and wants an error that names the refusal
// and every word of hints.
func refused(t *testing.T, o cluster.Options, hints ...string) {
	t.Helper()
	n, err := cluster.Start(o)
	if err == nil {
		n.Close()
		t.Fatal("a node the servers refuse started")
	}
	for _, h := range append(hints, "refused this node") {
		if !strings.Contains(err.Error(), h) {
			t.Fatalf("error %q does not say %q", err, h)
		}
	}
}

func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNATSUserPassword(t *testing.T) {
	url := authServer(t, &natsserver.Options{Username: "webtron", Password: "right"})
	joins(t, authOpts(url, func(o *cluster.Options) { o.User, o.Password = "webtron", "right" }))
	refused(t, authOpts(url, func(o *cluster.Options) { o.User, o.Password = "webtron", "wrong" }),
		"Authorization Violation", "the user webtron", "WEBTRON_NATS_PASSWORD")
	refused(t, authOpts(url, func(*cluster.Options) {}), "Authorization Violation", "gives no credentials")
}

func TestNATSNKey(t *testing.T) {
	user, _ := nkeys.CreateUser()
	pub, _ := user.PublicKey()
	seed, _ := user.Seed()
	url := authServer(t, &natsserver.Options{Nkeys: []*natsserver.NkeyUser{{Nkey: pub}}})
	joins(t, authOpts(url, func(o *cluster.Options) { o.NKey = writeFile(t, "seed", seed) }))
	other, _ := nkeys.CreateUser()
	otherSeed, _ := other.Seed()
	file := writeFile(t, "other", otherSeed)
	refused(t, authOpts(url, func(o *cluster.Options) { o.NKey = file }), "Authorization Violation", "the nkey seed file "+file)
}

// TestNATSCreds: a server in operator mode (accounts and users as JWTs), and
// a node with a user's credentials file.
func TestNATSCreds(t *testing.T) {
	op, _ := nkeys.CreateOperator()
	opPub, _ := op.PublicKey()
	resolver := &natsserver.MemAccResolver{}
	account := func(js bool) (nkeys.KeyPair, string) {
		kp, _ := nkeys.CreateAccount()
		pub, _ := kp.PublicKey()
		ac := jwt.NewAccountClaims(pub)
		if js {
			ac.Limits.JetStreamLimits = jwt.JetStreamLimits{MemoryStorage: -1, DiskStorage: -1, Streams: -1, Consumer: -1}
		}
		token, err := ac.Encode(op)
		if err != nil {
			t.Fatal(err)
		}
		resolver.Store(pub, token)
		return kp, pub
	}
	_, sysPub := account(false)
	acc, _ := account(true)
	creds := func(acc nkeys.KeyPair) string {
		u, _ := nkeys.CreateUser()
		pub, _ := u.PublicKey()
		token, err := jwt.NewUserClaims(pub).Encode(acc)
		if err != nil {
			t.Fatal(err)
		}
		seed, _ := u.Seed()
		b, _ := jwt.FormatUserConfig(token, seed)
		return writeFile(t, "user.creds", b)
	}
	url := authServer(t, &natsserver.Options{TrustedOperators: []*jwt.OperatorClaims{jwt.NewOperatorClaims(opPub)},
		AccountResolver: resolver, SystemAccount: sysPub})
	joins(t, authOpts(url, func(o *cluster.Options) { o.Creds = creds(acc) }))
	stranger, _ := nkeys.CreateAccount() // an account the server does not know
	file := creds(stranger)
	refused(t, authOpts(url, func(o *cluster.Options) { o.Creds = file }), "Authorization Violation", "the credentials file "+file)
}

// pki is a CA that issues certificates for a test.
type pki struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	file string // the CA's certificate, PEM
}

func newPKI(t *testing.T) *pki {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &pki{cert: cert, key: key, file: writeFile(t, "ca.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))}
}

// issue makes a certificate for 127.0.0.1 (a server's) or a client's; it
// returns the key pair and its PEM files.
func (p *pki) issue(t *testing.T, server bool) (tls.Certificate, string, string) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	if server {
		tmpl.ExtKeyUsage, tmpl.IPAddresses = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, []net.IP{net.IPv4(127, 0, 0, 1)}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.cert, &key.PublicKey, p.key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
	kp, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return kp, writeFile(t, "cert.pem", certPEM), writeFile(t, "key.pem", keyPEM)
}

// TestNATSTLS: a server that wants TLS with client certificates of its CA;
// the node gives the CA and its certificate. Without the certificate, or
// with another CA, it is refused.
func TestNATSTLS(t *testing.T) {
	ca := newPKI(t)
	serverCert, _, _ := ca.issue(t, true)
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	url := authServer(t, &natsserver.Options{TLS: true, TLSVerify: true, TLSConfig: &tls.Config{
		Certificates: []tls.Certificate{serverCert}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}})
	_, cert, key := ca.issue(t, false)
	joins(t, authOpts(url, func(o *cluster.Options) { o.TLS = cluster.TLSFiles{CA: ca.file, Cert: cert, Key: key} }))
	refused(t, authOpts(url, func(o *cluster.Options) { o.TLS = cluster.TLSFiles{CA: ca.file} }), "the CA "+ca.file)
	other := newPKI(t)
	refused(t, authOpts(url, func(o *cluster.Options) { o.TLS = cluster.TLSFiles{CA: other.file, Cert: cert, Key: key} }),
		"certificate signed by unknown authority", "the CA "+other.file)
}

// TestNATSOptionsRefused: credentials in a NATS URL (visible in the process
// list), no cluster secret or a short one, two ways to authenticate at once,
// credentials for embedded servers: each an error that says what to do.
func TestNATSOptionsRefused(t *testing.T) {
	for _, c := range []struct {
		set  func(*cluster.Options)
		want string
	}{
		{func(o *cluster.Options) { o.NATS = []string{"nats://webtron:hunter2@127.0.0.1:4222"} }, "--nats-password-file"},
		{func(o *cluster.Options) { o.NATS = []string{"nats://token@127.0.0.1:4222"} }, "process list"},
		{func(o *cluster.Options) { o.Secret = nil }, "WEBTRON_NATS_SECRET"},
		{func(o *cluster.Options) { o.Secret = []byte("short") }, "at least 16"},
		{func(o *cluster.Options) { o.User, o.Password, o.NKey = "u", "p", "seed" }, "give one of"},
		{func(o *cluster.Options) { o.NATS, o.StoreDir, o.User, o.Password = nil, t.TempDir(), "u", "p" }, "embedded"},
	} {
		o := authOpts("nats://127.0.0.1:4222", c.set)
		n, err := cluster.Start(o)
		if err == nil {
			n.Close()
			t.Fatalf("%+v: started", o)
		}
		if !errors.Is(err, cluster.ErrOptions) || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("error %q: want an options error saying %q", err, c.want)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Fatalf("the error shows the password: %q", err)
		}
	}
}

// TestNATSUnreachableAtStart: a node whose NATS servers are not up yet
// starts at once and joins when they come up (a refusal stops it; an
// absence does not).
func TestNATSUnreachableAtStart(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	start := time.Now()
	n, err := cluster.Start(authOpts(fmt.Sprintf("nats://127.0.0.1:%d", port), func(*cluster.Options) {}))
	if err != nil {
		t.Fatalf("start with the servers down: %v", err)
	}
	defer n.Close()
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("start took %v with the servers down", d)
	}
	authServer(t, &natsserver.Options{Port: port})
	select {
	case <-n.Ready():
	case <-time.After(15 * time.Second):
		t.Fatal("lease bucket not ready once the server came up")
	}
}
