package server

import (
	"sync"
	"testing"
	"time"

	"swiftpaxos/kvs"
	"swiftpaxos/replica"
	"swiftpaxos/wire"
)

// stateN is a loopState whose every field says n, so that a copy mixing
// two publishes shows.
func stateN(n int) loopState {
	return loopState{role: replica.Role(n % 3), member: n%2 == 1, ballot: wire.Ballot(n),
		commit: kvs.Slot(n), applied: kvs.Slot(n), last: kvs.Slot(n), snapshot: kvs.Slot(n),
		logEntries: n, sessions: n, records: n, clients: n, clientQueued: n,
		leaseLeft: time.Duration(n), readsLease: uint64(n), readsRound: uint64(n), readsProposed: uint64(n), quiet: n%2 == 1}
}

func consistent(st loopState) bool {
	return st == stateN(int(st.ballot))
}

// A published state reads back field for field.
func TestStateCellRoundTrip(t *testing.T) {
	var c stateCell
	if got := c.load(); got != (loopState{}) {
		t.Fatalf("before any publish: %+v", got)
	}
	for _, n := range []int{1, 2, 7, 1 << 40} {
		st := stateN(n)
		c.store(&st)
		if got := c.load(); got != st {
			t.Fatalf("published %+v, read %+v", st, got)
		}
	}
}

// Readers racing the loop's publishes never see a copy that mixes two
// of them, and never go back in time.
func TestStateCellReadersSeeWholeCopies(t *testing.T) {
	const publishes = 20000
	var c stateCell
	var wg sync.WaitGroup
	done := make(chan struct{})
	for range 2 {
		wg.Go(func() {
			last := -1
			for {
				select {
				case <-done:
					return
				default:
				}
				st := c.load()
				if !consistent(st) {
					t.Errorf("torn copy: %+v", st)
					return
				}
				if int(st.ballot) < last {
					t.Errorf("read publish %d after %d", st.ballot, last)
					return
				}
				last = int(st.ballot)
			}
		})
	}
	for n := 1; n <= publishes; n++ {
		st := stateN(n)
		c.store(&st)
	}
	close(done)
	wg.Wait()
	if got := c.load(); got != stateN(publishes) {
		t.Fatalf("last publish %d, read %+v", publishes, got)
	}
}
