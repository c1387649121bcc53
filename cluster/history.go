package cluster

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The rooms' histories, replicated as they are made (issue 26): each room
// appends its records (opaque to this package: the room's snapshots, events
// and seats) to a subject of its own in the JetStream stream HistoryStream,
// replicated like the lease bucket. The node that takes a dead node's room
// over reads them back (Recover) and carries the round on.
//
// Records go out in batches, one JetStream message each, written by one
// goroutine per room (History): the room hands a record over without
// waiting (a bounded queue), and the writer sends whatever has queued up
// while the previous batch was being acknowledged (group commit). A batch
// is acknowledged once a majority of the stream's replicas stored it: its
// records are durable then (History.Durable).
//
// Each batch is fenced and signed:
//
//   - fenced: it is published with the subject's last sequence expected
//     (Nats-Expected-Last-Subject-Sequence), so two nodes cannot both
//     append to one room's history: the one that finds the subject moved
//     on under it has lost the room (History.Lost), whatever its lease
//     says;
//   - signed: an HMAC, with a key derived from the cluster secret, over the
//     room's subject, the writer, the batch's index, the previous batch's
//     signature and the records. Recover accepts only an unbroken chain of
//     such batches from a base record (a snapshot) on, so that whoever may
//     publish on NATS without the secret can neither forge, reorder, move
//     from room to room nor splice in a batch: at worst it can delete (or
//     make a room's writer stop), never make a room replay a story that no
//     node wrote.

// HistoryStream is the JetStream stream of the rooms' histories.
const HistoryStream = "webtron-history"

// historyPrefix begins every room's subject in HistoryStream.
const historyPrefix = "webtron.history."

// historySubject is room's subject in HistoryStream.
func historySubject(room string) string { return historyPrefix + roomKey(room) }

// historySig is the header carrying a batch's signature.
const historySig = "Webtron-Sig"

// Record flags (History.Append).
const (
	// Base marks a record that holds everything needed to rebuild the room
	// (a snapshot and what follows it): Recover starts from the last one.
	Base byte = 1 << iota
	// RoundStart marks a base record made at a round's start: once it is
	// durable, the older records of the room are purged.
	RoundStart
	// endFlag is the record a room closed for good ends its history with.
	endFlag
)

// Limits of the history queue and batches.
const (
	// HistoryQueue is how many records a room may have waiting for the
	// writer. A room whose queue is full has the record refused (Append
	// says so) and must start again from a base record: the records after
	// a gap would not rebuild the room.
	HistoryQueue = 1024
	maxBatch     = 512 << 10 // bytes of records in one message (JetStream's default limit is 1 MB)
	// historyAge is how long the stream keeps a record: a room that is
	// alive writes a base record more often than that.
	historyAge = time.Hour
)

// ErrHistoryLost says another writer appended to a room's history: the
// room belongs to another node now.
var ErrHistoryLost = errors.New("cluster: the room's history was continued by another node")

// openHistory makes (or finds) the history stream.
func (n *Node) openHistory(ctx context.Context) (jetstream.Stream, error) {
	cfg := jetstream.StreamConfig{Name: HistoryStream, Description: "webtron rooms' histories (snapshots, events, seats), one subject per room",
		Subjects: []string{historyPrefix + ">"}, Storage: jetstream.FileStorage, Replicas: n.opt.Replicas,
		MaxAge: historyAge, MaxBytes: 256 << 20, Discard: jetstream.DiscardOld, Duplicates: 2 * time.Minute,
		AllowDirect: true}
	st, err := n.js.CreateOrUpdateStream(ctx, cfg)
	if err != nil && !errors.Is(err, context.Canceled) {
		if st2, err2 := n.js.Stream(ctx, HistoryStream); err2 == nil {
			n.log.Warn("cluster: history stream exists with other settings; using it", "err", err)
			return st2, nil
		}
	}
	return st, err
}

func (n *Node) historyStream() jetstream.Stream {
	n.kvMu.Lock()
	defer n.kvMu.Unlock()
	return n.hist
}

