package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2/client"

	"swiftpaxos/config"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "netem:", err)
		os.Exit(1)
	}
}

func run(args []string, w io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: netem setup|plan|cut|heal [flags] (see the package comment)")
	}
	cmd := args[0]
	fs := flag.NewFlagSet("netem "+cmd, flag.ContinueOnError)
	api := fs.String("api", "127.0.0.1:8474", "toxiproxy-server API address")
	confPath := fs.String("config", "", "the deployment's configuration file")
	outDir := fs.String("out", "", "directory for the per-process configurations")
	basePort := fs.Int("base-port", 20000, "first port of the proxies")
	listenIP := fs.String("listen-ip", "", "address the proxies listen on (default: each replica's own IP)")
	alias := fs.String("isolate", "", "cut/heal: the process to cut off")
	what := fs.String("from", "replicas", "cut/heal: replicas, clients or all")
	to := fs.String("to", "", "cut/heal: hold only what -isolate sends this process (instead of -from)")
	deaf := fs.Bool("deaf", false, "cut/heal: hold only what every other replica sends -isolate (instead of -from)")
	mode := fs.String("mode", "hold", "cut: hold or close")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *confPath == "" {
		return errors.New("-config is required")
	}
	cfg, err := config.Load(*confPath)
	if err != nil {
		return err
	}
	links, err := plan(cfg, *basePort, *listenIP)
	if err != nil {
		return err
	}
	c := toxiproxy.NewClient(*api)
	switch cmd {
	case "pairs":
		return printPairs(w, cfg)
	case "strip":
		src, err := os.ReadFile(*confPath)
		if err != nil {
			return err
		}
		_, err = w.Write(rewrite(src, nil))
		return err
	case "plan", "setup":
		if *outDir == "" {
			return errors.New("-out is required")
		}
		if err := writeConfigs(*confPath, *outDir, cfg, links); err != nil {
			return err
		}
		if cmd == "setup" {
			if err := create(c, links); err != nil {
				return err
			}
		}
		printPlan(w, links)
		return nil
	case "cut", "heal":
		if _, ok := cfg.Lookup(*alias); !ok {
			return fmt.Errorf("-isolate %q: no such process in %s", *alias, *confPath)
		}
		if *what != "replicas" && *what != "clients" && *what != "all" {
			return fmt.Errorf("-from %q: want replicas, clients or all", *what)
		}
		hs := bothWays(isolated(links, cfg, *alias, *what))
		switch {
		case *to != "" && *deaf:
			return errors.New("-to and -deaf cannot be combined: -to holds what -isolate sends one process, -deaf what the replicas send it")
		case *to != "":
			if hs, err = oneWayCut(fs, links, cfg, *alias, *to, *mode); err != nil {
				return err
			}
		case *deaf:
			if hs, err = deafCut(fs, links, cfg, *alias, *mode); err != nil {
				return err
			}
		}
		if cmd == "cut" {
			return cut(c, hs, *mode, w)
		}
		return heal(c, hs, w)
	}
	return fmt.Errorf("unknown command %q (want setup, plan, cut, heal, pairs or strip)", cmd)
}

