package cluster

import (
	"testing"
	"time"
)

// TestRaftTimingLinked checks that the embedded servers' Raft timing reaches
// nats-server: its own default comes through the link (a broken link would
// leave a variable of ours at zero), and quickRaft sets it.
func TestRaftTimingLinked(t *testing.T) {
	if natsElectionDefault != 4*time.Second {
		t.Fatalf("nats-server's minimum election timeout read as %v, want its default 4s: the go:linkname no longer reaches it", natsElectionDefault)
	}
	quickRaft()
	if natsMinElection != raftMinElection || natsMaxElection != raftMaxElection || natsHeartbeat != raftHeartbeat {
		t.Fatalf("Raft timing %v-%v, heartbeat %v; want %v-%v, %v", natsMinElection, natsMaxElection, natsHeartbeat, raftMinElection, raftMaxElection, raftHeartbeat)
	}
}
