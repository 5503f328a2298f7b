package resp

import (
	"bytes"
	"crypto/subtle"
	"strings"
)

// spec describes one command: how to run it and what COMMAND and COMMAND
// DOCS say about it (redis-cli's start-up and its hints read these).
type spec struct {
	name  string // upper case
	arity int    // Redis's convention: n exact, -n at least n (the name counts)
	flags []string
	// first, last and step locate the keys among the arguments (1 is
	// the first argument after the name; last -1: to the end).
	first, last, step int
	group             string
	summary           string
	args              []argDoc
	// open: allowed before AUTH when a password is set.
	open bool
	run  func(c *conn, j *job, args [][]byte)
	// index numbers the command for its metrics.
	index int
}

// argDoc is one argument as COMMAND DOCS describes it.
type argDoc struct {
	name string
	// typ is key, string, integer or pattern: redis-cli reads a block or
	// oneof as having nested arguments, and a pure-token as having a token.
	typ      string
	optional bool
	multiple bool
}

var (
	table       = map[string]*spec{}
	specs       []*spec
	unknownSpec = &spec{name: "UNKNOWN"}
)

func register(list ...*spec) {
	for _, s := range list {
		s.index = len(specs)
		specs = append(specs, s)
		table[s.name] = s
	}
	unknownSpec.index = len(specs)
}

func init() {
	register(connectionCommands()...)
	register(stringCommands()...)
	register(keyCommands()...)
	register(serverCommands()...)
}

// start runs the first step of a command: checks its name, arity and the
// connection's authentication, then hands it to its spec.
func (s *Server) start(c *conn, j *job, args [][]byte) {
	if len(args) == 0 {
		j.spec = unknownSpec
		j.fail("ERR empty command")
		return
	}
	sp := lookup(args[0])
	if sp == nil {
		j.spec = unknownSpec
		j.fail("ERR unknown command '" + clip(args[0]) + "', with args beginning with: " + quoteArgs(args[1:]))
		return
	}
	j.spec = sp
	if n := len(args); sp.arity > 0 && n != sp.arity || sp.arity < 0 && n < -sp.arity {
		j.fail("ERR wrong number of arguments for '" + strings.ToLower(sp.name) + "' command")
		return
	}
	if !c.authed && !sp.open {
		j.fail("NOAUTH Authentication required.")
		return
	}
	sp.run(c, j, args[1:])
}

// lookup finds a command by its name in any case, without allocating:
// clients send "GET" or "get" with every command.
func lookup(name []byte) *spec {
	var buf [16]byte
	if len(name) > len(buf) {
		return nil // no command's name is that long
	}
	up := buf[:len(name)]
	for i, c := range name {
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		up[i] = c
	}
	return table[string(up)]
}

// quoteArgs quotes the first arguments of an unknown command back, as
// Redis does, so that a typo is easy to see.
func quoteArgs(args [][]byte) string {
	var b strings.Builder
	for i, a := range args {
		if i == 3 {
			break
		}
		b.WriteString("'" + clip(a) + "' ")
	}
	return b.String()
}

// is says whether an option argument is word, in any case.
func is(arg []byte, word string) bool { return bytes.EqualFold(arg, []byte(word)) }

// passwordOK compares a given password with the configured one in time
// that does not depend on where they differ.
func (s *Server) passwordOK(given []byte) bool {
	return subtle.ConstantTimeCompare(given, []byte(s.cfg.RESPPassword)) == 1
}
