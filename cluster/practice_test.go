package cluster_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"webtron/client"
	"webtron/headless"
	"webtron/internal/natstest"
	"webtron/proto"
	"webtron/sim"
)

// TestClusterPracticeFailover: kill -9 of the node holding a Practice room
// mid-round loses no round. A survivor rebuilds the room from its
// replicated history (the dead node's heartbeat named it apart from the
// lobby's rooms): the same round goes on (its tick advanced, every cycle
// ridden on from where it was, the scores kept), still private (in no
// node's /api/rooms or /api/nodes; a Hello without the player's token is
// refused as before the kill), its bots of the skill asked for, and its
// player is back in its seat by itself with its token. Two nodes on an
// in-process NATS server: the kill takes no NATS server with it.
func TestClusterPracticeFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	webtronBinary(t)
	natsURL := natstest.Start(t)
	dir := t.TempDir()
	ports := freePorts(t, 2)
	nodes := make([]*node, 2)
	for i := range nodes {
		name := fmt.Sprintf("n%d", i+1)
		addr := fmt.Sprintf("127.0.0.1:%d", ports[i])
		nodes[i] = &node{addr: addr, proc: proc{t: t, name: name, log: filepath.Join(dir, name+".log"),
			args: nodeArgs(name, addr, filepath.Join(dir, name), "--nats", natsURL, "--nats-replicas", "1")}}
	}
	c := &clusterRun{t: t, nodes: nodes, rng: rand.New(rand.NewPCG(26, 22))}
	for _, n := range nodes {
		n.start()
	}
	t.Cleanup(func() {
		for _, n := range nodes {
			n.stop(8 * time.Second)
		}
		if t.Failed() {
			for _, n := range nodes {
				t.Logf("--- %s log:\n%s", n.name, n.tail())
			}
		}
	})
	waitCluster(t, nodes, 30*time.Second)
	ctx := ctxFor(t, 2*time.Minute)

	// The room opens on the node asked (n1), which the player joins.
	const skill = 40 // not the nodes' --bot-skill (100)
	room := openPractice(t, nodes[0], skill)
	p := c.dial(ctx, room, "ann", 0, nil)
	c.play(ctx, []*tplayer{p})
	waitFor(t, 30*time.Second, "ann riding", func() error {
		var phase sim.Phase
		var in bool
		p.Inspect(func(s *client.Session) {
			phase, _ = s.State().Phase()
			in = s.State().Cycle(s.You()).InRound
		})
		if phase != sim.PhasePlay || !in {
			return fmt.Errorf("phase %v, in the round %v", phase, in)
		}
		return nil
	})
	time.Sleep(time.Second) // the confirmed state past the countdown too
	private := strangerRefused(ctx, t, nodes[0], room)

	kept := c.keep([]*tplayer{p})
	killed := time.Now()
	nodes[0].kill9()
	c.backInSeat([]*tplayer{p}, killed, kept)
	k := kept[p]
	var st *sim.State
	p.Inspect(func(s *client.Session) { st = s.ConfirmedState() })
	if st.Tick() <= k.tick {
		t.Fatalf("ann back at tick %d, had seen tick %d confirmed before the kill", st.Tick(), k.tick)
	}
	for i, was := range k.cycles {
		if now := st.Cycle(i); was.Present && now.Score < was.Score {
			t.Fatalf("cycle %d scored %d before the kill, %d after", i, was.Score, now.Score)
		}
	}

	survivor := nodes[1]
	if rooms, err := survivor.rooms(); err != nil || len(rooms) != 0 {
		t.Fatalf("%s's /api/rooms: %+v (%v), want no room listed", survivor.name, rooms, err)
	}
	if b := get(t, survivor.url()+"/api/nodes"); strings.Contains(b, room) {
		t.Fatalf("%s's /api/nodes names the practice room: %s", survivor.name, b)
	}
	if again := strangerRefused(ctx, t, survivor, room); *again != *private {
		t.Fatalf("a Hello without the token refused with %+v after the kill, with %+v before", again, private)
	}
	line := logLine(t, survivor, "cluster: room carried on from its history", room)
	if line["private"] != true || line["bot_skill"] != float64(skill) {
		t.Fatalf("%s carried the room on as %v", survivor.name, line)
	}
}

// openPractice asks n for a Practice room with bots of skill, as the
// lobby's page does, and returns its name.
func openPractice(t *testing.T, n *node, skill int) string {
	t.Helper()
	resp, err := http.Post(n.url()+"/api/practice", "application/json", strings.NewReader(fmt.Sprintf(`{"skill": %d}`, skill)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a struct {
		Room  string `json:"room"`
		Skill int    `json:"skill"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&a); resp.StatusCode != http.StatusCreated || err != nil || a.Skill != skill {
		t.Fatalf("/api/practice on %s: status %d, %+v (%v)", n.name, resp.StatusCode, a, err)
	}
	return a.Room
}

// strangerRefused has someone without the room's reconnect token join room
// through n, and returns the refusal (a Practice room is its one player's).
func strangerRefused(ctx context.Context, t *testing.T, n *node, room string) *proto.Error {
	t.Helper()
	q, err := headless.Dial(ctx, headless.Options{URL: n.wsURL(), Name: "eve", Room: room})
	if err == nil {
		defer q.Close()
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err = q.WaitWelcome(wctx)
		cancel()
	}
	var pe *proto.Error
	if !errors.As(err, &pe) || pe.Code != proto.CloseRoomFull || !strings.Contains(pe.Text, "practice") {
		t.Fatalf("a Hello without the token through %s: %v, want refused as a practice room's (CloseRoomFull)", n.name, err)
	}
	return pe
}

// get returns the body of a GET of url.
func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b)
}

// logLine returns the fields of the first line of n's log with message
// msg about room.
func logLine(t *testing.T, n *node, msg, room string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(n.log)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil && m["msg"] == msg && m["room"] == room {
			return m
		}
	}
	t.Fatalf("%s logged no %q for %s", n.name, msg, room)
	return nil
}
