package resp

import (
	"strconv"
	"strings"

	"swiftpaxos/client"
)

// The connection's commands: they answer at once, from the connection's
// own state, in the order of the commands around them.

func connectionCommands() []*spec {
	return []*spec{
		{name: "PING", arity: -1, flags: []string{"fast"}, group: "connection", summary: "Returns PONG, or the message given.",
			args: []argDoc{{name: "message", typ: "string", optional: true}}, run: ping},
		{name: "ECHO", arity: 2, flags: []string{"fast"}, group: "connection", summary: "Returns the message given.",
			args: []argDoc{{name: "message", typ: "string"}}, run: echo},
		{name: "QUIT", arity: -1, flags: []string{"fast"}, group: "connection", summary: "Closes the connection.", open: true, run: quit},
		{name: "HELLO", arity: -1, flags: []string{"fast"}, group: "connection",
			summary: "Says hello in RESP2 (protover 2 only), with optional AUTH and SETNAME.", open: true,
			args: []argDoc{{name: "protover", typ: "integer", optional: true}, {name: "AUTH username password", typ: "string", optional: true},
				{name: "SETNAME clientname", typ: "string", optional: true}}, run: hello},
		{name: "AUTH", arity: -2, flags: []string{"fast"}, group: "connection", summary: "Authenticates the connection with respPassword.", open: true,
			args: []argDoc{{name: "username", typ: "string", optional: true}, {name: "password", typ: "string"}}, run: auth},
		{name: "SELECT", arity: 2, flags: []string{"fast"}, group: "connection", summary: "Selects database 0, the only one.",
			args: []argDoc{{name: "index", typ: "integer"}}, run: selectDB},
		{name: "CLIENT", arity: -2, group: "connection", summary: "SETNAME, GETNAME, ID, SETINFO and INFO of this connection.",
			args: []argDoc{{name: "subcommand", typ: "string"}, {name: "arg", typ: "string", optional: true, multiple: true}}, run: clientCmd},
		{name: "LEVEL", arity: -1, flags: []string{"fast"}, group: "connection",
			summary: "Shows or sets the connection's consistency level: strong (linearizable) or weak (causal, per connection).",
			args:    []argDoc{{name: "strong|weak", typ: "string", optional: true}}, run: level},
	}
}

func ping(c *conn, j *job, args [][]byte) {
	switch len(args) {
	case 0:
		j.reply(appendSimple(nil, "PONG"))
	case 1:
		j.reply(appendBulk(nil, args[0]))
	default:
		j.fail("ERR wrong number of arguments for 'ping' command")
	}
}

func echo(c *conn, j *job, args [][]byte) { j.reply(appendBulk(nil, args[0])) }

func quit(c *conn, j *job, args [][]byte) {
	j.reply(okReply)
	j.quit = true
}

