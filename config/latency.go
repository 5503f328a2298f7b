package config

import (
	"fmt"
	"io"
	"math"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"
)

// Latency is a round-trip-time model between IP addresses (PROTOCOL.md
// 7.3): either one RTT for every pair or an RTT per listed pair. The
// injected one-way delay is half the RTT. A Latency is immutable; a nil
// *Latency knows no pair.
type Latency struct {
	uniform    time.Duration
	hasUniform bool
	pairs      map[ipPair]time.Duration // RTT, keyed with the smaller IP first
}

type ipPair struct{ a, b string }

func makePair(x, y string) ipPair {
	if y < x {
		x, y = y, x
	}
	return ipPair{x, y}
}

// UniformLatency returns a model with the same RTT between any two IPs.
func UniformLatency(rtt time.Duration) *Latency {
	return &Latency{uniform: rtt, hasUniform: true}
}

// LoadLatency reads a latency file, such as the one given with -latency.
func LoadLatency(path string) (*Latency, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseLatency(path, f)
}

// ParseLatency parses "uniform <RTT>" or lines "<ip1> <ip2> <RTT>"; RTT is
// a Go duration (50ms) or a bare number of milliseconds. Blank lines and
// "//" comments are allowed. On failure the error is an *Errors with every
// problem as name:line.
func ParseLatency(name string, r io.Reader) (*Latency, error) {
	var errs Errors
	l := &Latency{pairs: map[ipPair]time.Duration{}}
	first := map[ipPair]int{}
	uniformLine, pairLine := 0, 0
	eachLine(name, r, &errs, func(n int, text string) {
		toks := tokens(lower(text))
		switch {
		case len(toks) == 0:
		case toks[0] == "uniform":
			if len(toks) != 2 {
				errs.add(name, n, "want \"uniform <RTT>\", got %q", strings.Join(toks, " "))
				return
			}
			if uniformLine > 0 {
				errs.add(name, n, "uniform given twice (first at line %d)", uniformLine)
				return
			}
			uniformLine = n
			rtt, err := parseRTT(toks[1])
			if err != nil {
				errs.add(name, n, "uniform: %v", err)
				return
			}
			l.uniform, l.hasUniform = rtt, true
		case len(toks) == 3:
			if pairLine == 0 {
				pairLine = n
			}
			l.pairLine(name, n, toks, first, &errs)
		default:
			errs.add(name, n, "want \"<ip1> <ip2> <RTT>\" or \"uniform <RTT>\", got %q", strings.Join(toks, " "))
		}
	})
	if uniformLine > 0 && pairLine > 0 {
		errs.add(name, max(uniformLine, pairLine), "a latency file is either one uniform line or per-pair lines, not both (uniform at line %d, pair at line %d)", uniformLine, pairLine)
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Latency) pairLine(name string, n int, toks []string, first map[ipPair]int, errs *Errors) {
	var ips [2]string
	ok := true
	for i, t := range toks[:2] {
		a, err := netip.ParseAddr(t)
		if err != nil {
			errs.add(name, n, "invalid IP %q", t)
			ok = false
			continue
		}
		ips[i] = a.Unmap().String()
	}
	rtt, err := parseRTT(toks[2])
	if err != nil {
		errs.add(name, n, "%s %s: %v", toks[0], toks[1], err)
		ok = false
	}
	if !ok {
		return
	}
	if ips[0] == ips[1] {
		errs.add(name, n, "%s %s: an IP has no delay to itself", toks[0], toks[1])
		return
	}
	p := makePair(ips[0], ips[1])
	if at, dup := first[p]; dup {
		errs.add(name, n, "%s %s: pair given twice (first at line %d)", toks[0], toks[1], at)
		return
	}
	first[p] = n
	l.pairs[p] = rtt
}

func parseRTT(s string) (time.Duration, error) {
	var d time.Duration
	if ms, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(ms) || math.IsInf(ms, 0) || math.Abs(ms) > float64(math.MaxInt64/time.Millisecond) {
			return 0, fmt.Errorf("RTT %q is not a number", s)
		}
		d = time.Duration(ms * float64(time.Millisecond))
	} else if d, err = time.ParseDuration(s); err != nil {
		return 0, fmt.Errorf("RTT %q is not a duration (50ms) or a number of milliseconds", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("RTT %s is negative", s)
	}
	return d, nil
}

// OneWay returns half the RTT between two IPs: 0 for the same IP, for an
// unlisted pair, for unparsable addresses and for a nil model.
func (l *Latency) OneWay(fromIP, toIP string) time.Duration {
	d, _ := l.lookup(fromIP, toIP)
	return d
}

// lookup is OneWay that also says whether the model covers the pair, so
// that OneWayDelay can fall back to networkDelay for unlisted pairs.
func (l *Latency) lookup(fromIP, toIP string) (time.Duration, bool) {
	if l == nil {
		return 0, false
	}
	a, errA := netip.ParseAddr(fromIP)
	b, errB := netip.ParseAddr(toIP)
	if errA != nil || errB != nil {
		return 0, false
	}
	x, y := a.Unmap().String(), b.Unmap().String()
	if x == y {
		return 0, true
	}
	if l.hasUniform {
		return l.uniform / 2, true
	}
	rtt, ok := l.pairs[makePair(x, y)]
	return rtt / 2, ok
}
