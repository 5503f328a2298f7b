package bench

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
)

const (
	// RejoinedMessage is the log message of a restarted replica that is a
	// full member again: it votes and counts as a witness (PROTOCOL.md
	// 6.10).
	RejoinedMessage = "rejoined as a full member"
	// shareWindow is how many whole seconds before the kill and after the
	// return as a witness the fast-path shares cover.
	shareWindow = 5
)

// RestartJSON is a replica's kill and restart and what followed. Instants
// are in Unix milliseconds and in seconds since start_unix_ms; the
// witness instant is null while the restarted replica's log has no line
// RejoinedMessage, and so are the shares without a strong operation in
// their window.
type RestartJSON struct {
	Replica         string   `json:"replica"`
	KilledUnixMs    int64    `json:"killed_unix_ms"`
	KilledS         float64  `json:"killed_s"`
	RestartedUnixMs int64    `json:"restarted_unix_ms"`
	RestartedS      float64  `json:"restarted_s"`
	WitnessUnixMs   *int64   `json:"witness_unix_ms"`
	WitnessS        *float64 `json:"witness_s"`
	// WitnessAfterRestartS is how long the replica took, from its start,
	// to become a full member again.
	WitnessAfterRestartS *float64 `json:"witness_after_restart_s"`
	// FastShareBefore is the fast-path share of strong operations over the
	// shareWindow whole seconds before the second of the kill;
	// FastShareAfter over the shareWindow seconds after the second in which
	// the replica became a witness again.
	FastShareBefore *float64 `json:"fast_share_before"`
	FastShareAfter  *float64 `json:"fast_share_after"`
}

// restartOf describes the last restart among evs, if any: the restart,
// the kill of the same replica before it, and the replica's return as a
// witness found in dir/ALIAS.log.
func restartOf(dir string, evs []EventJSON, sum *Summary) (*RestartJSON, error) {
	var r *RestartJSON
	for i, e := range evs {
		if e.Event != "restarted" {
			continue
		}
		r = &RestartJSON{Replica: e.Replica, RestartedUnixMs: e.UnixMs, RestartedS: e.S}
		for _, k := range evs[:i] {
			if k.Event == "killed" && k.Replica == e.Replica {
				r.KilledUnixMs, r.KilledS = k.UnixMs, k.S
			}
		}
	}
	if r == nil {
		return nil, nil
	}
	at, err := loggedAt(filepath.Join(dir, r.Replica+".log"), RejoinedMessage, r.RestartedUnixMs)
	if err != nil {
		return nil, err
	}
	if at > 0 {
		s := float64(at-sum.StartUnixMs) / 1000
		after := float64(at-r.RestartedUnixMs) / 1000
		r.WitnessUnixMs, r.WitnessS, r.WitnessAfterRestartS = &at, &s, &after
	}
	kill := int(math.Floor(r.KilledS))
	r.FastShareBefore = fastShare(sum, kill-shareWindow, kill)
	if r.WitnessS != nil {
		back := int(math.Floor(*r.WitnessS)) + 1
		r.FastShareAfter = fastShare(sum, back, back+shareWindow)
	}
	return r, nil
}

// fastShare is the fast-path share of the strong operations that
// completed in seconds [from, to) of the timeline, nil without any.
func fastShare(sum *Summary, from, to int) *float64 {
	var fast, all int64
	for i := max(from, 0); i < to && i < len(sum.TimelineFast); i++ {
		fast += sum.TimelineFast[i]
		all += sum.TimelineFast[i] + sum.TimelineSlow[i]
	}
	if all == 0 {
		return nil
	}
	s := float64(fast) / float64(all)
	return &s
}

// loggedAt returns the instant (Unix ms) of the first line of the replica
// log at path whose message is msg and that was written at or after
// sinceMs, 0 if there is none (or no such log). Lines are zap's console
// format: the ISO-8601 time, then tab-separated level, caller, message
// and fields.
func loggedAt(path, msg string, sinceMs int64) (int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return scanLogged(f, msg, sinceMs)
}

func scanLogged(r io.Reader, msg string, sinceMs int64) (int64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, msg) {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) < 2 || !containsExactly(fields[1:], msg) {
			continue
		}
		t, err := time.Parse("2006-01-02T15:04:05.000Z0700", fields[0])
		if err != nil {
			continue // not a log line of ours (a panic's text, say)
		}
		if ms := t.UnixMilli(); ms >= sinceMs {
			return ms, nil
		}
	}
	return 0, sc.Err()
}

func containsExactly(fields []string, s string) bool {
	for _, f := range fields {
		if f == s {
			return true
		}
	}
	return false
}

// writeRestartText is summary.txt's short account of a restart: the
// instants, the fast-path shares before the kill and after the return,
// and the share second by second around it.
func writeRestartText(w io.Writer, r *RestartJSON, sum *Summary) {
	fmt.Fprintf(w, "\nRestart of %s: killed at %.2f s, started again at %.2f s, ", r.Replica, r.KilledS, r.RestartedS)
	if r.WitnessS != nil {
		fmt.Fprintf(w, "a witness again at %.2f s (%.2f s after its start)\n", *r.WitnessS, *r.WitnessAfterRestartS)
	} else {
		fmt.Fprintf(w, "never logged %q after its start\n", RejoinedMessage)
	}
	pct := func(p *float64) string {
		if p == nil {
			return "n/a"
		}
		return fmt.Sprintf("%.1f%%", 100**p)
	}
	kill, restart := int(math.Floor(r.KilledS)), int(math.Floor(r.RestartedS))
	before, after := min(kill, shareWindow), shareWindow
	if r.WitnessS != nil {
		back := int(math.Floor(*r.WitnessS)) + 1
		after = max(min(back+shareWindow, len(sum.TimelineFast))-back, 0)
	}
	fmt.Fprintf(w, "Fast-path share: %s over the %d s before the kill, %s over the %d s after it was a witness again\n",
		pct(r.FastShareBefore), before, pct(r.FastShareAfter), after)

	witness, last := -1, restart+2*shareWindow
	if r.WitnessS != nil {
		witness = int(math.Floor(*r.WitnessS))
		last = witness + shareWindow
	}
	from, to := max(kill-3, 0), min(last, len(sum.TimelineFast)-1)
	fmt.Fprintf(w, "  per second (%%), s %d-%d:", from, to)
	for i := from; i <= to; i++ {
		for _, m := range []struct {
			at   int
			name string
		}{{kill, "killed"}, {restart, "restarted"}, {witness, "witness"}} {
			if m.at == i {
				fmt.Fprintf(w, " [%s]", m.name)
			}
		}
		if n := sum.TimelineFast[i] + sum.TimelineSlow[i]; n > 0 {
			fmt.Fprintf(w, " %.0f", 100*float64(sum.TimelineFast[i])/float64(n))
		} else {
			fmt.Fprint(w, " -")
		}
	}
	fmt.Fprintln(w)
}