// Chain is where a room's history ends: the last batch's index, signature
// and stream sequence. A room rebuilt from Recover continues the chain from
// it; a new room starts one (the zero Chain).
type Chain struct {
	Index uint64
	Sig   [sha256.Size]byte
	Seq   uint64 // the subject's last sequence
	Base  uint64 // the sequence of the newest batch holding a base record
}

// batch is one message of a room's history.
type batch struct {
	writer string
	index  uint64
	prev   [sha256.Size]byte
	wall   int64 // when it was written, unix ms
	// base is the stream sequence of the newest batch before this one
	// that holds a base record (0: none known): a reader rebuilding the
	// room starts there rather than at the round's start.
	base uint64
	recs []record
	sig  [sha256.Size]byte
	seq  uint64
}

type record struct {
	flags byte
	data  []byte
}

const batchVersion = 2

// encode lays b out as the message body.
func (b *batch) encode(dst []byte) []byte {
	dst = append(dst, batchVersion)
	dst = binary.AppendUvarint(dst, uint64(len(b.writer)))
	dst = append(dst, b.writer...)
	dst = binary.AppendUvarint(dst, b.index)
	dst = append(dst, b.prev[:]...)
	dst = binary.AppendVarint(dst, b.wall)
	dst = binary.AppendUvarint(dst, b.base)
	dst = binary.AppendUvarint(dst, uint64(len(b.recs)))
	for _, r := range b.recs {
		dst = append(dst, r.flags)
		dst = binary.AppendUvarint(dst, uint64(len(r.data)))
		dst = append(dst, r.data...)
	}
	return dst
}

var errBatch = errors.New("cluster: malformed history batch")

func decodeBatch(p []byte) (*batch, error) {
	if len(p) == 0 || p[0] != batchVersion {
		return nil, errBatch
	}
	p = p[1:]
	uv := func() (uint64, bool) {
		v, k := binary.Uvarint(p)
		if k <= 0 {
			return 0, false
		}
		p = p[k:]
		return v, true
	}
	bytesOf := func(l uint64) ([]byte, bool) {
		if l > uint64(len(p)) {
			return nil, false
		}
		b := p[:l]
		p = p[l:]
		return b, true
	}
	b := &batch{}
	l, ok := uv()
	w, ok2 := bytesOf(l)
	if !ok || !ok2 {
		return nil, errBatch
	}
	b.writer = string(w)
	if b.index, ok = uv(); !ok || len(p) < sha256.Size {
		return nil, errBatch
	}
	copy(b.prev[:], p)
	p = p[sha256.Size:]
	wall, k := binary.Varint(p)
	if k <= 0 {
		return nil, errBatch
	}
	b.wall, p = wall, p[k:]
	if b.base, ok = uv(); !ok {
		return nil, errBatch
	}
	count, ok := uv()
	if !ok || count > uint64(len(p)) {
		return nil, errBatch
	}
	b.recs = make([]record, 0, count)
	for range count {
		if len(p) == 0 {
			return nil, errBatch
		}
		f := p[0]
		p = p[1:]
		l, ok := uv()
		d, ok2 := bytesOf(l)
		if !ok || !ok2 {
			return nil, errBatch
		}
		b.recs = append(b.recs, record{flags: f, data: d})
	}
	if len(p) != 0 {
		return nil, errBatch
	}
	return b, nil
}

// historyMAC signs a batch body on a room's subject.
func (k *keys) historyMAC(subject string, body []byte) [sha256.Size]byte {
	m := hmac.New(sha256.New, k.history)
	m.Write([]byte(subject))
	m.Write([]byte{0})
	m.Write(body)
	var out [sha256.Size]byte
	copy(out[:], m.Sum(nil))
	return out
}

// openBatch checks a stored message's signature and decodes it; nil when
// it is not a batch signed with this cluster's secret for this subject.
func (k *keys) openBatch(subject string, body []byte, sigHex string, seq uint64) *batch {
	sig, err := hex.DecodeString(sigHex)
	if err != nil || len(sig) != sha256.Size {
		return nil
	}
	want := k.historyMAC(subject, body)
	if !hmac.Equal(want[:], sig) {
		return nil
	}
	b, err := decodeBatch(body)
	if err != nil {
		return nil
	}
	b.sig, b.seq = want, seq
	return b
}