func writeConfigs(confPath, dir string, cfg *config.Config, links []link) error {
	src, err := os.ReadFile(confPath)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	byFrom := map[string]map[string]string{}
	for _, l := range links {
		if byFrom[l.From] == nil {
			byFrom[l.From] = map[string]string{}
		}
		byFrom[l.From][l.To] = l.Listen
	}
	var procs []config.Host
	procs = append(procs, cfg.Replicas...)
	procs = append(procs, cfg.Clients...)
	for _, h := range procs {
		text := rewrite(src, byFrom[h.Alias])
		if err := os.WriteFile(filepath.Join(dir, h.Alias+".conf"), text, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func printPlan(w io.Writer, links []link) {
	fmt.Fprintln(w, "# link listen upstream up_ms down_ms")
	for _, l := range links {
		up, r1 := millis(l.Up)
		down, r2 := millis(l.Down)
		note := ""
		if r1 || r2 {
			note = fmt.Sprintf(" # rounded from %v/%v: toxiproxy counts whole milliseconds", l.Up, l.Down)
		}
		fmt.Fprintf(w, "%s %s %s %d %d%s\n", l.Name(), l.Listen, l.Upstream, up, down, note)
	}
}

// create makes the proxies and their latency toxics ("geo_up" on the
// bytes the process sends, "geo_down" on those it receives).
func create(c *toxiproxy.Client, links []link) error {
	for _, l := range links {
		p, err := c.CreateProxy(l.Name(), l.Listen, l.Upstream)
		if err != nil {
			return fmt.Errorf("proxy %s (%s -> %s): %w", l.Name(), l.Listen, l.Upstream, err)
		}
		for _, t := range []struct {
			name, stream string
			d            int64
		}{{"geo_up", "upstream", msOf(l.Up)}, {"geo_down", "downstream", msOf(l.Down)}} {
			if t.d == 0 {
				continue
			}
			if _, err := p.AddToxic(t.name, "latency", t.stream, 1, toxiproxy.Attributes{"latency": t.d}); err != nil {
				return fmt.Errorf("proxy %s: toxic %s: %w", l.Name(), t.name, err)
			}
		}
	}
	return nil
}

func msOf(d time.Duration) int64 { ms, _ := millis(d); return ms }

// holdMs is the latency of the "partition" toxic: longer than any run.
const holdMs = 3600 * 1000

// oneWayCut checks -to's company and returns the streams that carry
// what alias sends to.
func oneWayCut(fs *flag.FlagSet, links []link, cfg *config.Config, alias, to, mode string) ([]held, error) {
	if err := holdsOneDirection(fs, "-to", "one direction of one pair", mode); err != nil {
		return nil, err
	}
	if _, ok := cfg.Lookup(to); !ok {
		return nil, fmt.Errorf("-to %q: no such process", to)
	}
	hs := oneWay(links, alias, to)
	if len(hs) == 0 {
		return nil, fmt.Errorf("-isolate %s -to %s: no link between them (clients connect to replicas only)", alias, to)
	}
	return hs, nil
}

// deafCut checks -deaf's company and returns the streams that carry what
// every other replica sends alias.
func deafCut(fs *flag.FlagSet, links []link, cfg *config.Config, alias, mode string) ([]held, error) {
	if err := holdsOneDirection(fs, "-deaf", "what the replicas send -isolate", mode); err != nil {
		return nil, err
	}
	if _, ok := cfg.ReplicaIndex(alias); !ok {
		return nil, fmt.Errorf("-isolate %s -deaf: not a replica", alias)
	}
	return deafTo(links, cfg, alias), nil
}

// holdsOneDirection refuses, beside the flag name (-to or -deaf), which
// holds what, a -from and a -mode other than hold.
func holdsOneDirection(fs *flag.FlagSet, name, what, mode string) error {
	fromGiven := false
	fs.Visit(func(f *flag.Flag) { fromGiven = fromGiven || f.Name == "from" })
	switch {
	case fromGiven:
		return fmt.Errorf("%s and -from cannot be combined: %s holds %s, -from every link of a group", name, name, what)
	case mode != "hold":
		return fmt.Errorf("%s holds one direction: -mode %s cannot close half a connection (want hold)", name, mode)
	}
	return nil
}

func cut(c *toxiproxy.Client, hs []held, mode string, w io.Writer) error {
	if mode != "hold" && mode != "close" {
		return fmt.Errorf("-mode %q: want hold or close", mode)
	}
	for _, h := range hs {
		l := h.l
		p, err := c.Proxy(l.Name())
		if err != nil {
			return fmt.Errorf("proxy %s: %w", l.Name(), err)
		}
		if mode == "close" {
			if !p.Enabled {
				continue // the other stream of the link disabled it
			}
			if err := p.Disable(); err != nil {
				return fmt.Errorf("proxy %s: disable: %w", l.Name(), err)
			}
		} else if _, err := p.AddToxic("partition_"+h.stream, "latency", h.stream, 1, toxiproxy.Attributes{"latency": holdMs}); err != nil {
			return fmt.Errorf("proxy %s: partition toxic: %w", l.Name(), err)
		}
		fmt.Fprintf(w, "cut %s %s (%s)\n", l.Name(), h.stream, mode)
	}
	return nil
}

func heal(c *toxiproxy.Client, hs []held, w io.Writer) error {
	var errs []error
	var links []link
	for _, h := range hs {
		if len(links) == 0 || links[len(links)-1] != h.l {
			links = append(links, h.l)
		}
	}
	for _, l := range links {
		p, err := c.Proxy(l.Name())
		if err != nil {
			errs = append(errs, fmt.Errorf("proxy %s: %w", l.Name(), err))
			continue
		}
		if !p.Enabled {
			if err := p.Enable(); err != nil {
				errs = append(errs, fmt.Errorf("proxy %s: enable: %w", l.Name(), err))
			}
		}
		for _, t := range p.ActiveToxics {
			if t.Name == "partition_upstream" || t.Name == "partition_downstream" {
				if err := p.RemoveToxic(t.Name); err != nil {
					errs = append(errs, fmt.Errorf("proxy %s: remove %s: %w", l.Name(), t.Name, err))
				}
			}
		}
		fmt.Fprintf(w, "healed %s\n", l.Name())
	}
	return errors.Join(errs...)
}

// printPairs prints the one-way delay between the hosts of every pair of
// processes that talk (every process and every replica), by IP. Processes
// sharing an IP must agree on their delays to another IP, since netem
// sees only addresses.
func printPairs(w io.Writer, cfg *config.Config) error {
	links, err := plan(cfg, 1, "")
	if err != nil {
		return err
	}
	ipOf := map[string]string{}
	for _, h := range append(append([]config.Host{}, cfg.Replicas...), cfg.Clients...) {
		ipOf[h.Alias] = h.IP
	}
	type pair struct{ from, to string }
	delay := map[pair]time.Duration{}
	var order []pair
	set := func(from, to string, d time.Duration) error {
		p := pair{ipOf[from], ipOf[to]}
		if p.from == p.to {
			return nil
		}
		if old, ok := delay[p]; ok {
			if old != d {
				return fmt.Errorf("%s -> %s: processes on these hosts disagree on the delay (%v and %v); netem sees only addresses", p.from, p.to, old, d)
			}
			return nil
		}
		delay[p] = d
		order = append(order, p)
		return nil
	}
	for _, l := range links {
		if err := set(l.From, l.To, l.Up); err != nil {
			return err
		}
		if err := set(l.To, l.From, l.Down); err != nil {
			return err
		}
	}
	for _, p := range order {
		if ms := msOf(delay[p]); ms > 0 {
			fmt.Fprintf(w, "%s %s %d\n", p.from, p.to, ms)
		}
	}
	return nil
}
