package cluster

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"fmt"
	"math/big"
	"os"
	"time"
)

// The cluster secret is the one thing every node of a cluster shares. Keys
// for separate uses are derived from it, so that none of them gives away the
// secret or another key:
//
//   - the route password, the NATS cluster authorization of the embedded
//     servers' routes;
//   - the route CA, an Ed25519 key that signs each node's route certificate
//     (made at start): routes are mutual TLS with no certificate to make by
//     hand, and a server without the secret cannot complete the handshake;
//   - the heartbeat key, an HMAC over each heartbeat: a node trusts (places
//     rooms on, proxies players to) only nodes whose heartbeats carry it;
//   - the history key, an HMAC over each batch of a room's history: a node
//     rebuilds a room only from batches that carry it (history.go);
//   - the replay key, an HMAC over each stored replay's name, size, digest
//     and summary: a node lists and serves only replays that carry it
//     (replays.go).
//
// The operator may give certificates instead of the derived ones (TLSFiles);
// the password and the heartbeat key come from the secret all the same.

// MinSecret is the shortest cluster secret accepted, in bytes.
const MinSecret = 16

// routeUser is the NATS user of route connections (the password is derived).
const routeUser = "webtron-route"

// routeServerName is the name every derived route certificate carries and
// every route checks, whatever address the route dials.
const routeServerName = "webtron-route"

// keys are what a node derives from the cluster secret.
type keys struct {
	id        string // a public fingerprint of the secret, logged to compare nodes'
	routePass string
	beat      []byte // heartbeat HMAC key
	history   []byte // rooms' history HMAC key (history.go)
	admin     string // the operator endpoints' bearer token (handover.go)
	replay    []byte // stored replays' HMAC key (replays.go)
	ca        ed25519.PrivateKey
}

func derive(secret []byte, label string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(label))
	return m.Sum(nil)
}

func deriveKeys(secret []byte) keys {
	return keys{
		id:        hex.EncodeToString(derive(secret, "webtron secret id")[:4]),
		routePass: hex.EncodeToString(derive(secret, "webtron route password")),
		beat:      derive(secret, "webtron heartbeat"),
		history:   derive(secret, "webtron history"),
		admin:     AdminToken(secret),
		replay:    derive(secret, "webtron replay"),
		ca:        ed25519.NewKeyFromSeed(derive(secret, "webtron route CA")),
	}
}

// sign is the heartbeat signature of b.
func (k *keys) sign(b []byte) string {
	m := hmac.New(sha256.New, k.beat)
	m.Write(b)
	return hex.EncodeToString(m.Sum(nil))
}

// verify reports whether sig is b's heartbeat signature.
func (k *keys) verify(b []byte, sig string) bool {
	want, err := hex.DecodeString(sig)
	if err != nil {
		return false
	}
	m := hmac.New(sha256.New, k.beat)
	m.Write(b)
	return hmac.Equal(m.Sum(nil), want)
}

// routeTLS is the embedded server's route TLS: mutual, every certificate
// signed by the CA derived from the secret. The CA certificate is made the
// same way on every node (same key, name and key id), which is all that
// verifying a chain needs.
func (k *keys) routeTLS(node string) (*tls.Config, error) {
	caName := pkix.Name{CommonName: "webtron cluster CA, secret " + k.id}
	pub := k.ca.Public().(ed25519.PublicKey)
	skid := sha256.Sum256(pub)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: caName,
		NotBefore: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign, SubjectKeyId: skid[:20],
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, pub, k.ca)
	if err != nil {
		return nil, fmt.Errorf("cluster: route CA: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("cluster: route CA: %w", err)
	}
	leafPub, leafKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("cluster: route certificate: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, fmt.Errorf("cluster: route certificate: %w", err)
	}
	now := time.Now()
	// A route certificate lives as long as its process: it is made anew at
	// every start, so it never needs renewing.
	leafTmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: node},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(100, 0, 0),
		KeyUsage: x509.KeyUsageDigitalSignature, DNSNames: []string{routeServerName},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, leafPub, k.ca)
	if err != nil {
		return nil, fmt.Errorf("cluster: route certificate: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: leafKey}},
		RootCAs:      pool, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert,
		ServerName: routeServerName, MinVersion: tls.VersionTLS13,
	}, nil
}

// TLSFiles are PEM files of the operator's certificates. With external NATS
// servers (Options.NATS): CA signs the servers' certificates (the system's
// CAs when empty), Cert and Key are this node's client certificate (mutual
// TLS). When embedding: the route certificates, in place of the derived
// ones; all three are needed then, Cert valid for both server and client
// authentication and for the host names of the routes.
type TLSFiles struct{ CA, Cert, Key string }

func (f TLSFiles) set() bool { return f.CA != "" || f.Cert != "" || f.Key != "" }

// config loads the files into a TLS configuration; mutual asks for and
// checks the peer's certificate (a route's server side).
func (f TLSFiles) config(mutual bool) (*tls.Config, error) {
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if (f.Cert == "") != (f.Key == "") {
		return nil, fmt.Errorf("%w: a NATS certificate and its key go together", ErrOptions)
	}
	if f.Cert != "" {
		kp, err := tls.LoadX509KeyPair(f.Cert, f.Key)
		if err != nil {
			return nil, fmt.Errorf("%w: NATS certificate %s: %v", ErrOptions, f.Cert, err)
		}
		c.Certificates = []tls.Certificate{kp}
	}
	if f.CA != "" {
		b, err := os.ReadFile(f.CA)
		if err != nil {
			return nil, fmt.Errorf("%w: NATS CA: %v", ErrOptions, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("%w: NATS CA %s: no PEM certificate in it", ErrOptions, f.CA)
		}
		c.RootCAs, c.ClientCAs = pool, pool
	}
	if mutual {
		if f.CA == "" || f.Cert == "" {
			return nil, fmt.Errorf("%w: route certificates need a CA, a certificate and its key", ErrOptions)
		}
		c.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return c, nil
}
