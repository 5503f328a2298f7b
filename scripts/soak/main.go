package main

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	curpho "swiftpaxos/curp-ho"
	"swiftpaxos/curp-ho/horeplica"
	curpht "swiftpaxos/curp-ht"
	"swiftpaxos/curp-ht/htreplica"
	"swiftpaxos/sim"
)

func main() {
	if err := soakMain(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		var f failed
		if errors.As(err, &f) {
			os.Exit(1)
		}
		os.Exit(2)
	}
}

type failed int

func (f failed) Error() string { return fmt.Sprintf("%d failing seed(s)", int(f)) }

// protocols are the protocols the soak knows, with the package whose
// TestSuite replays a seed.
var protocols = []struct {
	p   sim.Protocol
	pkg string
}{
	{sim.Protocol{Name: curpht.Name, Replica: htreplica.NewPolicy, Client: curpht.NewClientPolicy}, "./curp-ht"},
	{sim.Protocol{Name: curpho.Name, Replica: horeplica.NewPolicy, Client: curpho.NewClientPolicy}, "./curp-ho"},
}

// task is one (protocol, configuration, size): its runs take seeds base,
// base+1, ... in turn.
type task struct {
	proto sim.Protocol
	pkg   string
	cfg   sim.Config
	n     int
	next  uint64
	runs  int
	ops   int
	fails int
}

func (t *task) name() string { return fmt.Sprintf("%s/%s/n=%d", t.proto.Name, t.cfg.Name, t.n) }

func soakMain(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.SetOutput(out)
	d := fs.Duration("d", 10*time.Minute, "how long to run")
	proto := fs.String("p", "all", "protocol: curpht, curpho or all")
	base := fs.Uint64("base", 0, "first seed of every configuration (0: a random base, printed)")
	jobs := fs.Int("j", runtime.GOMAXPROCS(0), "runs at once")
	only := fs.String("config", "", "run only the configurations whose name contains this")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *d <= 0 || *jobs < 1 {
		return fmt.Errorf("-d must be positive and -j at least 1")
	}
	if *base == 0 {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return err
		}
		*base = binary.LittleEndian.Uint64(b[:])>>16 + 1
	}
	var tasks []*task
	for _, p := range protocols {
		if *proto != "all" && *proto != p.p.Name {
			continue
		}
		for _, cfg := range sim.Configs(p.p.Name) {
			if !strings.Contains(cfg.Name, *only) {
				continue
			}
			for _, n := range cfg.Sizes {
				tasks = append(tasks, &task{proto: p.p, pkg: p.pkg, cfg: cfg, n: n, next: *base})
			}
		}
	}
	if len(tasks) == 0 {
		return fmt.Errorf("no configuration matches -p %s -config %q", *proto, *only)
	}
	fmt.Fprintf(out, "soak: seed base %d, %d configurations, %v, %d at once (replay the whole soak with -base %d)\n",
		*base, len(tasks), *d, *jobs, *base)
	return soak(tasks, *d, *jobs, out)
}

func soak(tasks []*task, d time.Duration, jobs int, out io.Writer) error {
	start := time.Now()
	deadline := start.Add(d)
	var mu sync.Mutex
	turn := 0
	// take hands out the next seed of the configurations in turn.
	take := func() (*task, uint64, bool) {
		mu.Lock()
		defer mu.Unlock()
		if time.Now().After(deadline) {
			return nil, 0, false
		}
		t := tasks[turn%len(tasks)]
		turn++
		seed := t.next
		t.next++
		return t, seed, true
	}
	report := func(t *task, seed uint64, ops int, failure string) {
		mu.Lock()
		defer mu.Unlock()
		t.runs++
		t.ops += ops
		if failure == "" {
			return
		}
		t.fails++
		first, _, _ := strings.Cut(failure, "\n")
		fmt.Fprintf(out, "FAIL %s seed %d: %s\n  replay: go test %s -count=1 -run 'TestSuite/%s/n=%d' -sim.seed %d\n",
			t.name(), seed, first, t.pkg, t.cfg.Name, t.n, seed)
	}
	done := make(chan struct{})
	go progress(tasks, &mu, start, done, out)
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				t, seed, ok := take()
				if !ok {
					return
				}
				ops, failure := run(t, seed)
				report(t, seed, ops, failure)
			}
		}()
	}
	wg.Wait()
	close(done)
	return summary(tasks, time.Since(start), out)
}

// run runs one seed; a panic in the run is a failure of that seed, not of
// the soak.
func run(t *task, seed uint64) (ops int, failure string) {
	defer func() {
		if r := recover(); r != nil {
			failure = fmt.Sprintf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	res, err := sim.Run(t.cfg.Make(seed, t.n, t.proto))
	if res != nil {
		ops = len(res.History)
	}
	return ops, sim.Failure(res, err)
}

func totals(tasks []*task) (runs, ops, fails int) {
	for _, t := range tasks {
		runs += t.runs
		ops += t.ops
		fails += t.fails
	}
	return
}

func progress(tasks []*task, mu *sync.Mutex, start time.Time, done <-chan struct{}, out io.Writer) {
	tick := time.NewTicker(30 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			mu.Lock()
			runs, ops, fails := totals(tasks)
			mu.Unlock()
			fmt.Fprintf(out, "soak: %v: %d seeds, %d operations, %d failures\n", time.Since(start).Round(time.Second), runs, ops, fails)
		}
	}
}

func summary(tasks []*task, took time.Duration, out io.Writer) error {
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].name() < tasks[j].name() })
	for _, t := range tasks {
		fmt.Fprintf(out, "  %-32s %6d seeds %9d operations %d failures\n", t.name(), t.runs, t.ops, t.fails)
	}
	runs, ops, fails := totals(tasks)
	fmt.Fprintf(out, "soak: %d seeds, %d operations in %v: %d failures\n", runs, ops, took.Round(time.Second), fails)
	if fails > 0 {
		return failed(fails)
	}
	return nil
}
