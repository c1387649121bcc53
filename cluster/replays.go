package cluster

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// The cluster's replays (issue 26): every node puts the rounds it finished
// into one JetStream object store, ReplayBucket, replicated like the lease
// bucket, so that any node lists and serves any node's rounds and the loss
// of one node's disk loses none of them.
//
// Whoever holds NATS credentials may write to the bucket, so every object
// is signed: its metadata carries an HMAC, with a key derived from the
// cluster secret (secret.go), over its name, size, content digest and the
// summary the server lists it by. A reader drops any object whose
// signature fails (never listed, never served: Replays.Forged counts
// them) and checks the bytes it reads against the signed size and digest,
// so that no one without the secret can add a round, change one, pass one
// off under another name or make a listing lie. It can still delete them,
// as it can any stream it may write.

// ReplayBucket is the JetStream object store of finished rounds.
const ReplayBucket = "webtron-replays"

// Metadata keys of a stored replay.
const (
	replaySummary = "webtron-summary"
	replaySig     = "webtron-sig"
)

// Errors of the replay store.
var (
	// ErrReplayNotFound: no such object (or a deleted one).
	ErrReplayNotFound = errors.New("cluster: no such replay")
	// ErrReplayForged: an object not signed with this cluster's secret, or
	// whose bytes do not match what was signed.
	ErrReplayForged = errors.New("cluster: replay not signed with this cluster's secret")
	// ErrReplayDamaged: a signed object whose bytes are not those signed
	// (its chunks changed in the stream).
	ErrReplayDamaged = errors.New("cluster: the replay's bytes are not those stored")
	// ErrReplayExists: another object already has the name.
	ErrReplayExists = errors.New("cluster: another replay has this name")
)

// StoredReplay is one object of the replay store, verified.
type StoredReplay struct {
	Name    string
	Size    int64
	Summary []byte // what the server lists it by, as it was signed
}

// Replays is the cluster's replay store (ReplayBucket).
type Replays struct {
	n     *Node
	mu    sync.Mutex
	obs   jetstream.ObjectStore // nil until ready
	ready chan struct{}

	// Forged counts objects dropped because their signature or their bytes
	// did not verify.
	Forged atomic.Uint64
}

// OpenReplays opens the replay store, in the background: the bucket can
// be made once JetStream has its quorum (Replays.Ready says when). Call it
// once, before Close.
func (n *Node) OpenReplays() *Replays {
	r := &Replays{n: n, ready: make(chan struct{})}
	n.wg.Add(1)
	go r.open()
	return r
}