// Encoder is a record handed to History.Append: it appends its encoding to
// dst. It runs on the writer's goroutine, not the room's.
type Encoder interface {
	AppendRecord(dst []byte) []byte
}

// History is one room's writer: Append queues a record, a goroutine of its
// own writes the queue out in batches.
type History struct {
	n       *Node
	room    string
	subject string
	writer  string

	q    chan queued
	quit chan struct{} // closed by Close
	done chan struct{} // closed when the writer has returned
	end  atomic.Bool   // Close asked for an end record
	lost chan struct{} // closed when another writer took the room

	appended uint64        // records taken by Append (the room's goroutine only)
	durable  atomic.Uint64 // records acknowledged
	acked    chan struct{} // a token after each acknowledgement (Acked)
	// OnDurable, if set before the first Append, is called on the writer's
	// goroutine for each record made durable, with when it was queued: the
	// server measures the cost of a write-ahead with it.
	OnDurable func(rec Encoder, queued time.Time)

	chain Chain
}

type queued struct {
	enc   Encoder
	flags byte
	n     uint64
	at    time.Time
}

// OpenHistory starts room's writer. from is the chain Recover returned for
// a room rebuilt from its history, or the zero Chain for a new room (which
// supersedes whatever an earlier room of that name left, from its first
// base record on). The room must be this node's (a lease it holds).
func (n *Node) OpenHistory(room string, from Chain) *History {
	h := &History{n: n, room: room, subject: historySubject(room),
		writer: n.opt.Name + "/" + n.inc + "/" + strconv.FormatUint(n.histGen.Add(1), 10),
		q:      make(chan queued, HistoryQueue), acked: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{}), lost: make(chan struct{}), chain: from}
	n.histWG.Add(1)
	go h.run(from == Chain{})
	return h
}

// Append queues rec (flags: Base, RoundStart) without waiting, and returns
// its number (1, 2, ... in order) or false when the queue is full: then the
// record is dropped, and nothing after it rebuilds the room until the next
// base record. One goroutine (the room's) calls Append.
func (h *History) Append(rec Encoder, flags byte) (uint64, bool) {
	select {
	case h.q <- queued{enc: rec, flags: flags & (Base | RoundStart), n: h.appended + 1, at: time.Now()}:
		h.appended++
		return h.appended, true
	default:
		h.n.metrics.HistoryDropped.Add(1)
		return 0, false
	}
}

// Durable returns the number of the newest record a majority of the
// stream's replicas has stored: it and every record before it survive this
// node.
func (h *History) Durable() uint64 { return h.durable.Load() }

// Appended returns the number of the newest record Append took. Like
// Append, it is for the room's goroutine only.
func (h *History) Appended() uint64 { return h.appended }

// Acked receives a token whenever records were made durable since it was
// last read: a room that holds its output until its records are durable
// (write-ahead) wakes on it rather than polling Durable.
func (h *History) Acked() <-chan struct{} { return h.acked }

// Lost is closed when another node has continued the room's history: this
// node must close the room.
func (h *History) Lost() <-chan struct{} { return h.lost }

// Close stops the writer once it has written what is queued. With end, the
// room is over for good: its history ends with a record saying so, and the
// older records are purged, so that no node rebuilds the room from them.
// Close does not wait.
func (h *History) Close(end bool) {
	h.end.Store(end)
	select {
	case <-h.quit:
	default:
		close(h.quit)
	}
}

// Done is closed once the writer has returned.
func (h *History) Done() <-chan struct{} { return h.done }

// endRecord is the record Close(true) writes.
type endRecord struct{}

func (endRecord) AppendRecord(dst []byte) []byte { return dst }

