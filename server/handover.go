package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"webtron/cluster"
)

// Live handover (issue 26, section 3; cluster/handover.go): a node that
// drains hands each room to another node instead of waiting for its round
// to end, and an operator may move one room by hand
// (POST /api/rooms/move?room=NAME&to=NODE, or `webtron move`). The room
// stops here with its history written out, the lease goes to the other
// node, which rebuilds the room from its history at once (as after a
// failover), and the players, told the room moved, rejoin through any
// node into their seats.

// handTimeout bounds each step of a handover.
const handTimeout = 3 * time.Second

// handOver hands room name, open here, to target (nil: the node Place
// picks among the others). It reports whether the room left this node;
// an error says what went wrong on the way (the room then opens wherever
// the next join lands, from its history).
func (g *clusterNode) handOver(name string, target *cluster.NodeInfo) (bool, error) {
	s, node := g.s, g.node
	s.mu.Lock()
	h := s.rooms[name]
	s.mu.Unlock()
	switch {
	case h == nil:
		return false, fmt.Errorf("no room %q on this node", name)
	case h.hist == nil:
		return false, fmt.Errorf("room %q has no replicated history to carry it on elsewhere", name)
	}
	if target == nil {
		t, ok := node.Place(name, s.cfg.Seats)
		if !ok || t.Name == node.Name() {
			return false, errors.New("no other node has room for it")
		}
		target = &t
	}
	if target.Name == node.Name() {
		return false, errors.New("the room is on that node already")
	}
	start := time.Now()
	s.evict(name, reasonMoved)
	h.waitWritten(handTimeout) // written out, not ended (h.moved)
	ctx, cancel := context.WithTimeout(context.Background(), handTimeout)
	defer cancel()
	if err := node.Hand(ctx, name, *target); err != nil {
		node.Release(ctx, name)
		return true, err
	}
	if err := node.Ask(ctx, *target, name); err != nil {
		return true, err // it opens there on its first join
	}
	g.handed.Add(1)
	s.log.Info("cluster: room handed over", "room", name, "to", target.Name, "took", time.Since(start).Round(time.Millisecond))
	return true, nil
}

// take opens a room another node handed to this one (cluster.Options.OnTake):
// only one whose lease names this node.
func (g *clusterNode) take(name string) error {
	node := g.node
	ctx, cancel := context.WithTimeout(context.Background(), handTimeout)
	defer cancel()
	owner, held, err := node.Lookup(ctx, name)
	if err != nil {
		return err
	}
	if !held || owner.Node != node.Name() || owner.Incarnation != node.Incarnation() {
		return fmt.Errorf("the lease of %q does not name %s", name, node.Name())
	}
	if g.draining.Load() {
		return errors.New("draining")
	}
	if err := node.Adopt(name, owner); err != nil {
		return err
	}
	if _, err := g.resume(name); err != nil {
		return err
	}
	if !g.s.hasRoom(name) {
		return fmt.Errorf("room %q has no history to carry on", name)
	}
	return nil
}

// serveMove is POST /api/rooms/move?room=NAME[&to=NODE]: an operator moves
// one room to another node (the one with the most room when to is not
// given), live. It needs the cluster's admin token
// (cluster.AdminToken, from the cluster secret) as a bearer token. A node
// that does not hold the room passes the request to the one that does.
func (g *clusterNode) serveMove(w http.ResponseWriter, r *http.Request) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || !g.node.CheckAdmin(tok) {
		http.Error(w, "a bearer token derived from the cluster secret is required (webtron move)", http.StatusUnauthorized)
		return
	}
	name, to := r.URL.Query().Get("room"), r.URL.Query().Get("to")
	if name == "" {
		http.Error(w, "room= names the room to move", http.StatusBadRequest)
		return
	}
	var target *cluster.NodeInfo
	if to != "" {
		t, ok := g.node.Node(to)
		if !ok {
			http.Error(w, fmt.Sprintf("no live node called %q", to), http.StatusBadRequest)
			return
		}
		target = &t
	}
	if !g.s.hasRoom(name) {
		g.passMove(w, r, name)
		return
	}
	start := time.Now()
	moved, err := g.handOver(name, target)
	switch {
	case !moved:
		http.Error(w, err.Error(), http.StatusConflict)
	case err != nil:
		http.Error(w, "the room left this node, but: "+err.Error(), http.StatusAccepted)
	default:
		fmt.Fprintf(w, "moved %s in %v\n", name, time.Since(start).Round(time.Millisecond))
	}
}

// passMove passes a move to the node holding the room.
func (g *clusterNode) passMove(w http.ResponseWriter, r *http.Request, name string) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*handTimeout)
	defer cancel()
	owner, held, err := g.node.Lookup(ctx, name)
	if err != nil || !held {
		http.Error(w, fmt.Sprintf("no room %q in the cluster", name), http.StatusNotFound)
		return
	}
	peer, ok := g.node.Peer(owner)
	if !ok || r.Header.Get(hopHeader) != "" {
		http.Error(w, fmt.Sprintf("the node holding %q cannot be reached", name), http.StatusServiceUnavailable)
		return
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, peer.URL+r.URL.RequestURI(), nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	req.Header.Set("Authorization", r.Header.Get("Authorization"))
	req.Header.Set(hopHeader, "1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.WriteHeader(resp.StatusCode)
	var buf [4096]byte
	n, _ := resp.Body.Read(buf[:])
	w.Write(buf[:n])
}

// waitWritten waits, at most d for each, until h's room has stopped and
// its history's writer has written what it had (and ended the history when
// the room closed for good).
func (h *roomHost) waitWritten(d time.Duration) {
	select {
	case <-h.done:
	case <-time.After(d):
	}
	if h.hist == nil {
		return
	}
	select {
	case <-h.hist.Done():
	case <-time.After(d):
	}
}
