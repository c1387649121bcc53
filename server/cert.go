package server

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"sync"
	"time"
)

// Browsers accept a self-signed certificate for WebTransport when the page
// names its SHA-256 hash (serverCertificateHashes), provided it is an ECDSA
// certificate valid for at most two weeks. The server makes one at start,
// serves its hash over the page's own origin (/api/transport), and makes a
// new one before the old expires, so that a server that runs for months
// needs no certificate from anyone.
const (
	// certLife is the whole validity of a generated certificate, from
	// notBefore to notAfter: under the 14 days browsers allow.
	certLife = 13 * 24 * time.Hour
	// certBackdate puts notBefore a little in the past, for clients whose
	// clock is behind the server's.
	certBackdate = time.Hour
	// certRenew is the age at which a generated certificate is replaced:
	// a week of validity still left covers any connection open then.
	certRenew = 6 * 24 * time.Hour
)

// certSource hands out the WebTransport server's certificate: the operator's
// (--tls-cert, --tls-key) or a generated one, replaced once it is certRenew
// old. Safe for concurrent use.
type certSource struct {
	now   func() time.Time
	fixed bool // the operator's: never replaced, and browsers check it the usual way

	mu   sync.Mutex
	cert *tls.Certificate
	made time.Time // notBefore of the generated certificate
	hash [sha256.Size]byte
}

// newCertSource loads the operator's key pair when certFile is set, and
// otherwise generates a certificate.
func newCertSource(certFile, keyFile string, now func() time.Time) (*certSource, error) {
	cs := &certSource{now: now}
	if certFile != "" || keyFile != "" {
		if certFile == "" || keyFile == "" {
			return nil, fmt.Errorf("%w: --tls-cert and --tls-key go together", ErrConfig)
		}
		c, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("%w: TLS key pair: %v", ErrConfig, err)
		}
		cs.cert, cs.fixed = &c, true
		return cs, nil
	}
	if err := cs.renew(); err != nil {
		return nil, err
	}
	return cs, nil
}

// renew generates a new self-signed certificate; cs.mu held or not yet shared.
func (cs *certSource) renew() error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("server: certificate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 63))
	if err != nil {
		return fmt.Errorf("server: certificate serial: %w", err)
	}
	from := cs.now().Add(-certBackdate).Truncate(time.Second)
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "webtron"},
		NotBefore:             from,
		NotAfter:              from.Add(certLife),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		// The hash is what browsers check; the names are for other clients.
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return fmt.Errorf("server: certificate: %w", err)
	}
	cs.cert = &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	cs.made = from
	cs.hash = sha256.Sum256(der)
	return nil
}

// current returns the certificate to present now, renewing a generated one
// that has reached certRenew.
func (cs *certSource) current() (*tls.Certificate, [sha256.Size]byte, error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if !cs.fixed && cs.now().Sub(cs.made) >= certRenew {
		if err := cs.renew(); err != nil {
			return nil, cs.hash, err
		}
	}
	return cs.cert, cs.hash, nil
}

// getCertificate is for tls.Config.GetCertificate.
func (cs *certSource) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c, _, err := cs.current()
	return c, err
}

// hashes returns the SHA-256 hashes a page passes as serverCertificateHashes:
// the generated certificate's, or none for the operator's, which browsers
// check against their trusted roots.
func (cs *certSource) hashes() [][]byte {
	_, h, err := cs.current()
	if cs.fixed || err != nil {
		return nil
	}
	return [][]byte{h[:]}
}
