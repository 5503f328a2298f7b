package resp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"swiftpaxos/client/statuscli"
	"swiftpaxos/wire"
)

// The server's commands: what clients and tools ask at start-up (COMMAND,
// CONFIG GET, INFO) and the refusals of what the store does not offer.

func serverCommands() []*spec {
	return []*spec{
		{name: "COMMAND", arity: -1, flags: []string{"loading"}, group: "server",
			summary: "Describes the commands: COMMAND, COMMAND COUNT, COMMAND INFO, COMMAND DOCS.",
			args:    []argDoc{{name: "subcommand", typ: "string", optional: true}}, run: command},
		{name: "CONFIG", arity: -2, group: "server", summary: "CONFIG GET of the settings clients ask about.",
			args: []argDoc{{name: "GET", typ: "string"}, {name: "parameter", typ: "pattern", multiple: true}}, run: configCmd},
		{name: "INFO", arity: -1, group: "server",
			summary: "Server, clients, replication (the replica's role, the leader, the ballot, the connection's level) and keyspace.",
			args:    []argDoc{{name: "section", typ: "string", optional: true, multiple: true}}, run: info},
		{name: "FLUSHDB", arity: -1, flags: []string{"write"}, group: "server", summary: "Refused: no atomic way to empty the store.", run: flush},
		{name: "FLUSHALL", arity: -1, flags: []string{"write"}, group: "server", summary: "Refused: no atomic way to empty the store.", run: flush},
	}
}

func flush(c *conn, j *job, args [][]byte) {
	j.fail("ERR " + j.spec.name + " is not supported: the store has no atomic way to delete every key (DEL the keys a SCAN walks instead)")
}

func command(c *conn, j *job, args [][]byte) {
	if len(args) == 0 {
		b := appendArray(nil, len(specs))
		for _, s := range specs {
			b = appendCommandInfo(b, s)
		}
		j.reply(b)
		return
	}
	sub := strings.ToUpper(string(args[0]))
	switch {
	case sub == "COUNT" && len(args) == 1:
		j.reply(appendInt(nil, int64(len(specs))))
	case sub == "INFO":
		list := pick(args[1:])
		b := appendArray(nil, len(list))
		for _, s := range list {
			if s == nil {
				b = appendNull(b)
			} else {
				b = appendCommandInfo(b, s)
			}
		}
		j.reply(b)
	case sub == "DOCS":
		list := pick(args[1:])
		n := 0
		var body []byte
		for _, s := range list {
			if s != nil {
				n++
				body = appendDocs(appendBulkString(body, strings.ToLower(s.name)), s)
			}
		}
		j.reply(append(appendArray(nil, 2*n), body...))
	case sub == "LIST" && len(args) == 1:
		names := make([]string, len(specs))
		for i, s := range specs {
			names[i] = strings.ToLower(s.name)
		}
		sort.Strings(names)
		j.reply(appendStrings(nil, names...))
	default:
		j.fail("ERR unknown subcommand or wrong number of arguments for 'command|" + strings.ToLower(clip(args[0])) + "'")
	}
}

// pick is the specs named, or all of them when none is.
func pick(names [][]byte) []*spec {
	if len(names) == 0 {
		return specs
	}
	out := make([]*spec, len(names))
	for i, n := range names {
		out[i] = table[strings.ToUpper(string(n))]
	}
	return out
}

// appendCommandInfo appends COMMAND's ten-field description of s.
func appendCommandInfo(b []byte, s *spec) []byte {
	b = appendArray(b, 10)
	b = appendBulkString(b, strings.ToLower(s.name))
	b = appendInt(b, int64(s.arity))
	b = appendArray(b, len(s.flags))
	for _, f := range s.flags {
		b = appendSimple(b, f)
	}
	b = appendInt(b, int64(s.first))
	b = appendInt(b, int64(s.last))
	b = appendInt(b, int64(s.step))
	for range 4 { // ACL categories, tips, key specs, subcommands
		b = appendArray(b, 0)
	}
	return b
}

// appendDocs appends COMMAND DOCS's map for s (as a flat array, RESP2).
func appendDocs(b []byte, s *spec) []byte {
	b = appendArray(b, 8)
	b = appendBulkString(b, "summary")
	b = appendBulkString(b, s.summary)
	b = appendBulkString(b, "since")
	b = appendBulkString(b, "1.0.0")
	b = appendBulkString(b, "group")
	b = appendBulkString(b, s.group)
	b = appendBulkString(b, "arguments")
	b = appendArray(b, len(s.args))
	for _, a := range s.args {
		var flags []string
		if a.optional {
			flags = append(flags, "optional")
		}
		if a.multiple {
			flags = append(flags, "multiple")
		}
		b = appendArray(b, 6)
		b = appendBulkString(b, "name")
		b = appendBulkString(b, a.name)
		b = appendBulkString(b, "type")
		b = appendBulkString(b, a.typ)
		b = appendBulkString(b, "flags")
		b = appendArray(b, len(flags))
		for _, f := range flags {
			b = appendSimple(b, f)
		}
	}
	return b
}

