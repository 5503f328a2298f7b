package bench

import (
	"fmt"
	"io"
	"path/filepath"

	"swiftpaxos/check"
)

// OutageJSON is a whole-cluster crash (run-multi-client.sh --crash-all-at):
// every replica killed, then every replica started again from its data
// directory. Instants are in Unix milliseconds and in seconds since
// start_unix_ms. The first operation after is the first one that
// completed after the last restart: from the recorded histories when the
// run has them (--check), to the millisecond; otherwise from the timeline,
// to the second (FirstOpFrom says which).
type OutageJSON struct {
	Replicas        int     `json:"replicas"`
	KilledUnixMs    int64   `json:"killed_unix_ms"`
	KilledS         float64 `json:"killed_s"`
	RestartedUnixMs int64   `json:"restarted_unix_ms"`
	RestartedS      float64 `json:"restarted_s"`
	DownS           float64 `json:"down_s"`
	// FirstOpAfterRestartS is how long after the last restart the first
	// operation completed; nil if none did.
	FirstOpUnixMs        *int64   `json:"first_op_unix_ms"`
	FirstOpAfterRestartS *float64 `json:"first_op_after_restart_s"`
	FirstOpFrom          string   `json:"first_op_from"`
}

// outageOf finds a whole-cluster crash among evs: every one of the n
// replicas killed and restarted. It returns nil if there was none.
func outageOf(dir string, evs []EventJSON, n int, sum *Summary) (*OutageJSON, error) {
	killed, restarted := map[string]EventJSON{}, map[string]EventJSON{}
	for _, e := range evs {
		m := killed
		if e.Event == "restarted" {
			m = restarted
		}
		if _, seen := m[e.Replica]; !seen {
			m[e.Replica] = e
		}
	}
	if n == 0 || len(killed) < n || len(restarted) < n {
		return nil, nil
	}
	o := &OutageJSON{Replicas: n, KilledUnixMs: -1}
	for _, e := range killed {
		if o.KilledUnixMs < 0 || e.UnixMs < o.KilledUnixMs {
			o.KilledUnixMs, o.KilledS = e.UnixMs, e.S
		}
	}
	for _, e := range restarted {
		if e.UnixMs > o.RestartedUnixMs {
			o.RestartedUnixMs, o.RestartedS = e.UnixMs, e.S
		}
	}
	o.DownS = float64(o.RestartedUnixMs-o.KilledUnixMs) / 1000
	first, from, err := firstOpAfter(dir, o.RestartedUnixMs, sum)
	if err != nil {
		return nil, err
	}
	o.FirstOpFrom = from
	if first > 0 {
		after := float64(first-o.RestartedUnixMs) / 1000
		o.FirstOpUnixMs, o.FirstOpAfterRestartS = &first, &after
	}
	return o, nil
}

// firstOpAfter returns the instant (Unix ms) of the first operation that
// completed at or after ms, 0 if none, and where it was found.
func firstOpAfter(dir string, ms int64, sum *Summary) (int64, string, error) {
	hs, _ := filepath.Glob(filepath.Join(dir, "history-*.jsonl"))
	if len(hs) > 0 {
		var first int64
		for _, p := range hs {
			ops, err := check.ReadHistoryFile(p)
			if err != nil {
				return 0, "", err
			}
			for _, op := range ops {
				if at := op.ReturnNS / 1e6; op.OK && at >= ms && (first == 0 || at < first) {
					first = at
				}
			}
		}
		return first, "history", nil
	}
	from := int((ms - sum.StartUnixMs) / 1000)
	for i := max(from, 0); i < len(sum.Timeline); i++ {
		if sum.Timeline[i] > 0 {
			return max(ms, sum.StartUnixMs+int64(i)*1000), "timeline", nil
		}
	}
	return 0, "timeline", nil
}

// writeOutageText is summary.txt's account of a whole-cluster crash.
func writeOutageText(w io.Writer, o *OutageJSON) {
	fmt.Fprintf(w, "\nWhole-cluster crash: all %d replicas killed at %.2f s, all started again at %.2f s (down %.2f s); ",
		o.Replicas, o.KilledS, o.RestartedS, o.DownS)
	if o.FirstOpAfterRestartS == nil {
		fmt.Fprintln(w, "no operation completed after it")
		return
	}
	unit := "from the histories"
	if o.FirstOpFrom == "timeline" {
		unit = "to the second, from the timeline"
	}
	fmt.Fprintf(w, "first operation completed %.3f s after the restart (%s)\n", *o.FirstOpAfterRestartS, unit)
}
