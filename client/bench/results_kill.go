package bench

import (
	"fmt"
	"io"
	"math"
	"path/filepath"

	"swiftpaxos/config"
)

// ViewStartedMessage is the log message of a replica that won an election
// and started its view: from then on it serves as the leader.
const ViewStartedMessage = "view started"

// KillJSON is a replica killed for good during a run
// (run-multi-client.sh --kill-leader-at, --kill-follower-at). Instants
// are in Unix milliseconds and in seconds since start_unix_ms. After a
// leader's kill, another replica starts a view (the first line
// ViewStartedMessage in a surviving replica's log after the kill); the
// view fields are null when none did, as after a follower's kill.
type KillJSON struct {
	Replica      string   `json:"replica"`
	KilledUnixMs int64    `json:"killed_unix_ms"`
	KilledS      float64  `json:"killed_s"`
	NewLeader    string   `json:"new_leader,omitempty"`
	ViewUnixMs   *int64   `json:"view_unix_ms"`
	ViewS        *float64 `json:"view_s"`
	// ViewAfterKillS is how long after the kill the new view started:
	// the failure's detection and the election.
	ViewAfterKillS *float64 `json:"view_after_kill_s"`
}

// killOf describes the last replica among evs that was killed and not
// started again, and the first view another replica started after it;
// nil if no replica was killed for good.
func killOf(dir string, evs []EventJSON, cfg *config.Config, sum *Summary) (*KillJSON, error) {
	var k *KillJSON
	for i, e := range evs {
		if e.Event != "killed" || restartedAfter(evs[i+1:], e.Replica) {
			continue
		}
		k = &KillJSON{Replica: e.Replica, KilledUnixMs: e.UnixMs, KilledS: e.S}
	}
	if k == nil {
		return nil, nil
	}
	for i := range cfg.N() {
		alias := cfg.Replica(i).Alias
		if alias == k.Replica {
			continue
		}
		at, err := loggedAt(filepath.Join(dir, alias+".log"), ViewStartedMessage, k.KilledUnixMs)
		if err != nil {
			return nil, err
		}
		if at > 0 && (k.ViewUnixMs == nil || at < *k.ViewUnixMs) {
			s, after := float64(at-sum.StartUnixMs)/1000, float64(at-k.KilledUnixMs)/1000
			k.NewLeader, k.ViewUnixMs, k.ViewS, k.ViewAfterKillS = alias, &at, &s, &after
		}
	}
	return k, nil
}

func restartedAfter(evs []EventJSON, alias string) bool {
	for _, e := range evs {
		if e.Event == "restarted" && e.Replica == alias {
			return true
		}
	}
	return false
}

// writeKillText is summary.txt's account of a kill: when, which replica
// then led and from when, and the operations completed second by second
// around it, strong ones apart (weak ones may go on at the other
// replicas while there is no leader).
func writeKillText(w io.Writer, k *KillJSON, sum *Summary) {
	fmt.Fprintf(w, "\nKill of %s at %.2f s: ", k.Replica, k.KilledS)
	view := -1
	if k.ViewS != nil {
		view = int(math.Floor(*k.ViewS))
		fmt.Fprintf(w, "%s started a view at %.2f s (%.2f s after the kill)\n", k.NewLeader, *k.ViewS, *k.ViewAfterKillS)
	} else {
		fmt.Fprintln(w, "no other replica started a view after it")
	}
	kill := int(math.Floor(k.KilledS))
	from, to := max(kill-3, 0), min(max(kill, view)+3, len(sum.Timeline)-1)
	if from > to {
		return // the kill came after the last second of the timeline
	}
	for _, line := range []struct {
		name string
		n    func(i int) int64
	}{
		{"all", func(i int) int64 { return sum.Timeline[i] }},
		{"strong", func(i int) int64 { return sum.TimelineFast[i] + sum.TimelineSlow[i] }},
	} {
		fmt.Fprintf(w, "  %s operations per second, s %d-%d:", line.name, from, to)
		for i := from; i <= to; i++ {
			if i == kill {
				fmt.Fprint(w, " [killed]")
			}
			if i == view {
				fmt.Fprintf(w, " [%s leads]", k.NewLeader)
			}
			fmt.Fprintf(w, " %d", line.n(i))
		}
		fmt.Fprintln(w)
	}
}
