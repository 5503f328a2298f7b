package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// writeConf writes the repository's multi-client.conf with some lines
// replaced (by 1-based line number) and returns its path.
func writeConf(t *testing.T, replace map[int]string) string {
	t.Helper()
	b, err := os.ReadFile("multi-client.conf")
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	for n, l := range replace {
		lines[n-1] = l
	}
	p := filepath.Join(t.TempDir(), "F.conf")
	require.NoError(t, os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644))
	return p
}

func runMain(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestBadConfigNamesEveryLine(t *testing.T) {
	p := writeConf(t, map[int]string{7: "pendingz: 15", 24: "pendings: -3", 32: "zipfSkew: abc", 28: "weakRatio: 150"})
	code, _, stderr := runMain("-run", "server", "-config", p, "-alias", "replica0")
	require.Equal(t, 1, code)
	for _, want := range []string{
		p + `:7: unknown key "pendingz"`,
		p + ":24: pendings: -3",
		p + `:32: zipfSkew: "abc"`,
		p + ":28: weakRatio: 150",
	} {
		require.Contains(t, stderr, want)
	}
}

// A command-line mistake is told in one line, first, then where the usage
// is: the line is what a launcher shows of a process that would not
// start.
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args  []string
		first string
	}{
		{[]string{"-run", "replica", "-alias", "replica0"}, `swiftpaxos: -run must be one of server, client, kv, status, check, hosts, summary, certs, not "replica"`},
		{[]string{"-run", "server", "-protocol", "raft", "-alias", "replica0"}, `swiftpaxos: unknown protocol "raft" (known: curpho, curpht)`},
		{[]string{"-run", "server"}, "swiftpaxos: -run server needs -alias ALIAS"},
		{[]string{"-run", "server", "-alias", "replica0", "extra"}, `swiftpaxos: unexpected argument "extra"`},
		{[]string{"-run", "server", "-bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"-run", "kv", "-timeout", "-1s", "get", "1"}, "swiftpaxos: -timeout -1s: give a duration above 0, or leave -timeout out for the configuration's replyTimeout"},
		{[]string{"-run", "kv", "-timeout", "0", "get", "1"}, "swiftpaxos: -timeout 0s: give a duration above 0, or leave -timeout out for the configuration's replyTimeout"},
		{[]string{"-run", "kv", "-threads", "5", "get", "1"}, "swiftpaxos: -threads means nothing to -run kv (it is for -run client)"},
		{[]string{"-run", "kv", "-history", "X", "get", "1"}, "swiftpaxos: -history means nothing to -run kv (it is for -run client, check)"},
		{[]string{"-run", "status", "-alias", "foo"}, "swiftpaxos: -alias means nothing to -run status (it is for -run server, client, kv)"},
		{[]string{"-run", "client", "-alias", "client0", "-journal", "j.jsonl"}, "swiftpaxos: -journal needs -history: it is the history written as the run goes"},
		{[]string{"-run", "server", "-alias", "replica0", "-journal", "j.jsonl"}, "swiftpaxos: -journal means nothing to -run server (it is for -run client)"},
		{[]string{"-run", "check", "-config", "multi-client.conf", "-history", "h.jsonl"}, "swiftpaxos: -config means nothing to -run check (it is for -run server, client, kv, status, hosts, summary, certs)"},
		{[]string{"-run", "hosts", "-config", "/nonexistent/x.conf"}, "swiftpaxos: -config /nonexistent/x.conf: no such file or directory"},
		{[]string{"-run", "hosts", "-config", "."}, "swiftpaxos: -config .: is a directory, not a configuration file"},
		{[]string{"-run", "kv", "-tls", "/nonexistent", "get", "1"}, "swiftpaxos: -tls /nonexistent: open /nonexistent/ca.pem: no such file or directory"},
		{[]string{"-run", "status", "-tls", "/nonexistent"}, "swiftpaxos: -tls /nonexistent: open /nonexistent/ca.pem: no such file or directory"},
		{[]string{"-run", "server", "-alias", "replica0", "-tls", "/nonexistent"}, "swiftpaxos: -tls /nonexistent: open /nonexistent/ca.pem: no such file or directory"},
		{[]string{"-run", "status", "-timeout", "-5s"}, "swiftpaxos: -timeout -5s: give a duration above 0, or leave -timeout out for the configuration's replyTimeout"},
	} {
		code, _, stderr := runMain(c.args...)
		require.Equal(t, exitUsage, code, "%v", c.args)
		require.Equal(t, c.first+"\n(swiftpaxos -h prints the usage)\n", stderr, "%v", c.args)
	}
}

func TestHelp(t *testing.T) {
	code, stdout, stderr := runMain("-h")
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "-run server -config")
	require.Contains(t, stdout, "-run client -config")
	require.Contains(t, stdout, "-run kv")
	require.Empty(t, stderr)
}

