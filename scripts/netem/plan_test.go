package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"swiftpaxos/config"
)

const geo = `-- Replicas --
replica0 127.0.0.1
replica1 127.0.0.2
replica2 127.0.0.3
-- Clients --
client0 127.0.0.4
-- Proxy --
server_alias replica0
client0 (local)
---
protocol: curpho
networkDelay: 7 // ms
`

func load(t *testing.T, text string) (*config.Config, []byte) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.conf")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, []byte(text)
}

func TestPlanDelaysAreTheConfigurations(t *testing.T) {
	cfg, _ := load(t, geo)
	links, err := plan(cfg, 20000, "")
	if err != nil {
		t.Fatal(err)
	}
	// 3 replicas x (2 other replicas + 1 client) links.
	if len(links) != 9 {
		t.Fatalf("got %d links, want 9", len(links))
	}
	seen := map[string]bool{}
	for _, l := range links {
		if seen[l.Listen] {
			t.Errorf("listen address %s used twice", l.Listen)
		}
		seen[l.Listen] = true
		want := 7 * time.Millisecond
		if l.From == "client0" && l.To == "replica0" {
			want = 0 // co-located
		}
		if l.Up != want || l.Down != want {
			t.Errorf("%s: delays %v/%v, want %v", l.Name(), l.Up, l.Down, want)
		}
		if r, _ := cfg.Lookup(l.To); l.Upstream != r.Addr() || !strings.HasPrefix(l.Listen, r.IP+":") {
			t.Errorf("%s: listen %s upstream %s, want on %s to %s", l.Name(), l.Listen, l.Upstream, r.IP, r.Addr())
		}
	}
}

func TestRewrittenConfigurationParses(t *testing.T) {
	cfg, src := load(t, geo)
	links, _ := plan(cfg, 20000, "")
	addr := map[string]string{}
	for _, l := range links {
		if l.From == "replica1" {
			addr[l.To] = l.Listen
		}
	}
	out, _ := load(t, string(rewrite(src, addr)))
	if out.NetworkDelay != 0 {
		t.Errorf("networkDelay %v survived the rewrite", out.NetworkDelay)
	}
	for _, r := range out.Replicas {
		want := addr[r.Alias]
		if r.Alias == "replica1" {
			want = "127.0.0.2:7071"
		}
		if r.Addr() != want {
			t.Errorf("%s at %s, want %s", r.Alias, r.Addr(), want)
		}
	}
}

func TestIsolated(t *testing.T) {
	cfg, _ := load(t, geo)
	links, _ := plan(cfg, 20000, "")
	names := func(ls []link) string {
		var s []string
		for _, l := range ls {
			s = append(s, l.Name())
		}
		return strings.Join(s, " ")
	}
	for what, want := range map[string]string{
		"replicas": "replica1--replica0 replica2--replica0 replica0--replica1 replica0--replica2",
		"clients":  "client0--replica0",
		"all":      "replica1--replica0 replica2--replica0 client0--replica0 replica0--replica1 replica0--replica2",
	} {
		if got := names(isolated(links, cfg, "replica0", what)); got != want {
			t.Errorf("%s: got %q, want %q", what, got, want)
		}
	}
}

// TestOneWayHoldsOneDirection: what replica0 sends replica1 travels on
// replica0's connections to replica1 (upstream) and on replica1's to
// replica0 (downstream); what a client sends a replica, on its own
// connections only.
func TestOneWayHoldsOneDirection(t *testing.T) {
	cfg, _ := load(t, geo)
	links, _ := plan(cfg, 20000, "")
	streams := func(hs []held) string {
		var s []string
		for _, h := range hs {
			s = append(s, h.l.Name()+" "+h.stream)
		}
		return strings.Join(s, ", ")
	}
	for _, c := range []struct{ from, to, want string }{
		{"replica0", "replica1", "replica1--replica0 downstream, replica0--replica1 upstream"},
		{"replica1", "replica0", "replica1--replica0 upstream, replica0--replica1 downstream"},
		{"client0", "replica2", "client0--replica2 upstream"},
		{"replica2", "client0", "client0--replica2 downstream"},
	} {
		if got := streams(oneWay(links, c.from, c.to)); got != c.want {
			t.Errorf("%s>%s: got %q, want %q", c.from, c.to, got, c.want)
		}
	}
}

// TestDeafHoldsWhatTheReplicasSend: -deaf holds what every other replica
// sends replica0, on both connections of each pair, and nothing that
// replica0 sends or that its client exchanges with it.
func TestDeafHoldsWhatTheReplicasSend(t *testing.T) {
	cfg, _ := load(t, geo)
	links, _ := plan(cfg, 20000, "")
	var got []string
	for _, h := range deafTo(links, cfg, "replica0") {
		got = append(got, h.l.Name()+" "+h.stream)
	}
	want := "replica1--replica0 upstream, replica0--replica1 downstream, replica2--replica0 upstream, replica0--replica2 downstream"
	if strings.Join(got, ", ") != want {
		t.Errorf("got %q, want %q", strings.Join(got, ", "), want)
	}
}

func TestCutRefusesHalfAClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.conf")
	if err := os.WriteFile(path, []byte(geo), 0o644); err != nil {
		t.Fatal(err)
	}
	for args, want := range map[string]string{
		"-isolate replica0 -to replica1 -mode close":    "cannot close half a connection",
		"-isolate replica0 -to replica1 -from replicas": "-to and -from cannot be combined",
		"-isolate replica0 -to replica9":                `-to "replica9": no such process`,
		"-isolate replica0 -deaf -mode close":           "-deaf holds one direction",
		"-isolate replica0 -deaf -from all":             "-deaf and -from cannot be combined",
		"-isolate replica0 -deaf -to replica1":          "-to and -deaf cannot be combined",
		"-isolate client0 -deaf":                        "-isolate client0 -deaf: not a replica",
	} {
		err := run(append([]string{"cut", "-api", "127.0.0.1:1", "-config", path}, strings.Fields(args)...), &strings.Builder{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", args, err, want)
		}
	}
}
