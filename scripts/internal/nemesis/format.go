package nemesis

import (
	"fmt"
	"io"
	"strings"
)

// String describes the fault in a few words: what it does to whom, as
// the plan file and the runner's log show it.
func (f Fault) String() string {
	var b strings.Builder
	b.WriteString(string(f.Kind))
	switch f.Kind {
	case Kill:
		fmt.Fprintf(&b, " %s", f.Target)
		if f.Restart {
			fmt.Fprintf(&b, ", restarted after %v", f.For)
		} else {
			b.WriteString(", for good")
		}
	case Wipe:
		fmt.Fprintf(&b, " %s, restarted empty after %v", f.Target, f.For)
	case Pause:
		fmt.Fprintf(&b, " %s for %v", f.Target, f.For)
	case Partition:
		switch f.Shape {
		case OneWay:
			fmt.Fprintf(&b, " one-way %s>%s", f.Target, f.Peer)
		case LeaderCut:
			b.WriteString(" leader from the replicas")
		case Deaf:
			b.WriteString(" deaf leader (what the replicas send it)")
		default:
			fmt.Fprintf(&b, " isolate %s", f.Target)
		}
		fmt.Fprintf(&b, " (%s) for %v", f.Mode, f.For)
	case CrashAll:
		fmt.Fprintf(&b, ", down %v", f.For)
	}
	return b.String()
}

// Detail is the fault's shape as one word for events.txt: the role it
// took its target in, and for a partition its shape and mode
// ("follower", "leader:isolate:hold", "follower>leader:one-way:hold").
func (f Fault) Detail() string {
	switch f.Kind {
	case Kill, Wipe, Pause:
		return string(f.Target)
	case Partition:
		who := string(f.Target)
		if f.Shape == OneWay {
			who += ">" + string(f.Peer)
		}
		return fmt.Sprintf("%s:%s:%s", who, f.Shape, f.Mode)
	}
	return "-"
}

// Write prints the plan for people: a header with the options and the
// launcher flags that replay it, then one line per fault.
func (p *Plan) Write(out io.Writer) error {
	var w strings.Builder
	mode := "in memory"
	if p.Durable {
		mode = "durable"
	}
	fmt.Fprintf(&w, "# nemesis plan: seed %d, kinds %s, every %v, run %v (every fault healed by %v), %d replicas (f = %d), %d clients, %s\n",
		p.Seed, p.Kinds, p.Every, p.Run, p.Horizon(), p.Replicas, p.F(), p.Clients, mode)
	fmt.Fprintf(&w, "# replay: --nemesis %s --nemesis-every %v --nemesis-seed %d\n", p.Kinds, p.Every, p.Seed)
	fmt.Fprintf(&w, "# %d faults:", len(p.Faults))
	counts := p.Counts()
	for _, k := range kinds {
		if counts[k] > 0 {
			fmt.Fprintf(&w, " %s %d", k, counts[k])
		}
	}
	fmt.Fprintln(&w)
	for _, f := range p.Faults {
		fmt.Fprintf(&w, "%3d  at %8.3fs  %s\n", f.ID, f.At.Seconds(), f)
	}
	_, err := io.WriteString(out, w.String())
	return err
}