// The help says which modes take each flag, and the synopsis of each mode
// lists exactly the flags it takes: both come from, or are checked
// against, flagModes, which the usage errors above enforce.
func TestFlagModesMatchTheHelp(t *testing.T) {
	code, help, _ := runMain("-h")
	require.Equal(t, 0, code)
	flags := regexp.MustCompile(`(?m)^  -(\w+)`).FindAllStringSubmatch(help, -1)
	require.NotEmpty(t, flags)
	for _, f := range flags {
		if f[1] != "run" {
			require.Contains(t, flagModes, f[1], "a flag without its modes")
		}
	}
	synopsis := strings.ReplaceAll(usage[:strings.Index(usage, "\n\n")], "\n                ", " ")
	lines := regexp.MustCompile(`-run (\w+)([^\n]*)`).FindAllStringSubmatch(synopsis, -1)
	require.Len(t, lines, len(roles), synopsis)
	for _, l := range lines {
		var listed []string
		for _, m := range regexp.MustCompile(`-(\w+)`).FindAllStringSubmatch(l[2], -1) {
			listed = append(listed, m[1])
		}
		var takes []string
		for name, modes := range flagModes {
			if slices.Contains(modes, l[1]) {
				takes = append(takes, name)
			}
		}
		require.ElementsMatch(t, takes, listed, "-run %s", l[1])
	}
}

func TestHostsListsTheDefaultDeployment(t *testing.T) {
	code, stdout, stderr := runMain("-run", "hosts", "-config", "multi-client.conf")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "replica replica0 127.0.0.1:7070\nreplica replica1 127.0.0.2:7071\nreplica replica2 127.0.0.3:7072\n"+
		"resp replica0 127.0.0.1:6380\nresp replica1 127.0.0.2:6381\nresp replica2 127.0.0.3:6382\n"+
		"client client0 127.0.0.4\nclient client1 127.0.0.5\n", stdout)
}

// An -alias that is not a process of the right kind in the configuration
// is a usage error (exit 2), for every mode that takes one, the replica's
// included.
func TestUnknownAliasIsAUsageError(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-run", "server", "-alias", "replica9"}, `-alias "replica9" is not a replica of multi-client.conf (its replicas: replica0, replica1, replica2)`},
		{[]string{"-run", "server", "-alias", "client0"}, `-alias "client0" is not a replica of multi-client.conf`},
		{[]string{"-run", "client", "-alias", "nosuch"}, `-alias "nosuch" is not a client of multi-client.conf (its clients: client0, client1)`},
		{[]string{"-run", "kv", "-alias", "replica0", "get", "1"}, `-alias "replica0" is not a client of multi-client.conf`},
	} {
		code, _, stderr := runMain(append(c.args, "-config", "multi-client.conf")...)
		require.Equal(t, exitUsage, code, "%v", c.args)
		require.True(t, strings.HasPrefix(stderr, "swiftpaxos: "+c.want), "%v: %s", c.args, stderr)
	}
}

func TestCheckNeedsHistory(t *testing.T) {
	code, _, stderr := runMain("-run", "check")
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "-history")
}

// A configuration that is binary garbage (the 6,454 lines, 9.8 MB)
// names its first problems and counts the rest.
func TestGarbageConfigIsShort(t *testing.T) {
	garbage := make([]byte, 1<<20)
	rand.NewChaCha8([32]byte{1}).Read(garbage)
	p := filepath.Join(t.TempDir(), "garbage.conf")
	require.NoError(t, os.WriteFile(p, garbage, 0o644))
	code, _, stderr := runMain("-run", "server", "-config", p, "-alias", "replica0")
	require.Equal(t, 1, code)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	require.Len(t, lines, 21, "%s", stderr)
	require.Regexp(t, `^and \d+ more$`, lines[20])
	require.Less(t, len(stderr), 20<<10)
}

func TestCertsCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tls")
	code, stdout, stderr := runMain("-run", "certs", "-config", "multi-client.conf", "-out", dir)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "created a test CA and 6 certificates in "+dir)
	for _, name := range []string{"ca.pem", "ca.key", "replica0.pem", "replica2.key", "client1.pem", "generic-client.key"} {
		require.FileExists(t, filepath.Join(dir, name))
	}

	code, _, stderr = runMain("-run", "certs", "-config", "multi-client.conf", "-out", dir)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "not overwriting existing files: "+filepath.Join(dir, "ca.pem"))
	require.Contains(t, stderr, "and 11 more")

	code, _, stderr = runMain("-run", "certs", "-config", "multi-client.conf")
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "-run certs needs -out DIR")

	file := filepath.Join(t.TempDir(), "plain")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	code, _, stderr = runMain("-run", "certs", "-config", "multi-client.conf", "-out", file)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "not a directory")

	code, _, stderr = runMain("-run", "certs", "-config", writeConf(t, map[int]string{7: "pendingz: 1"}), "-out", t.TempDir())
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `unknown key "pendingz"`)
}

func TestHostsNamesTheTLSDirectory(t *testing.T) {
	code, stdout, stderr := runMain("-run", "hosts", "-config", "multi-client.conf", "-tls", "some/dir")
	require.Equal(t, 0, code, stderr)
	abs, err := filepath.Abs("some/dir")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(stdout, "option tls "+abs+"\n"), stdout)
}
