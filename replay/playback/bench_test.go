package playback

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"webtron/web/view"
)

// The figures of docs/performance.md (replays): a round of eight bots of at
// least five minutes.
//
//	go test -run '^$' -bench . -benchmem ./replay/playback/

// BenchmarkFirstFrame is the time to first frame: open the file (checksum,
// parse, start snapshot) and encode the first frame for the renderer.
func BenchmarkFirstFrame(b *testing.B) {
	f, raw := longRound(b)
	for b.Loop() {
		p, err := Open(raw, Options{})
		if err != nil {
			b.Fatal(err)
		}
		var enc view.Encoder
		enc.Frame(p.ViewState(), -1, 0, 0)
	}
	b.ReportMetric(float64(len(raw))/1024, "KiB-file")
	b.ReportMetric(float64(f.Record.EndTick-f.Record.StartTick)/float64(120), "s-round")
}

// BenchmarkLoad is the whole load pass (every hash checked, snapshots and
// keyframes saved), and the memory the loaded player holds.
func BenchmarkLoad(b *testing.B) {
	_, raw := longRound(b)
	var p *Player
	for b.Loop() {
		var err error
		if p, err = Open(raw, Options{}); err != nil {
			b.Fatal(err)
		}
		p.LoadAll()
	}
	if err := p.Damaged(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(heapOf(func() any { q, _ := Open(raw, Options{}); q.LoadAll(); return q }), "MiB-held")
}

// heapOf returns the heap that what make returns keeps alive, in MiB.
func heapOf(make func() any) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := make()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20)
}

// BenchmarkSeek is one seek to a random tick of a loaded round; p99-ms and
// max-ms are the slowest of them (the issue asks every seek to take under
// 100 ms; on a shared machine the maximum catches other processes too).
func BenchmarkSeek(b *testing.B) {
	_, raw := longRound(b)
	p, err := Open(raw, Options{})
	if err != nil {
		b.Fatal(err)
	}
	p.LoadAll()
	start, end := p.Range()
	seeks(b, p, start, end)
}

// seeks times seeks to random ticks of p: the 99th percentile and the
// maximum of wall time, and the maximum of the thread's CPU time (the work
// itself, which another process's turn on the core does not inflate).
func seeks(b *testing.B, p *Player, start, end int64) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	rng := rand.New(rand.NewPCG(1, 2))
	var times []time.Duration
	var cpu time.Duration
	for b.Loop() {
		c0, ok := threadCPU()
		t0 := time.Now()
		if err := p.SeekTick(start + rng.Int64N(end-start+1)); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
		if c1, _ := threadCPU(); ok {
			cpu = max(cpu, c1-c0)
		}
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)*99/100])/1e6, "p99-ms")
	b.ReportMetric(float64(times[len(times)-1])/1e6, "max-ms")
	if cpu > 0 {
		b.ReportMetric(float64(cpu)/1e6, "max-cpu-ms")
	}
}

// BenchmarkSeekSight is one seek to a random tick of a player's view: her
// history rebuilt from the record and predicted to that tick.
func BenchmarkSeekSight(b *testing.B) {
	f := duelRun(b).longest()
	p := open(b, f)
	p.LoadAll()
	if err := p.SetView(humans(f)[1]); err != nil {
		b.Fatal(err)
	}
	start, end := p.Range()
	seeks(b, p, start, end)
}

// BenchmarkStep is playing on by one tick, overhead and in a player's view.
func BenchmarkStep(b *testing.B) {
	f := duelRun(b).longest()
	for _, view := range []int{-1, humans(f)[1]} {
		name := "overhead"
		if view >= 0 {
			name = "sight"
		}
		b.Run(name, func(b *testing.B) {
			p := open(b, f)
			p.LoadAll()
			if err := p.SetView(view); err != nil {
				b.Fatal(err)
			}
			start, end := p.Range()
			for b.Loop() {
				if p.Tick() == end {
					p.SeekTick(start)
				}
				if err := p.Step(1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
