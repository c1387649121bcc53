package stats

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	v := []time.Duration{5, 1, 4, 2, 3}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0, 1}, {0.5, 3}, {0.95, 4}, {1, 5}} {
		if got := Percentile(v, c.q); got != c.want {
			t.Errorf("Percentile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	if v[0] != 5 {
		t.Fatal("Percentile sorted its input")
	}
	if Percentile(nil, 0.5) != 0 || Median(nil) != 0 {
		t.Fatal("no samples must give 0")
	}
	if got := Median([]float64{4, 1, 3, 2}); got != 3 {
		t.Fatalf("Median = %v, want 3 (upper middle)", got)
	}
	if got := Summarize2([]time.Duration{time.Millisecond, 3 * time.Millisecond}); got != (Percentiles2{1, 1}) {
		t.Fatalf("Summarize2 = %+v", got)
	}
}