func (h *History) run(fresh bool) {
	defer h.n.histWG.Done()
	defer close(h.done)
	if fresh {
		h.startChain()
	}
	var pending []queued
	for {
		if len(pending) == 0 {
			select {
			case q := <-h.q:
				pending = append(pending, q)
			case <-h.quit:
				h.finish()
				return
			case <-h.n.ctx.Done():
				return
			}
		}
	fill:
		for len(pending) < HistoryQueue {
			select {
			case q := <-h.q:
				pending = append(pending, q)
			default:
				break fill
			}
		}
		var err error
		if pending, err = h.write(pending); err != nil {
			return // lost, or the node is closing
		}
	}
}

// finish writes what is queued and, for a room over for good, the end.
func (h *History) finish() {
	var pending []queued
	for {
		select {
		case q := <-h.q:
			pending = append(pending, q)
			continue
		default:
		}
		break
	}
	if h.end.Load() {
		pending = append(pending, queued{enc: endRecord{}, flags: endFlag, n: h.appended + 1, at: time.Now()})
	}
	for len(pending) > 0 {
		var err error
		if pending, err = h.write(pending); err != nil {
			return
		}
	}
}

// startChain continues the chain of the subject's last batch when it is a
// good one (a room of the same name before this one), so that Recover
// walks from either room's base to this one's without a break; else a new
// chain starts.
func (h *History) startChain() {
	for {
		ctx, cancel := h.n.opctx()
		st := h.n.historyStream()
		var err error
		if st != nil {
			var m *jetstream.RawStreamMsg
			m, err = st.GetLastMsgForSubject(ctx, h.subject)
			switch {
			case errors.Is(err, jetstream.ErrMsgNotFound):
				err = nil
			case err == nil:
				h.chain.Seq = m.Sequence
				if b := h.n.keys.openBatch(h.subject, m.Data, m.Header.Get(historySig), m.Sequence); b != nil {
					h.chain.Index, h.chain.Sig = b.index, b.sig
				}
			}
		} else {
			err = ErrNotReady
		}
		cancel()
		if err == nil {
			return
		}
		if !h.pause() {
			return
		}
	}
}

// pause waits a little before a retry; false when the node is closing.
func (h *History) pause() bool {
	select {
	case <-h.n.ctx.Done():
		return false
	case <-time.After(100 * time.Millisecond):
		return true
	}
}

// write sends the first batch's worth of pending and returns the rest; it
// retries until the batch is stored, the room is lost or the node closes.
func (h *History) write(pending []queued) ([]queued, error) {
	b := &batch{writer: h.writer, index: h.chain.Index + 1, prev: h.chain.Sig, wall: time.Now().UnixMilli(), base: h.chain.Base}
	var scratch []byte
	size, k := 0, 0
	for ; k < len(pending) && (k == 0 || size < maxBatch); k++ {
		start := len(scratch)
		scratch = pending[k].enc.AppendRecord(scratch)
		b.recs = append(b.recs, record{flags: pending[k].flags, data: scratch[start:len(scratch):len(scratch)]})
		size += len(scratch) - start
	}
	body := b.encode(make([]byte, 0, size+64+8*k))
	sig := h.n.keys.historyMAC(h.subject, body)
	id := h.writer + "/" + strconv.FormatUint(b.index, 10)
	for tries := 0; ; tries++ {
		seq, err := h.publish(body, sig, id)
		if err == nil {
			h.chain = Chain{Index: b.index, Sig: sig, Seq: seq, Base: h.chain.Base}
			for _, q := range pending[:k] {
				if q.flags&Base != 0 {
					h.chain.Base = seq
				}
			}
			last := pending[k-1]
			h.durable.Store(last.n)
			select {
			case h.acked <- struct{}{}:
			default:
			}
			h.n.metrics.HistoryBatches.Add(1)
			h.n.metrics.HistoryRecords.Add(uint64(k))
			h.n.metrics.HistoryBytes.Add(uint64(len(body)))
			if h.OnDurable != nil {
				for _, q := range pending[:k] {
					h.OnDurable(q.enc, q.at)
				}
			}
			for _, q := range pending[:k] {
				if q.flags&(RoundStart|endFlag) != 0 {
					h.purgeBefore(seq)
					break
				}
			}
			return pending[k:], nil
		}
		if errors.Is(err, ErrHistoryLost) {
			h.n.metrics.HistoryLost.Add(1)
			h.n.log.Warn("cluster: another node continued a room's history; giving the room up", "room", h.room)
			close(h.lost)
			return nil, err
		}
		if h.n.ctx.Err() != nil {
			return nil, err
		}
		if tries == 0 {
			h.n.log.Warn("cluster: writing a room's history failed; retrying", "room", h.room, "err", err)
		}
		if !h.pause() {
			return nil, err
		}
	}
}

