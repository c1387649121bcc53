package main

import (
	"strings"
	"testing"
)

// TestServeTransportFlags: WebTransport is on unless turned off, and a TLS
// certificate needs its key.
func TestServeTransportFlags(t *testing.T) {
	cfg, opt, err := parseServe(nil)
	if err != nil || !opt.webtransport || cfg.TLSCert != "" {
		t.Fatalf("defaults: webtransport %v, cert %q, err %v", opt.webtransport, cfg.TLSCert, err)
	}
	if _, opt, err = parseServe([]string{"--webtransport=false"}); err != nil || opt.webtransport {
		t.Fatalf("--webtransport=false: webtransport %v, err %v", opt.webtransport, err)
	}
	cfg, _, err = parseServe([]string{"--tls-cert", "c.pem", "--tls-key", "k.pem"})
	if err != nil || cfg.TLSCert != "c.pem" || cfg.TLSKey != "k.pem" {
		t.Fatalf("cert and key: %+v, %v", cfg, err)
	}
	if _, _, err := parseServe([]string{"--tls-cert", "c.pem"}); err == nil || !strings.Contains(err.Error(), "--tls-key") {
		t.Fatalf("a certificate without its key: %v", err)
	}
}
