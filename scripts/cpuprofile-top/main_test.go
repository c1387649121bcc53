package main

import (
	"strings"
	"testing"
)

// TestSummarize: self time goes to the sample's leaf, total time to every
// function on its stack once (recursion counted once), idle samples to
// neither; -focus keeps the samples under the function named.
func TestSummarize(t *testing.T) {
	// root -> a -> b -> a (recursion); root -> (idle). A sample counts for
	// the time to the next one.
	const prof = `{"nodes":[
	 {"id":1,"callFrame":{"functionName":"(root)"},"children":[2,5]},
	 {"id":2,"callFrame":{"functionName":"a","url":"http://x/app.js?v=1","lineNumber":9},"children":[3]},
	 {"id":3,"callFrame":{"functionName":"b"},"children":[4]},
	 {"id":4,"callFrame":{"functionName":"a","url":"http://x/app.js?v=1","lineNumber":9}},
	 {"id":5,"callFrame":{"functionName":"(idle)"}}],
	 "samples":[4,3,5,2,5],"timeDeltas":[0,100,200,300,400]}`
	rows, busy, all, err := summarize(strings.NewReader(prof), "")
	if err != nil {
		t.Fatal(err)
	}
	if all != 1000 || busy != 700 {
		t.Fatalf("all %v busy %v, want 1000 and 700", all, busy)
	}
	got := map[string]row{}
	for _, r := range rows {
		got[r.name] = r
	}
	// Samples: a(100 via 4), b(200), idle(300), a(400 via 2), idle(0: last).
	if a := got["a app.js:10"]; a.self != 500 || a.total != 700 {
		t.Errorf("a: %+v, want self 500 total 700", a)
	}
	if b := got["b"]; b.self != 200 || b.total != 300 {
		t.Errorf("b: %+v, want self 200 total 300", b)
	}
	if rows[0].name != "a app.js:10" {
		t.Errorf("first row %q, want a's (most self time)", rows[0].name)
	}
	_, focused, _, err := summarize(strings.NewReader(prof), "b")
	if err != nil {
		t.Fatal(err)
	}
	if focused != 300 {
		t.Errorf("busy under b %v, want 300 (the samples with b on their stack)", focused)
	}
}
