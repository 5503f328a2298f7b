package bench

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A launcher that kills, restarts or otherwise impairs processes during a
// run (run-multi-client.sh --kill-*-at, --restart-follower-at,
// --crash-all-at, --nemesis) writes what it did to DIR/events.txt as it
// happens, one line per event, UNIX_MS first (the launcher's wall clock
// in milliseconds):
//
//	UNIX_MS killed ALIAS                      kill -9 sent to a replica or client
//	UNIX_MS restarted ALIAS                   a replica started again
//	UNIX_MS begin ID KIND TARGET DETAIL       --nemesis: fault ID begins (before its action)
//	UNIX_MS end ID                            --nemesis: fault ID has healed
//	UNIX_MS skipped ID KIND                   --nemesis: fault ID was not made
//
// KIND is kill, pause, partition, crash-all or client; TARGET the alias
// the fault took ("A>B" for a one-way partition, "all" for a
// whole-cluster crash); DETAIL the role it took it in and a partition's
// shape and mode (scripts/internal/nemesis, Fault.Detail). The summary
// places them on the run's timeline; for a restart it finds in
// DIR/ALIAS.log when the replica became a full member again.
const eventsFile = "events.txt"

// EventJSON is one kill or restart of events.txt, placed on the
// timeline: S is seconds since start_unix_ms. Replica names the process,
// a client's for a client the nemesis killed.
type EventJSON struct {
	UnixMs  int64   `json:"unix_ms"`
	S       float64 `json:"s"`
	Event   string  `json:"event"`
	Replica string  `json:"replica"`
}

// FaultJSON is one fault of a --nemesis run, placed on the timeline:
// instants in Unix milliseconds and in seconds since start_unix_ms. End
// is null for a fault never undone (a replica killed for good, a client
// killed) and for one skipped (Skipped, at the instant it was given up).
// FirstOpAfterS is how long after its start an operation invoked then or
// later completed (from the timeline: the start of the next second with
// a completion), FirstStrongAfterS a strong one (from the histories
// only); null when none did.
type FaultJSON struct {
	ID                int      `json:"id"`
	Kind              string   `json:"kind"`
	Target            string   `json:"target,omitempty"`
	Detail            string   `json:"detail,omitempty"`
	Skipped           bool     `json:"skipped,omitempty"`
	StartUnixMs       int64    `json:"start_unix_ms"`
	StartS            float64  `json:"start_s"`
	EndUnixMs         *int64   `json:"end_unix_ms"`
	EndS              *float64 `json:"end_s"`
	FirstOpAfterS     *float64 `json:"first_op_after_s"`
	FirstStrongAfterS *float64 `json:"first_strong_after_s,omitempty"`
	// GapS is the longest time without a completed operation from its
	// start until a second after its end (its start, for a fault never
	// undone), or the first completion after its end if that is later,
	// while the clients issued (results_nemesis.go).
	GapS *float64 `json:"gap_s,omitempty"`
}

// events are the lines of events.txt.
type events struct {
	procs  []EventJSON
	faults []FaultJSON // in the order they began or were skipped
}

// readEvents reads dir/events.txt; a missing file is no events.
func readEvents(dir string, startMs int64) (events, error) {
	var ev events
	path := filepath.Join(dir, eventsFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return ev, nil
	}
	if err != nil {
		return ev, err
	}
	defer f.Close()
	fault := map[int]int{} // ID -> index in ev.faults
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		w := strings.Fields(sc.Text())
		if len(w) == 0 {
			continue
		}
		bad := func(why string) error { return fmt.Errorf("%s:%d: %s, in %q", path, n, why, sc.Text()) }
		ms, err := strconv.ParseInt(w[0], 10, 64)
		if err != nil || len(w) < 2 {
			return ev, bad("want UNIX_MS EVENT ...")
		}
		s := float64(ms-startMs) / 1000
		want := map[string]int{"killed": 3, "restarted": 3, "begin": 6, "end": 3, "skipped": 4}[w[1]]
		if want == 0 {
			return ev, bad("unknown event " + strconv.Quote(w[1]) + " (want killed, restarted, begin, end or skipped)")
		}
		if len(w) != want {
			return ev, bad(fmt.Sprintf("%s takes %d words", w[1], want))
		}
		if w[1] == "killed" || w[1] == "restarted" {
			ev.procs = append(ev.procs, EventJSON{UnixMs: ms, S: s, Event: w[1], Replica: w[2]})
			continue
		}
		id, err := strconv.Atoi(w[2])
		if err != nil || id < 1 {
			return ev, bad("a fault ID is a positive number")
		}
		i, seen := fault[id]
		switch {
		case w[1] == "end" && (!seen || ev.faults[i].Skipped || ev.faults[i].EndUnixMs != nil):
			return ev, bad(fmt.Sprintf("fault %d ends without beginning, or twice", id))
		case w[1] == "end":
			ev.faults[i].EndUnixMs, ev.faults[i].EndS = &ms, &s
		case seen:
			return ev, bad(fmt.Sprintf("fault %d is recorded twice", id))
		default:
			fj := FaultJSON{ID: id, Kind: w[3], StartUnixMs: ms, StartS: s, Skipped: w[1] == "skipped"}
			if w[1] == "begin" {
				fj.Target, fj.Detail = w[4], w[5]
			}
			fault[id] = len(ev.faults)
			ev.faults = append(ev.faults, fj)
		}
	}
	return ev, sc.Err()
}

// killedClients names the client processes of cfg that evs says were
// killed, in the configuration's order.
func killedClients(aliases []string, evs []EventJSON) []string {
	var out []string
	for _, a := range aliases {
		for _, e := range evs {
			if e.Event == "killed" && strings.EqualFold(e.Replica, a) {
				out = append(out, a)
				break
			}
		}
	}
	return out
}
