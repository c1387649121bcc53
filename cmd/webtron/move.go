//go:build !js

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"webtron/cluster"
)

func init() {
	commands["move"] = command{summary: "move one room of a cluster to another node, live (operator)", run: runMove}
}

// runMove asks a cluster node to hand one room to another node live
// (server's POST /api/rooms/move), authenticated by the admin token
// derived from the cluster secret, which it reads as `webtron serve` does:
//
//	WEBTRON_NATS_SECRET=... webtron move --url http://10.0.0.1:8080 --room lobby-3 --to n2
func runMove(args []string) error {
	fs := flag.NewFlagSet("move", flag.ContinueOnError)
	u := fs.String("url", "http://127.0.0.1:8080", "any node of the cluster (it passes the move to the room's node)")
	room := fs.String("room", "", "the room to move")
	to := fs.String("to", "", "the node to move it to (default: the one with the most room)")
	secretFile := fs.String("nats-secret-file", "", "file holding the cluster secret (or "+envSecret+" holds it)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *room == "" {
		return fmt.Errorf("--room names the room to move")
	}
	sec, err := secret("the cluster secret", envSecret, "--nats-secret-file", *secretFile)
	if err != nil {
		return err
	}
	if sec == nil {
		return fmt.Errorf("the cluster secret is needed (%s or --nats-secret-file)", envSecret)
	}
	q := url.Values{"room": {*room}}
	if *to != "" {
		q.Set("to", *to)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(*u, "/")+"/api/rooms/move?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+cluster.AdminToken(sec))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("move: %s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	os.Stdout.Write(body)
	return nil
}