// configCmd answers CONFIG GET with the settings clients and benchmarks
// look at; CONFIG SET and the rest are refused.
func configCmd(c *conn, j *job, args [][]byte) {
	if !is(args[0], "GET") || len(args) < 2 {
		j.fail("ERR CONFIG " + strings.ToUpper(clip(args[0])) + " is not supported: only CONFIG GET, of settings that come from the configuration file")
		return
	}
	cfg := c.srv.cfg
	appendonly := "no"
	if cfg.DataPath != "" {
		appendonly = "yes"
	}
	maxclients := "0"
	if cfg.MaxConns > 0 {
		maxclients = strconv.Itoa(cfg.MaxConns)
	}
	settings := [][2]string{
		{"appendonly", appendonly}, {"save", ""}, {"databases", "1"}, {"maxclients", maxclients},
		{"maxmemory", "0"}, {"proto-max-bulk-len", strconv.Itoa(c.srv.limits.Bulk)},
		{"timeout", strconv.Itoa(int(cfg.ClientIdleTimeout / time.Second))},
	}
	var out []string
	for _, s := range settings {
		for _, p := range args[1:] {
			if match([]byte(strings.ToLower(string(p))), []byte(s[0])) {
				out = append(out, s[0], s[1])
				break
			}
		}
	}
	j.reply(appendStrings(nil, out...))
}

// infoTimeout bounds INFO's question to the replica beside the front-end.
const infoTimeout = time.Second

// info answers INFO from a goroutine of its own: the replication section
// asks the replica for its status, which must not hold up the
// connection's other replies' computation (they wait for INFO's, in order).
func info(c *conn, j *job, args [][]byte) {
	sections := map[string]bool{}
	for _, a := range args {
		sections[strings.ToLower(string(a))] = true
	}
	all := len(sections) == 0 || sections["all"] || sections["everything"] || sections["default"]
	want := func(s string) bool { return all || sections[s] }
	j.async = true
	srv, level, done := c.srv, c.level, c.ctx.Done()
	go func() {
		var b strings.Builder
		if want("server") {
			fmt.Fprintf(&b, "# Server\r\nredis_version:%s\r\nredis_mode:standalone\r\nswiftpaxos_protocol:%s\r\nreplica:%s\r\ntcp_port:%d\r\n\r\n",
				redisVersion, srv.cfg.Protocol, srv.o.Alias, srv.port())
		}
		if want("clients") {
			fmt.Fprintf(&b, "# Clients\r\nconnected_clients:%d\r\nmaxclients:%d\r\n\r\n", srv.open.Load(), srv.cfg.MaxConns)
		}
		if want("replication") || want("log") {
			b.WriteString(srv.replication(level, want("replication"), want("log")))
		}
		if want("keyspace") {
			b.WriteString("# Keyspace\r\n\r\n")
		}
		j.out = appendBulkString(nil, b.String())
		// The connection waits for this reply (the ones after it wait
		// behind it), so it is handed over for as long as the connection
		// lives, however long its loop is busy writing.
		select {
		case c.async <- j:
		case <-done:
		}
	}()
}

// port is the RESP port of the front-end.
func (s *Server) port() int {
	i, _ := s.cfg.ReplicaIndex(s.o.Alias)
	return s.cfg.RESPPort + i
}

// replication is INFO's replication section (the replica's role, the
// leader and the ballot as the replica itself reports them, and the
// connection's level) and its log section (the replica's commit and
// applied indexes).
func (s *Server) replication(level fmt.Stringer, repl, log bool) string {
	var b strings.Builder
	var st *wire.StatusReply
	err := errors.New("the front-end has no status source")
	if s.o.Status != nil {
		ctx, cancel := context.WithTimeout(context.Background(), infoTimeout)
		st, err = s.o.Status(ctx)
		cancel()
	}
	if repl {
		b.WriteString("# Replication\r\n")
		fmt.Fprintf(&b, "connection_level:%s\r\nprotocol:%s\r\nreplicas:%d\r\n", level, s.cfg.Protocol, s.cfg.N())
		if err != nil {
			fmt.Fprintf(&b, "role:unknown\r\nstatus_error:%s\r\n", strings.ReplaceAll(err.Error(), "\r\n", " "))
		} else {
			role := statuscli.RoleName(st)
			fmt.Fprintf(&b, "role:%s\r\nmember:%v\r\nballot:%d\r\n", role, st.Member, st.Ballot)
			if st.Leases {
				fmt.Fprintf(&b, "lease_ms:%d\r\n", st.LeaseMs)
			}
			if role == "leader" {
				fmt.Fprintf(&b, "quiet:%d\r\nfounding:%d\r\n", b2i(st.Quiet), b2i(st.Founding))
			}
			if int(st.Leader) >= 0 && int(st.Leader) < s.cfg.N() {
				addr, _ := s.cfg.RESPAddr(int(st.Leader))
				fmt.Fprintf(&b, "leader:%s\r\nleader_resp:%s\r\n", s.cfg.Replica(int(st.Leader)).Alias, addr)
			} else {
				b.WriteString("leader:none\r\n")
			}
		}
		b.WriteString("\r\n")
	}
	if log && err == nil {
		fmt.Fprintf(&b, "# Log\r\ncommit_index:%d\r\napplied_index:%d\r\nlast_slot:%d\r\nsessions:%d\r\n\r\n",
			st.CommitIndex, st.AppliedIndex, st.LastSlot, st.Sessions)
	}
	return b.String()
}
