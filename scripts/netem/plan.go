package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"swiftpaxos/config"
)

// A link is one proxied path: the connections that process From opens to
// replica To go to Listen, and toxiproxy forwards them to the replica's
// real address Upstream, delaying the bytes From sends by Up and the bytes
// it receives by Down.
type link struct {
	From, To         string
	Listen, Upstream string
	Up, Down         time.Duration
}

// Name is the toxiproxy name of the link.
func (l link) Name() string { return l.From + "--" + l.To }

// plan lists one link per (process, replica) pair of cfg, the process
// itself excepted: replica i's connections to replica j, and a client's
// connections to every replica. Each replica's links listen on its own IP
// (or on listenIP when it is not empty), on ports from basePort on, so
// that every other address of the configuration stays what it was. The delays are the configuration's own
// (cfg.OneWayDelay: networkDelay, latencyFile, co-location), the same the
// built-in emulation injects.
func plan(cfg *config.Config, basePort int, listenIP string) ([]link, error) {
	var procs []string
	for _, h := range cfg.Replicas {
		procs = append(procs, h.Alias)
	}
	for _, h := range cfg.Clients {
		procs = append(procs, h.Alias)
	}
	var links []link
	port := basePort
	for _, r := range cfg.Replicas {
		for _, p := range procs {
			if p == r.Alias {
				continue
			}
			if port > 65535 {
				return nil, fmt.Errorf("base port %d leaves too few ports for %d links", basePort, len(procs)*len(cfg.Replicas))
			}
			ip := r.IP
			if listenIP != "" {
				ip = listenIP
			}
			links = append(links, link{
				From: p, To: r.Alias,
				Listen:   net.JoinHostPort(ip, strconv.Itoa(port)),
				Upstream: r.Addr(),
				Up:       cfg.OneWayDelay(p, r.Alias),
				Down:     cfg.OneWayDelay(r.Alias, p),
			})
			port++
		}
	}
	return links, nil
}

// millis converts a delay to toxiproxy's whole milliseconds, rounding to
// the nearest, and reports whether that lost precision.
func millis(d time.Duration) (int64, bool) {
	ms := math.Round(float64(d) / float64(time.Millisecond))
	return int64(ms), time.Duration(ms)*time.Millisecond != d
}

// rewrite returns the configuration text src as process alias must read
// it behind the proxies: every other replica's host line names that
// replica's link from alias (addr maps replica alias to the link's listen
// address), and networkDelay and latencyFile lines are commented out so
// that the built-in emulation adds nothing on top of the proxies. Section
// and key recognition follow config/parse.go (PROTOCOL.md 7.1).
func rewrite(src []byte, addr map[string]string) []byte {
	var out bytes.Buffer
	replicas := false
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		toks := tokens(line)
		switch {
		case len(toks) == 0:
		case len(toks) == 1 && len(toks[0]) >= 3 && strings.Trim(toks[0], "-") == "":
			replicas = false
		case strings.HasPrefix(toks[0], "--"):
			inner := strings.Trim(strings.Join(toks, " "), "- ")
			replicas = strings.EqualFold(strings.TrimSpace(inner), "replicas")
		case strings.Contains(toks[0], ":"):
			key, _, _ := strings.Cut(strings.ToLower(toks[0]), ":")
			if key == "networkdelay" || key == "latencyfile" {
				line = "// netem: " + line
			}
		case replicas:
			if a, ok := addr[strings.ToLower(toks[0])]; ok {
				line = fmt.Sprintf("%s %s // netem: was %s", toks[0], a, toks[1])
			}
		}
		out.WriteString(line)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// tokens splits a line on blanks and drops a trailing // comment, as the
// configuration parser does.
func tokens(line string) []string {
	f := strings.Fields(line)
	for i, t := range f {
		if strings.HasPrefix(t, "//") {
			return f[:i]
		}
	}
	return f
}

// isolated returns the links that cut alias off from the replicas, the
// clients, or both (what: replicas, clients, all): every link between
// alias and one of them, in either direction.
func isolated(links []link, cfg *config.Config, alias, what string) []link {
	isReplica := func(a string) bool { _, ok := cfg.ReplicaIndex(a); return ok }
	var out []link
	for _, l := range links {
		var other string
		switch alias {
		case l.From:
			other = l.To
		case l.To:
			other = l.From
		default:
			continue
		}
		if what == "all" || (what == "replicas") == isReplica(other) {
			out = append(out, l)
		}
	}
	return out
}

// A held stream is one direction of a link's connections: "upstream",
// the bytes its From process sends, or "downstream", those it receives.
type held struct {
	l      link
	stream string
}

// bothWays holds every byte of the links, in either direction.
func bothWays(links []link) []held {
	var out []held
	for _, l := range links {
		out = append(out, held{l, "upstream"}, held{l, "downstream"})
	}
	return out
}

// oneWay returns the streams that carry what process from sends process
// to: from's connections to to (their upstream) and to's connections to
// from (their downstream). Replicas connect to each other both ways, so
// a pair of replicas has both; a client and a replica, only the first or
// only the second.
func oneWay(links []link, from, to string) []held {
	var out []held
	for _, l := range links {
		switch {
		case l.From == from && l.To == to:
			out = append(out, held{l, "upstream"})
		case l.From == to && l.To == from:
			out = append(out, held{l, "downstream"})
		}
	}
	return out
}

// deafTo returns the streams that carry what every replica but alias
// sends alias: alias still sends, and its clients reach it both ways.
func deafTo(links []link, cfg *config.Config, alias string) []held {
	var out []held
	for _, r := range cfg.Replicas {
		if r.Alias != alias {
			out = append(out, oneWay(links, r.Alias, alias)...)
		}
	}
	return out
}