func (r *Replays) open() {
	defer r.n.wg.Done()
	select {
	case <-r.n.ready:
	case <-r.n.ctx.Done():
		return
	}
	cfg := jetstream.ObjectStoreConfig{Bucket: ReplayBucket, Description: "webtron finished rounds (replay files, signed)",
		Storage: jetstream.FileStorage, Replicas: r.n.opt.Replicas}
	wait := 250 * time.Millisecond
	for tries := 1; ; tries++ {
		ctx, cancel := context.WithTimeout(r.n.ctx, 5*time.Second)
		obs, err := r.n.js.CreateOrUpdateObjectStore(ctx, cfg)
		if err != nil && !errors.Is(err, context.Canceled) {
			if o2, err2 := r.n.js.ObjectStore(ctx, ReplayBucket); err2 == nil {
				r.n.log.Warn("cluster: replay bucket exists with other settings; using it", "err", err)
				obs, err = o2, nil
			}
		}
		cancel()
		if err == nil {
			r.mu.Lock()
			r.obs = obs
			r.mu.Unlock()
			close(r.ready)
			r.n.log.Info("cluster: replay bucket ready", "bucket", ReplayBucket, "replicas", r.n.opt.Replicas)
			return
		}
		if tries == 1 || tries%20 == 0 {
			r.n.log.Warn("cluster: replay bucket not ready yet, retrying", "err", err)
		}
		select {
		case <-r.n.ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// Ready is closed once the store can be used.
func (r *Replays) Ready() <-chan struct{} { return r.ready }

func (r *Replays) store() jetstream.ObjectStore {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.obs
}

// replayMAC signs an object: its name, size, digest and summary, each
// length-prefixed so that no two of them can trade bytes.
func (k *keys) replayMAC(name string, size uint64, digest string, summary []byte) []byte {
	m := hmac.New(sha256.New, k.replay)
	for _, part := range [][]byte{[]byte(name), []byte(digest), summary} {
		m.Write(binary.AppendUvarint(nil, uint64(len(part))))
		m.Write(part)
	}
	m.Write(binary.AppendUvarint(nil, size))
	return m.Sum(nil)
}

// verify returns the object info describes when it is one of ours: signed,
// not a link, not deleted.
func (r *Replays) verify(info *jetstream.ObjectInfo) (StoredReplay, bool) {
	if info == nil || info.Deleted || info.Opts != nil && info.Opts.Link != nil {
		return StoredReplay{}, false
	}
	sum, sig := info.Metadata[replaySummary], info.Metadata[replaySig]
	got, err := hex.DecodeString(sig)
	if err != nil || !hmac.Equal(got, r.n.keys.replayMAC(info.Name, info.Size, info.Digest, []byte(sum))) {
		return StoredReplay{}, false
	}
	return StoredReplay{Name: info.Name, Size: int64(info.Size), Summary: []byte(sum)}, true
}

func digestOf(data []byte) string {
	h := sha256.Sum256(data)
	return "SHA-256=" + base64.URLEncoding.EncodeToString(h[:])
}

// Put stores a replay under name with the summary it is listed by, signed.
// A replay already stored with the same bytes is not stored again (an
// upload whose acknowledgement was lost); another object of that name is
// ErrReplayExists. It returns once JetStream has stored it on a majority
// of the bucket's replicas.
func (r *Replays) Put(ctx context.Context, name string, data, summary []byte) error {
	obs := r.store()
	if obs == nil {
		return ErrNotReady
	}
	digest := digestOf(data)
	old, err := obs.GetInfo(ctx, name)
	switch {
	case err == nil:
		if sr, ok := r.verify(old); ok && old.Digest == digest && bytes.Equal(sr.Summary, summary) {
			return nil
		}
		if _, ok := r.verify(old); ok {
			return fmt.Errorf("%w: %s", ErrReplayExists, name)
		}
		// Not ours (forged): ours takes the name.
	case !errors.Is(err, jetstream.ErrObjectNotFound):
		return err
	}
	sig := r.n.keys.replayMAC(name, uint64(len(data)), digest, summary)
	meta := jetstream.ObjectMeta{Name: name, Metadata: map[string]string{replaySummary: string(summary), replaySig: hex.EncodeToString(sig)}}
	_, err = obs.Put(ctx, meta, bytes.NewReader(data))
	return err
}

// Get reads a replay back: its bytes and summary, checked against the
// signature: ErrReplayForged when the object is not signed (as if it were
// not there), ErrReplayDamaged when its bytes are not those signed.
func (r *Replays) Get(ctx context.Context, name string) (data, summary []byte, err error) {
	obs := r.store()
	if obs == nil {
		return nil, nil, ErrNotReady
	}
	info, err := obs.GetInfo(ctx, name)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, nil, ErrReplayNotFound
	}
	if err != nil {
		return nil, nil, err
	}
	sr, ok := r.verify(info)
	if !ok {
		r.Forged.Add(1)
		return nil, nil, ErrReplayForged
	}
	res, err := obs.Get(ctx, name)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, nil, ErrReplayNotFound
	}
	if err != nil {
		return nil, nil, err
	}
	defer res.Close()
	data, err = io.ReadAll(io.LimitReader(res, sr.Size+1))
	if err != nil && !errors.Is(err, jetstream.ErrDigestMismatch) {
		return nil, nil, err
	}
	// The object read may not be the one verified (replaced meanwhile, or
	// a link followed): the bytes must be what was signed.
	got, _ := res.Info()
	if err != nil || got == nil || got.Name != name || int64(len(data)) != sr.Size || digestOf(data) != info.Digest {
		r.Forged.Add(1)
		return nil, sr.Summary, ErrReplayDamaged
	}
	return data, sr.Summary, nil
}

// Delete removes a replay; one already gone is no error.
func (r *Replays) Delete(ctx context.Context, name string) error {
	obs := r.store()
	if obs == nil {
		return ErrNotReady
	}
	err := obs.Delete(ctx, name)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil
	}
	return err
}

// Watch follows the store until ctx ends: snapshot gets every verified
// replay once the store has been read (again after each reconnection of
// the watch), then update each change (gone: deleted, or replaced by an
// object that does not verify). Objects that fail their signature are
// left out and counted (Forged).
func (r *Replays) Watch(ctx context.Context, snapshot func([]StoredReplay), update func(sr StoredReplay, gone bool)) {
	select {
	case <-r.ready:
	case <-ctx.Done():
		return
	}
	for ctx.Err() == nil {
		r.watchOnce(ctx, snapshot, update)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func (r *Replays) watchOnce(ctx context.Context, snapshot func([]StoredReplay), update func(StoredReplay, bool)) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := r.store().Watch(wctx)
	if err != nil {
		r.n.log.Warn("cluster: watching the replay bucket", "err", err)
		return
	}
	defer w.Stop()
	var initial []StoredReplay
	synced := false
	for {
		var info *jetstream.ObjectInfo
		var ok bool
		select {
		case info, ok = <-w.Updates():
		case <-ctx.Done():
			return
		}
		if !ok {
			return
		}
		if info == nil {
			synced = true
			snapshot(initial)
			initial = nil
			continue
		}
		sr, good := r.verify(info)
		if !good && !info.Deleted {
			r.Forged.Add(1)
		}
		switch {
		case !synced && good:
			initial = append(initial, sr)
		case synced:
			if !good {
				sr = StoredReplay{Name: info.Name}
			}
			update(sr, !good)
		}
	}
}