// hello answers HELLO in RESP2. RESP3 is not spoken: HELLO 3 is answered
// as a server without HELLO answers it ("ERR unknown command"), the one
// error on which every go-redis version goes on in RESP2 (the one go-ycsb
// builds with accepts no other; NOPROTO, what Redis says of a version it
// lacks, makes it fail the connection).
func hello(c *conn, j *job, args [][]byte) {
	if len(args) > 0 {
		v, err := strconv.Atoi(string(args[0]))
		if err != nil {
			j.fail("ERR Protocol version is not an integer or out of range")
			return
		}
		if v != 2 {
			j.fail("ERR unknown command 'HELLO', with args beginning with: '" + clip(args[0]) + "' (this server speaks RESP2 only: HELLO 2 works)")
			return
		}
		args = args[1:]
	}
	name, named := "", false
	for len(args) > 0 {
		switch {
		case is(args[0], "AUTH") && len(args) >= 3:
			if !c.login(j, args[1], args[2]) {
				return
			}
			args = args[3:]
		case is(args[0], "SETNAME") && len(args) >= 2:
			if strings.ContainsAny(string(args[1]), " \n\r\t") {
				j.fail("ERR Client names cannot contain spaces, newlines or special characters.")
				return
			}
			name, named = string(args[1]), true
			args = args[2:]
		default:
			j.fail("ERR Syntax error in HELLO option '" + clip(args[0]) + "'")
			return
		}
	}
	if !c.authed {
		j.fail("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
		return
	}
	if named {
		c.name = name
	}
	b := appendArray(nil, 14)
	b = appendBulkString(b, "server")
	b = appendBulkString(b, "swiftpaxos")
	b = appendBulkString(b, "version")
	b = appendBulkString(b, redisVersion)
	b = appendBulkString(b, "proto")
	b = appendInt(b, 2)
	b = appendBulkString(b, "id")
	b = appendInt(b, c.id)
	b = appendBulkString(b, "mode")
	b = appendBulkString(b, "standalone")
	b = appendBulkString(b, "role")
	b = appendBulkString(b, "master")
	b = appendBulkString(b, "modules")
	b = appendArray(b, 0)
	j.reply(b)
}

// redisVersion is the Redis version whose commands the front-end answers
// as Redis does, for clients that look at it before using a command.
const redisVersion = "7.0.0"

func auth(c *conn, j *job, args [][]byte) {
	if len(args) > 2 {
		j.fail("ERR syntax error")
		return
	}
	user := []byte("default")
	if len(args) == 2 {
		user, args = args[0], args[1:]
	}
	if c.login(j, user, args[0]) {
		j.reply(okReply)
	}
}

// login checks a user and password; on failure it finishes j with the
// error.
func (c *conn) login(j *job, user, password []byte) bool {
	if c.srv.cfg.RESPPassword == "" {
		j.fail("ERR AUTH <password> called without any password configured for the default user (respPassword)")
		return false
	}
	if string(user) != "default" || !c.srv.passwordOK(password) {
		j.fail("WRONGPASS invalid username-password pair or user is disabled.")
		return false
	}
	c.authed = true
	return true
}

func selectDB(c *conn, j *job, args [][]byte) {
	n, err := strconv.Atoi(string(args[0]))
	switch {
	case err != nil:
		j.fail("ERR value is not an integer or out of range")
	case n != 0:
		j.fail("ERR DB index is out of range: swiftpaxos has database 0 only")
	default:
		j.reply(okReply)
	}
}

func clientCmd(c *conn, j *job, args [][]byte) {
	sub := strings.ToUpper(string(args[0]))
	args = args[1:]
	switch {
	case sub == "SETNAME" && len(args) == 1:
		if strings.ContainsAny(string(args[0]), " \n\r\t") {
			j.fail("ERR Client names cannot contain spaces, newlines or special characters.")
			return
		}
		c.name = string(args[0])
		j.reply(okReply)
	case sub == "GETNAME" && len(args) == 0:
		if c.name == "" {
			j.reply(appendNull(nil))
			return
		}
		j.reply(appendBulkString(nil, c.name))
	case sub == "ID" && len(args) == 0:
		j.reply(appendInt(nil, c.id))
	case sub == "SETINFO" && len(args) == 2:
		if !is(args[0], "LIB-NAME") && !is(args[0], "LIB-VER") {
			j.fail("ERR Unrecognized option '" + clip(args[0]) + "'")
			return
		}
		j.reply(okReply)
	case sub == "INFO" && len(args) == 0:
		j.reply(appendBulkString(nil, c.describe()+"\n"))
	case sub == "SETNAME" || sub == "GETNAME" || sub == "ID" || sub == "SETINFO" || sub == "INFO":
		j.fail("ERR wrong number of arguments for 'client|" + strings.ToLower(sub) + "' command")
	default:
		j.fail("ERR unknown subcommand '" + clip([]byte(sub)) + "'. swiftpaxos answers CLIENT SETNAME, GETNAME, ID, SETINFO and INFO.")
	}
}

// describe is the connection's line of CLIENT INFO.
func (c *conn) describe() string {
	return "id=" + strconv.FormatInt(c.id, 10) + " addr=" + c.nc.RemoteAddr().String() + " laddr=" + c.nc.LocalAddr().String() +
		" name=" + c.name + " db=0 level=" + c.level.String() + " resp=2"
}

// level shows or sets the level of the connection's later commands.
func level(c *conn, j *job, args [][]byte) {
	switch {
	case len(args) == 0:
		j.reply(appendSimple(nil, c.level.String()))
	case len(args) == 1 && is(args[0], "strong"):
		c.level = client.Strong
		j.reply(okReply)
	case len(args) == 1 && is(args[0], "weak"):
		c.level = client.Weak
		j.reply(okReply)
	default:
		j.fail("ERR LEVEL takes strong or weak")
	}
}
