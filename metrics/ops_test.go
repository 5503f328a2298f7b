package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// Every observation lands under its labels; the pairs that cannot occur
// are not exported.
func TestOpsObserve(t *testing.T) {
	reg := prometheus.NewRegistry()
	o := NewOps(reg)
	o.Observe(LevelStrong, KindPut, PathFast, time.Millisecond)
	o.Observe(LevelStrong, KindPut, PathFast, time.Millisecond)
	o.Observe(LevelWeak, KindGet, PathWeak, time.Millisecond)
	o.Observe(LevelWeak, KindScan, PathFailed, 0)
	var nilOps *Ops
	nilOps.Observe(LevelStrong, KindGet, PathSlow, time.Second) // off: nothing
	if got := testutil.ToFloat64(o.count[LevelStrong][KindPut][PathFast]); got != 2 {
		t.Fatalf("strong put fast = %v, want 2", got)
	}
	// 2 levels x 3 kinds: strong has fast, slow, failed; weak has weak, failed.
	if n := testutil.CollectAndCount(reg, Namespace+"_client_operations_total"); n != 3*3+3*2 {
		t.Fatalf("%d operation series, want 15", n)
	}
	if n := testutil.CollectAndCount(reg, Namespace+"_client_operation_latency_seconds"); n != 6 {
		t.Fatalf("%d latency series, want 6", n)
	}
}

// BenchmarkObserve is what metrics add to each operation of a client
// process (compare with the cost line's cpu_us per operation).
func BenchmarkObserve(b *testing.B) {
	o := NewOps(prometheus.NewRegistry())
	for i := range b.N {
		o.Observe(i&1, i%3, PathWeak*(i&1), time.Duration(i&1023)*time.Microsecond)
	}
}