// publish stores one batch, fenced on the subject's last sequence. A
// fence that fails because the batch is in already (an acknowledgement
// lost on the way) is a success; one that finds another node's batch
// continuing the chain is ErrHistoryLost; one that finds anything else (a
// message published without the secret, or an old batch replayed) steps
// over it.
func (h *History) publish(body []byte, sig [sha256.Size]byte, id string) (uint64, error) {
	msg := &nats.Msg{Subject: h.subject, Data: body, Header: nats.Header{}}
	msg.Header.Set(historySig, hex.EncodeToString(sig[:]))
	ctx, cancel := h.n.opctx()
	defer cancel()
	ack, err := h.n.js.PublishMsg(ctx, msg, jetstream.WithExpectLastSequencePerSubject(h.chain.Seq), jetstream.WithMsgID(id))
	if err == nil {
		return ack.Sequence, nil
	}
	var api *jetstream.APIError
	if !errors.As(err, &api) || (api.ErrorCode != jetstream.JSErrCodeStreamWrongLastSequence && api.ErrorCode != jetstream.JSErrCodeStreamWrongLastSequenceConstant) {
		return 0, err
	}
	st := h.n.historyStream()
	m, err := st.GetLastMsgForSubject(ctx, h.subject)
	if err != nil {
		return 0, err
	}
	if bytes.Equal(m.Data, body) {
		return m.Sequence, nil
	}
	// Another node continuing the chain writes batches past this one's;
	// a batch of this chain or an older one, published again, is a replay.
	if b := h.n.keys.openBatch(h.subject, m.Data, m.Header.Get(historySig), m.Sequence); b != nil && b.writer != h.writer && b.index > h.chain.Index {
		return 0, fmt.Errorf("%w (%s)", ErrHistoryLost, b.writer)
	}
	h.n.metrics.HistoryForged.Add(1)
	h.chain.Seq = m.Sequence // not part of the chain: it goes on over it
	return 0, errors.New("cluster: a message that is not part of the room's history was published in it")
}

// purgeBefore drops the room's records older than seq.
func (h *History) purgeBefore(seq uint64) {
	st := h.n.historyStream()
	if st == nil {
		return
	}
	ctx, cancel := h.n.opctx()
	defer cancel()
	if err := st.Purge(ctx, jetstream.WithPurgeSubject(h.subject), jetstream.WithPurgeSequence(seq)); err != nil {
		h.n.log.Debug("cluster: purging a room's old history", "room", h.room, "err", err)
	}
}

// Recovered is a room's history as Recover reads it back.
type Recovered struct {
	// Records are the records from the last base record on, in order; the
	// first is that base record.
	Records [][]byte
	// All are every record of the chain still stored, in order: since the
	// last round's start (older ones are purged), across the nodes that
	// wrote it, for a test or an operator to compare with what clients saw.
	All [][]byte
	// Chain is where the history ends, for OpenHistory to continue.
	Chain Chain
	// Written is when the last batch was written.
	Written time.Time
	// Skipped counts messages that were not part of the chain: unsigned,
	// signed for another room, or replayed out of order.
	Skipped int
}

// ErrNoHistory says a room has no history to rebuild it from: none
// written, or ended (the room was over), or none that verifies.
var ErrNoHistory = errors.New("cluster: no history to rebuild the room from")

// Recover reads room's history back: the records from its last base
// record on, as long as the batches carrying them form an unbroken signed
// chain. The room must be this node's (a lease it holds or just took). It
// reads by direct gets, which any replica of the stream answers: a stream
// whose leader died with its node (the node whose rooms are being carried
// on) is read while it elects another.
func (n *Node) Recover(ctx context.Context, room string) (Recovered, error) {
	return n.recover(ctx, room, false)
}

