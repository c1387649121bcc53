package e2e

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"webtron/clock"
	"webtron/cluster"
	"webtron/headless"
	"webtron/internal/natstest"
	"webtron/server"
	"webtron/web"
)

// startNode runs a server as one node of a cluster whose NATS server is at
// natsURL, with the web client, on a loopback port.
func startNode(t *testing.T, natsURL, name string, maxPlayers int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	s, err := server.New(server.Config{Web: web.Handler(), Bots: 3, Policy: clock.Policy{Charity: clock.AutoCharity},
		DataDir: dataDir(t), MaxPlayers: maxPlayers, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Cluster: &cluster.Options{Name: name, PublicURL: "http://" + addr, NATS: []string{natsURL}, Replicas: 1, Secret: []byte("the-tests-cluster-secret-0123456789"),
			Heartbeat: 200 * time.Millisecond, DeadAfter: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	serve(t, s, ln)
	return addr
}

// TestBrowserClusterLobby: a page served by node A lists a room that node B
// hosts, with B in its Server column; a click on its Join button plays in
// that room, proxied through A, with no change to the page.
func TestBrowserClusterLobby(t *testing.T) {
	browserTests(t)
	url := natstest.Start(t)
	// B has far more capacity: a new room is placed there.
	a := startNode(t, url, "node-a", 50)
	b := startNode(t, url, "node-b", 2000)
	var far *headless.Player
	waitFor(t, "a player opens room far on node-b", 15*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		p, err := headless.Dial(ctx, headless.Options{URL: "ws://" + b, Name: "host", Room: "far", Idle: true})
		if err != nil {
			return false
		}
		if p.WaitWelcome(ctx) != nil {
			p.Close()
			return false // the lease bucket was not ready yet
		}
		far = p
		return true
	})
	t.Cleanup(func() { far.Close() })
	go headless.Run(t.Context(), []*headless.Player{far}, 0)

	p := openPage(t, browser(t), "http://"+a+"/")
	row := `[...document.querySelectorAll("#rooms tr")].findIndex(tr => tr.querySelector(".rname")?.textContent === "far")`
	var host string
	waitFor(t, "node-a's lobby lists room far", 15*time.Second, func() bool {
		// The Server column's cell, found by its class (the Mode column came before it).
		cells, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]string](`(() => { const i = `+row+`; return i < 0 ? [] :
			[document.querySelectorAll("#rooms tr")[i].querySelector("td.node")?.textContent ?? ""]; })()`))
		if err != nil || len(cells) < 1 {
			return false
		}
		host = cells[0]
		return true
	})
	if host != "node-b" {
		t.Fatalf("room far's Server column says %q, want node-b", host)
	}
	idx, err := chromedp.Run(p.ctx, chromedp.Evaluate[int](row))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf("#rooms tr:nth-child(%d) button", idx+1)))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the page to join room far", 20*time.Second, func() bool { return inGame(t, p) })
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		if !inGame(t, p) {
			t.Fatal("the page left the game")
		}
	}
	if n := roomPlayers(t, b, "far"); n != 2 {
		t.Fatalf("node-b's room far has %d players, want the host and the page", n)
	}
	if !strings.Contains(metrics(t, a), server.MetricProxied+" 1") {
		t.Fatalf("node-a proxies no connection:\n%s", metrics(t, a))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.errs {
		t.Errorf("console: %s", e)
	}
}

func metrics(t *testing.T, addr string) string {
	t.Helper()
	var lines []string
	for _, l := range scrape(t, addr) {
		if strings.HasPrefix(l, "webtron_proxied") || strings.HasPrefix(l, "webtron_lease") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}
