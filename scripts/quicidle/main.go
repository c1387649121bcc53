// Command quicidle opens QUIC connections to a webtron server's HTTP/3 port
// that never open a WebTransport session, keeps them alive with PINGs, and
// samples the server's /metrics meanwhile: its resident memory, and how many
// QUIC connections it holds (webtron_quic_connections, where the server has
// it). Issue 21 found 3,000 of them from one address held for good, the
// server's memory from 85 to 351 MB (docs/performance.md, QUIC connections
// without a session):
//
//	webtron serve --addr 127.0.0.1:8080 &
//	go run ./scripts/quicidle -addr 127.0.0.1:8080 -n 3000 -hold 30s
//
// -from K spreads the connections over the source addresses 127.0.0.1 to
// 127.0.0.K (every 127/8 address is the loopback on Linux), as that many
// attackers would.
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "the server's address (its UDP port serves HTTP/3)")
	n := flag.Int("n", 3000, "connections to open")
	from := flag.Int("from", 1, "source addresses 127.0.0.1..127.0.0.K to open them from, round robin")
	hold := flag.Duration("hold", 30*time.Second, "how long to hold them once opened")
	every := flag.Duration("every", 5*time.Second, "how often to sample")
	flag.Parse()
	if *n < 1 || *from < 1 || *from > 254 {
		fmt.Fprintln(os.Stderr, "quicidle: -n must be positive and -from 1..254")
		os.Exit(2)
	}
	metrics := "http://" + *addr + "/metrics"
	raddr, err := net.ResolveUDPAddr("udp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "quicidle:", err)
		os.Exit(1)
	}
	var trs []*quic.Transport
	for k := 1; k <= *from; k++ {
		pc, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, byte(k))})
		if err != nil {
			fmt.Fprintln(os.Stderr, "quicidle:", err)
			os.Exit(1)
		}
		trs = append(trs, &quic.Transport{Conn: pc})
	}
	sample("before", metrics, 0)
	tlsConf := &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h3"}}
	conf := &quic.Config{KeepAlivePeriod: 2 * time.Second, MaxIdleTimeout: time.Hour, EnableDatagrams: true,
		EnableStreamResetPartialDelivery: true}
	var (
		mu      sync.Mutex
		conns   []*quic.Conn
		refused atomic.Int64
		wg      sync.WaitGroup
		sem     = make(chan struct{}, 64) // handshakes at once
	)
	start := time.Now()
	for i := range *n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := trs[i%len(trs)].Dial(ctx, raddr, tlsConf, conf)
			if err != nil {
				refused.Add(1)
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		})
	}
	wg.Wait()
	fmt.Printf("opened %d of %d in %v (%d refused or failed)\n", len(conns), *n, time.Since(start).Round(time.Millisecond), refused.Load())
	for end := time.Now().Add(*hold); ; {
		open := 0
		for _, c := range conns {
			if c.Context().Err() == nil {
				open++
			}
		}
		sample(fmt.Sprintf("t+%v", time.Since(start).Round(time.Second)), metrics, open)
		if time.Now().After(end) {
			break
		}
		time.Sleep(*every)
	}
	for _, c := range conns {
		c.CloseWithError(0, "")
	}
}

// sample prints the server's resident memory and QUIC connection count
// beside the connections still open on this side.
func sample(when, url string, open int) {
	m := scrape(url)
	quicConns := "-"
	if v, ok := m["webtron_quic_connections"]; ok {
		quicConns = strconv.FormatFloat(v, 'f', 0, 64)
	}
	fmt.Printf("%-8s open here %5d  server: rss %6.1f MB, heap %6.1f MB, goroutines %5.0f, quic connections %s\n", when, open,
		m["process_resident_memory_bytes"]/1e6, m["go_memstats_heap_inuse_bytes"]/1e6, m["go_goroutines"], quicConns)
}

// scrape reads the unlabelled series of a Prometheus text page.
func scrape(url string) map[string]float64 {
	out := map[string]float64{}
	resp, err := http.Get(url)
	if err != nil {
		return out
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") || strings.Contains(name, "{") {
			continue
		}
		if v, err := strconv.ParseFloat(val, 64); err == nil {
			out[name] = v
		}
	}
	return out
}