// RecoverAll is Recover that also reads every record of the chain still
// stored (Recovered.All), from the round's start.
func (n *Node) RecoverAll(ctx context.Context, room string) (Recovered, error) {
	return n.recover(ctx, room, true)
}

func (n *Node) recover(ctx context.Context, room string, all bool) (Recovered, error) {
	st := n.historyStream()
	if st == nil {
		return Recovered{}, ErrNotReady
	}
	subj := historySubject(room)
	last, err := st.GetLastMsgForSubject(ctx, subj)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return Recovered{}, ErrNoHistory
	}
	if err != nil {
		return Recovered{}, fmt.Errorf("cluster: reading the history of %q: %w", room, err)
	}
	// The last batch names where the newest base record before it is; a
	// forged or unsigned last message says nothing, and the whole subject
	// is read.
	from := uint64(1)
	if b := n.keys.openBatch(subj, last.Data, last.Header.Get(historySig), last.Sequence); b != nil && b.base > 0 && !all {
		from = b.base
		if hasBase(b) {
			from = last.Sequence
		}
	}
	var msgs []*batch
	skipped := 0
	for seq := from; seq <= last.Sequence; {
		m, err := st.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subj))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			break
		}
		if err != nil {
			return Recovered{}, fmt.Errorf("cluster: reading the history of %q: %w", room, err)
		}
		if b := n.keys.openBatch(subj, m.Data, m.Header.Get(historySig), m.Sequence); b != nil {
			msgs = append(msgs, b)
		} else {
			skipped++
		}
		seq = m.Sequence + 1
	}
	out, extra := chainOf(msgs)
	out.Skipped = skipped + extra
	if out.Skipped > 0 {
		n.metrics.HistoryForged.Add(uint64(out.Skipped))
		n.log.Warn("cluster: messages in a room's history that are not part of it were skipped", "room", room, "skipped", out.Skipped)
	}
	// The fence goes on from the subject's last message, even one skipped.
	out.Chain.Seq = max(out.Chain.Seq, last.Sequence)
	if out.Records == nil {
		return out, ErrNoHistory
	}
	return out, nil
}

// chainOf walks verified batches in stream order and returns the records
// from the last base record of the unbroken chain on. A batch extends the
// chain when it names the previous one (index and signature); a batch that
// starts a chain (index 1) restarts it only when it is newer than the
// chain so far (an earlier room's genesis replayed later would roll the
// room back). It also returns how many batches it skipped.
func chainOf(bs []*batch) (Recovered, int) {
	var out Recovered
	var last *batch
	var baseSeq uint64
	skipped := 0
	ended := false
	for _, b := range bs {
		switch {
		case last != nil && b.index == last.index+1 && b.prev == last.sig:
		case b.index == 1 && b.prev == [sha256.Size]byte{} && (last == nil || b.wall > last.wall):
			out.Records, out.All = nil, nil
		case last == nil && hasBase(b):
			// The first kept batch: those before it were purged.
		default:
			skipped++
			continue
		}
		last = b
		for _, r := range b.recs {
			if r.flags&endFlag == 0 {
				out.All = append(out.All, r.data)
			}
			switch {
			case r.flags&endFlag != 0:
				out.Records, ended = nil, true
			case r.flags&Base != 0:
				out.Records, ended, baseSeq = [][]byte{r.data}, false, b.seq
			case out.Records != nil:
				out.Records = append(out.Records, r.data)
			}
		}
	}
	if last != nil {
		out.Chain = Chain{Index: last.index, Sig: last.sig, Seq: last.seq, Base: baseSeq}
		out.Written = time.UnixMilli(last.wall)
	}
	if ended {
		out.Records = nil
	}
	return out, skipped
}

func hasBase(b *batch) bool {
	for _, r := range b.recs {
		if r.flags&Base != 0 {
			return true
		}
	}
	return false
}

// closeHistories lets the rooms' writers finish what is queued, for at most
// d, before the node closes.
func (n *Node) closeHistories(d time.Duration) {
	done := make(chan struct{})
	go func() { n.histWG.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
	}
}
