package vnet

import "time"

// event is what runs when its time comes: a timer (fn set) or a delivery.
// Events live in a slab and the heap holds small entries pointing into it, so
// sifting moves 24 bytes and scheduling allocates nothing once the slab has
// grown to the run's peak.
type event struct {
	seq      uint64 // the scheduling number of the live occupant; 0 when the slot is free
	fn       func()
	msg      []byte
	from, to NodeID
	id       uint64
}

// entry is a heap element. An entry whose seq no longer matches its slot's is
// stale (its timer was stopped, and the slot perhaps reused) and is skipped.
type entry struct {
	at   time.Duration
	seq  uint64
	slot int32
}

// queue is a binary min-heap ordered by (at, seq), over a slab of events.
type queue struct {
	h    []entry
	ev   []event
	free []int32
}

func (a entry) less(b entry) bool {
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}

func (q *queue) push(e entry) {
	q.h = append(q.h, e)
	i := len(q.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !e.less(q.h[p]) {
			break
		}
		q.h[i] = q.h[p]
		i = p
	}
	q.h[i] = e
}

func (q *queue) pop() entry {
	top := q.h[0]
	last := len(q.h) - 1
	e := q.h[last]
	q.h = q.h[:last]
	if last > 0 {
		i := 0
		for {
			c := 2*i + 1
			if c >= last {
				break
			}
			if c+1 < last && q.h[c+1].less(q.h[c]) {
				c++
			}
			if !q.h[c].less(e) {
				break
			}
			q.h[i] = q.h[c]
			i = c
		}
		q.h[i] = e
	}
	return top
}

// head drops stale entries off the top and reports the next live one.
func (q *queue) head() (entry, bool) {
	for len(q.h) > 0 {
		if e := q.h[0]; q.ev[e.slot].seq == e.seq {
			return e, true
		}
		q.pop()
	}
	return entry{}, false
}

func (q *queue) release(slot int32) {
	q.ev[slot] = event{} // drop references so the message and closure can be collected
	q.free = append(q.free, slot)
}

// schedule queues ev at time at (never earlier than now) and returns where it
// lives, for Timer.
func (n *Net) schedule(at time.Duration, ev event) (int32, uint64) {
	if at < n.now {
		at = n.now
	}
	n.seq++
	ev.seq = n.seq
	var slot int32
	if k := len(n.q.free); k > 0 {
		slot = n.q.free[k-1]
		n.q.free = n.q.free[:k-1]
		n.q.ev[slot] = ev
	} else {
		slot = int32(len(n.q.ev))
		n.q.ev = append(n.q.ev, ev)
	}
	n.q.push(entry{at: at, seq: ev.seq, slot: slot})
	return slot, ev.seq
}

// Timer is a handle on a callback scheduled by At or After. The zero Timer is
// valid and refers to nothing.
type Timer struct {
	n    *Net
	slot int32
	seq  uint64
}

// Stop cancels the callback and reports whether it did; false means it had
// already run or been stopped. A callback may stop another one due at the same
// instant, and that one then does not run.
func (t Timer) Stop() bool {
	if t.n == nil || t.n.q.ev[t.slot].seq != t.seq {
		return false
	}
	t.n.q.release(t.slot)
	return true
}

// Now returns the virtual time.
func (n *Net) Now() time.Duration { return n.now }

// At schedules fn to run at virtual time t. A t in the past means now, after
// the events already queued for now: time never goes backwards.
func (n *Net) At(t time.Duration, fn func()) Timer {
	slot, seq := n.schedule(t, event{fn: fn})
	return Timer{n: n, slot: slot, seq: seq}
}

// After schedules fn to run d after now; it is At(Now()+d, fn).
func (n *Net) After(d time.Duration, fn func()) Timer { return n.At(n.now+d, fn) }

// Step runs the next event, moving the clock to its time, and reports whether
// there was one.
func (n *Net) Step() bool {
	n.notInCallback()
	top, ok := n.q.head()
	if !ok {
		return false
	}
	n.q.pop()
	ev := n.q.ev[top.slot]
	n.q.release(top.slot)
	n.now = top.at
	n.running = true
	defer func() { n.running = false }()
	if ev.fn != nil {
		ev.fn()
	} else {
		n.deliver(ev)
	}
	return true
}

// Run runs every event due at or before until, including those scheduled
// meanwhile, then leaves the clock at until (or where it was, if later), so
// that the next After counts from there.
func (n *Net) Run(until time.Duration) {
	n.notInCallback()
	for {
		top, ok := n.q.head()
		if !ok || top.at > until {
			break
		}
		n.Step()
	}
	if until > n.now {
		n.now = until
	}
}

func (n *Net) notInCallback() {
	if n.running {
		panic("vnet: Run, RunFor or Step called from a callback")
	}
}

// RunFor runs the network for d of virtual time; it is Run(Now()+d).
func (n *Net) RunFor(d time.Duration) { n.Run(n.now + d) }
