package cluster

import (
	"sync"
	"time"
	_ "unsafe" // for go:linkname: nats-server exposes no option for its Raft timing

	_ "github.com/nats-io/nats-server/v2/server"
)

// nats-server's Raft (the lease bucket's and the history's streams) elects a
// new leader only when a follower has heard nothing from the old one for
// 4-9 s, with heartbeats a second apart. With embedded NATS a node killed
// with kill -9 takes its NATS server along, and when that server led the
// lease stream every takeover of the dead node's rooms (a compare-and-set
// only the leader decides) waited those 4-9 s: players were back in their
// seats 5-9 s after the kill instead of 0.6 s (docs/performance.md, "Rooms
// that outlive their node"). These are the timings nats-server's own tests
// run its clusters with, shortened for a failover inside issue 26's 3 s:
// heartbeats 4 a second, an election after 1-2 s of silence (still 4-8
// missed heartbeats, so a loaded machine does not call elections for
// nothing). They apply to the embedded servers of this process only;
// external NATS servers keep theirs (and a kill of a node leaves them up).
const (
	raftHeartbeat   = 250 * time.Millisecond
	raftMinElection = 1 * time.Second
	raftMaxElection = 2 * time.Second
)

//go:linkname natsHeartbeat github.com/nats-io/nats-server/v2/server.hbInterval
var natsHeartbeat time.Duration

//go:linkname natsMinElection github.com/nats-io/nats-server/v2/server.minElectionTimeout
var natsMinElection time.Duration

//go:linkname natsMaxElection github.com/nats-io/nats-server/v2/server.maxElectionTimeout
var natsMaxElection time.Duration

var raftOnce sync.Once

// natsElectionDefault is nats-server's own minimum election timeout, read
// at this package's start (after nats-server's): 4 s when the links above
// reach its variables, which TestRaftTimingLinked checks.
var natsElectionDefault = natsMinElection

// quickRaft sets the embedded servers' Raft timing, once, before the first
// of them starts (their goroutines read it unguarded).
func quickRaft() {
	raftOnce.Do(func() {
		natsHeartbeat, natsMinElection, natsMaxElection = raftHeartbeat, raftMinElection, raftMaxElection
	})
}
