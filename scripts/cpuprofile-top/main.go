// Command cpuprofile-top summarizes a Chrome DevTools Protocol CPU profile
// (a .cpuprofile, as TestBrowserFramePerf writes with WEBTRON_CPUPROFILE):
// the functions with the most time of their own (self) and in all they call
// (total), in milliseconds and as a share of the profile's busy time (its
// samples outside "(idle)", "(program)" and "(garbage collector)" counted in).
//
//	go run ./scripts/cpuprofile-top -n 30 /tmp/prof/frameperf-32-worker.cpuprofile
//	go run ./scripts/cpuprofile-top -focus 'frame worker.js' /tmp/prof/frameperf-32-worker.cpuprofile
//
// -focus keeps the samples with a function whose name contains the text on
// their stack: what that function and its callees spend.
//
// Functions compiled from WebAssembly are named by the wasm's name section
// (Go's package.function) when Chromium has it, else wasm-function[N].
package main

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// profile is the part of a CDP Profiler.Profile read here.
type profile struct {
	Nodes []struct {
		ID        int64   `json:"id"`
		CallFrame frame   `json:"callFrame"`
		Children  []int64 `json:"children"`
	} `json:"nodes"`
	StartTime  float64 `json:"startTime"`
	EndTime    float64 `json:"endTime"`
	Samples    []int64 `json:"samples"`
	TimeDeltas []int64 `json:"timeDeltas"`
}

type frame struct {
	FunctionName string `json:"functionName"`
	URL          string `json:"url"`
	LineNumber   int    `json:"lineNumber"`
}

// row is one function's time, microseconds.
type row struct {
	name        string
	self, total float64
}

func main() {
	n := flag.Int("n", 25, "rows to print")
	focus := flag.String("focus", "", "keep only the samples with a function whose name contains this on their stack")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: cpuprofile-top [-n rows] file.cpuprofile")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	rows, busy, all, err := summarize(f, *focus)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%.0f ms profiled, %.0f ms busy (%.1f%%)\n", all/1000, busy/1000, 100*busy/max(all, 1))
	fmt.Printf("%10s %6s %10s %6s  %s\n", "self ms", "%", "total ms", "%", "function")
	for _, r := range rows[:min(*n, len(rows))] {
		fmt.Printf("%10.1f %6.2f %10.1f %6.2f  %s\n", r.self/1000, 100*r.self/max(busy, 1), r.total/1000, 100*r.total/max(busy, 1), r.name)
	}
}

// idle are the profile's pseudo-functions that are not script work.
var idle = map[string]bool{"(idle)": true, "(program)": true, "(root)": true}

// summarize reads a profile and returns its functions by self time (largest
// first), the busy time and the whole time profiled, microseconds. A sample
// counts for the time to the next one; a function that recurses counts
// once per sample in its total.
func summarize(r io.Reader, focus string) (rows []row, busy, all float64, err error) {
	var p profile
	if err := json.NewDecoder(r).Decode(&p); err != nil {
		return nil, 0, 0, fmt.Errorf("reading the profile: %w", err)
	}
	if len(p.Samples) != len(p.TimeDeltas) {
		return nil, 0, 0, fmt.Errorf("%d samples but %d time deltas", len(p.Samples), len(p.TimeDeltas))
	}
	parent := map[int64]int64{}
	name := map[int64]string{}
	for _, nd := range p.Nodes {
		cf := nd.CallFrame
		s := cf.FunctionName
		if s == "" {
			s = "(anonymous)"
		}
		if cf.URL != "" {
			s += fmt.Sprintf(" %s:%d", base(cf.URL), cf.LineNumber+1)
		}
		name[nd.ID] = s
		for _, c := range nd.Children {
			parent[c] = nd.ID
		}
	}
	by := map[string]*row{}
	get := func(s string) *row {
		if by[s] == nil {
			by[s] = &row{name: s}
		}
		return by[s]
	}
	for i, id := range p.Samples {
		var dt float64
		if i+1 < len(p.TimeDeltas) {
			dt = float64(p.TimeDeltas[i+1])
		}
		all += dt
		leaf := name[id]
		if idle[leaf] || (focus != "" && !onStack(id, parent, name, focus)) {
			continue
		}
		busy += dt
		get(leaf).self += dt
		seen := map[string]bool{}
		for at, ok := id, true; ok; at, ok = parent[at] {
			s := name[at]
			if !seen[s] && !idle[s] {
				seen[s] = true
				get(s).total += dt
			}
		}
	}
	for _, r := range by {
		rows = append(rows, *r)
	}
	slices.SortFunc(rows, func(a, b row) int { return cmp.Or(cmp.Compare(b.self, a.self), cmp.Compare(a.name, b.name)) })
	return rows, busy, all, nil
}

// onStack reports whether a function whose name contains s is on the stack of node id.
func onStack(id int64, parent map[int64]int64, name map[int64]string, s string) bool {
	for at, ok := id, true; ok; at, ok = parent[at] {
		if strings.Contains(name[at], s) {
			return true
		}
	}
	return false
}

// base is a URL's last path element, without its query.
func base(u string) string {
	for i := len(u) - 1; i >= 0; i-- {
		if u[i] == '?' {
			u = u[:i]
		}
	}
	for i := len(u) - 1; i >= 0; i-- {
		if u[i] == '/' {
			return u[i+1:]
		}
	}
	return u
}
