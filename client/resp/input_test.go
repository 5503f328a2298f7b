package resp_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawConn is a connection to a front-end that speaks RESP by hand.
type rawConn struct {
	t  *testing.T
	nc net.Conn
	r  *bufio.Reader
}

func (c *cluster) raw(t *testing.T, i int) *rawConn {
	t.Helper()
	nc, err := net.Dial("tcp", c.resp[i])
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	// A bound on every read, so that a front-end that never answers fails
	// the test instead of hanging it.
	require.NoError(t, nc.SetDeadline(time.Now().Add(10*time.Second)))
	return &rawConn{t: t, nc: nc, r: bufio.NewReader(nc)}
}

func (rc *rawConn) send(s string) {
	rc.t.Helper()
	_, err := io.WriteString(rc.nc, s)
	require.NoError(rc.t, err)
}

// reply reads one reply: a simple string, error or integer as its line
// ("+OK", "-ERR ..."), a bulk as "$" and its content, a null as "$-1".
func (rc *rawConn) reply() (string, error) {
	line, err := rc.r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if !strings.HasPrefix(line, "$") || line == "$-1" {
		return line, nil
	}
	n, err := strconv.Atoi(line[1:])
	if err != nil {
		return "", fmt.Errorf("bad bulk header %q", line)
	}
	b := make([]byte, n+2)
	if _, err := io.ReadFull(rc.r, b); err != nil {
		return "", err
	}
	return "$" + string(b[:n]), nil
}

func (rc *rawConn) expect(want ...string) {
	rc.t.Helper()
	for _, w := range want {
		got, err := rc.reply()
		require.NoError(rc.t, err)
		require.Equal(rc.t, w, got)
	}
}

// closed says the front-end closed the connection: the read ends, with
// nothing more to read.
func closedConn(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
}

// allocated is the least the process allocated over three runs of f: the
// cluster runs in this process, so a front-end that made room for what a
// header announced shows in every run, while the cluster's own work (a
// connection's batcher is megabytes) shows in some.
func allocated(f func()) uint64 {
	least := uint64(math.MaxUint64)
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}

// What a client sends by hand, or sends to harm: hostile sizes are refused
// before anything of their size is allocated, and the front-end goes on
// serving; inline commands and unknown ones keep the connection usable;
// pipelines through go-redis are answered in order at both levels.
func TestFrontEndInput(t *testing.T) {
	for _, protocol := range []string{"curpht", "curpho"} {
		t.Run(protocol, func(t *testing.T) {
			c := startCluster(t, protocol, quick)
			t.Run("hostile", func(t *testing.T) { hostileInput(t, c) })
			t.Run("inline", func(t *testing.T) { inlineCommands(t, c) })
			t.Run("read-ahead", func(t *testing.T) { readAhead(t, c) })
			for _, level := range []string{"strong", "weak"} {
				t.Run("pipeline/"+level, func(t *testing.T) { pipelineInOrder(t, c, level) })
			}
		})
	}
}

// memoryBound is how much the process may allocate while a hostile
// request is refused: the cluster's own work over a few milliseconds,
// and far less than any of the announced sizes.
const memoryBound = 4 << 20

func hostileInput(t *testing.T, c *cluster) {
	// The front-end's first session opens its connections to the
	// replicas (tens of MB of batcher queues, once); a connection kept
	// open meanwhile keeps them open, so that only the hostile requests
	// are measured.
	warm := c.raw(t, 0)
	warm.send("PING\r\n")
	warm.expect("+PONG")
	for _, tc := range []struct {
		name, send, reply string
	}{
		{"1 GB bulk", "*2\r\n$3\r\nGET\r\n$1073741824\r\n", "-ERR Protocol error: invalid bulk length"},
		{"10 million arguments", "*10000000\r\n", "-ERR Protocol error: invalid multibulk length"},
		{"10 million arguments then some", "*10000000\r\n" + strings.Repeat("$1\r\na\r\n", 1000), "-ERR Protocol error: invalid multibulk length"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := allocated(func() {
				rc := c.raw(t, 0)
				rc.send(tc.send)
				got, err := rc.reply()
				require.NoError(t, err)
				assert.Equal(t, tc.reply, got)
				_, err = rc.reply()
				assert.True(t, closedConn(err), "the front-end closes the connection after a protocol error: %v", err)
			})
			assert.Less(t, n, uint64(memoryBound), "allocated while refusing %q", tc.name)
			next := c.raw(t, 0)
			next.send("PING\r\n")
			next.expect("+PONG")
		})
	}

	// A line that never ends: the front-end stops reading it at its
	// inline bound (64 KiB), answers and closes, while the client is
	// still writing; the client may then see the close (a reset) before
	// the reply.
	t.Run("endless inline line", func(t *testing.T) {
		chunk := []byte(strings.Repeat("a", 64<<10))
		n := allocated(func() {
			rc := c.raw(t, 0)
			wrote := make(chan int64, 1)
			go func() {
				var n int64
				for n < 16<<20 {
					m, err := rc.nc.Write(chunk)
					n += int64(m)
					if err != nil {
						break
					}
				}
				wrote <- n
			}()
			got, err := rc.reply()
			if err == nil {
				assert.Equal(t, "-ERR Protocol error: too big inline request", got)
				_, err = rc.reply()
			}
			assert.True(t, closedConn(err), "the front-end closes the connection: %v", err)
			<-wrote
		})
		assert.Less(t, n, uint64(memoryBound), "allocated while refusing 16 MB of one line")
	})

	// After all that, the front-end serves a new connection, and the
	// first one still.
	rc := c.raw(t, 0)
	rc.send("PING\r\n")
	rc.expect("+PONG")
	warm.send("PING\r\n")
	warm.expect("+PONG")
}

func inlineCommands(t *testing.T, c *cluster) {
	rc := c.raw(t, 1)
	rc.send("PING\r\n")
	rc.expect("+PONG")
	rc.send(`SET inline:a "b c"` + "\r\n")
	rc.expect("+OK")
	rc.send("GET inline:a\r\n")
	rc.expect("$b c")
	rc.send(`SET inline:b 'it\'s' ` + "\r\n" + `SET inline:c "\x41\tB"` + "\r\nMGET inline:b inline:c\r\n")
	rc.expect("+OK", "+OK", "*2", "$it's", "$A\tB")

	// An unknown command is an error reply, and the connection goes on;
	// so does an inline command with unbalanced quotes (Redis closes
	// here; the front-end too).
	rc.send("NOSUCH a b\r\nPING\r\n")
	rc.expect("-ERR unknown command 'NOSUCH', with args beginning with: 'a' 'b' ", "+PONG")

	// Inline, multibulk, empty lines and *0 mix in one pipeline; the
	// replies come in command order, one per command.
	rc.send("ECHO one\r\n\r\n*2\r\n$4\r\nECHO\r\n$3\r\ntwo\r\n*0\r\n\nECHO three\n")
	rc.expect("$one", "$two", "$three")

	rc.send(`SET k "unbalanced` + "\r\n")
	rc.expect("-ERR Protocol error: unbalanced quotes in request")
	_, err := rc.reply()
	assert.True(t, closedConn(err), "%v", err)
}

// pipelineInOrder sends 360 commands in one go-redis pipeline: each SET
// is followed by a GET of its key, an INCR of a shared counter, an MGET
// of its key and the one before, and a SET and a GET of one shared key.
// Every reply must be the one for its command (the counter's values say
// the INCRs ran in order) and each GET must see the SET before it:
// read-your-writes inside a pipeline, at the weak level too.
func pipelineInOrder(t *testing.T, c *cluster, level string) {
	ctx := t.Context()
	// One connection, one session: go-redis may run a pipeline on
	// another pooled connection than the commands around it, even with a
	// pool of one, and another session need not read this one's writes.
	rc := c.client(t, 1).Conn()
	t.Cleanup(func() { rc.Close() })
	require.NoError(t, rc.Do(ctx, "LEVEL", level).Err())
	key := func(i int) string { return fmt.Sprintf("pipe:%s:%d", level, i) }
	val := func(i int) string { return fmt.Sprintf("v%d-%s", i, strings.Repeat("x", i%7)) }
	counter := "pipe:" + level + ":n"
	shared := "pipe:" + level + ":shared"
	const n = 60
	pipe := rc.Pipeline()
	type round struct {
		set  *redis.StatusCmd
		get  *redis.StringCmd
		incr *redis.IntCmd
		mget *redis.SliceCmd
		put  *redis.StatusCmd
		read *redis.StringCmd
	}
	rounds := make([]round, n)
	for i := range rounds {
		rounds[i] = round{
			set:  pipe.Set(ctx, key(i), val(i), 0),
			get:  pipe.Get(ctx, key(i)),
			incr: pipe.Incr(ctx, counter),
			mget: pipe.MGet(ctx, key(i), key(i-1)),
			put:  pipe.Set(ctx, shared, val(i), 0),
			read: pipe.Get(ctx, shared),
		}
	}
	require.Equal(t, 6*n, pipe.Len())
	_, _ = pipe.Exec(ctx) // the first error; each command's is checked below
	for i, r := range rounds {
		require.Equal(t, "OK", r.set.Val(), "SET %d: %v", i, r.set.Err())
		require.Equal(t, val(i), r.get.Val(), "GET %d right after its SET: %v", i, r.get.Err())
		require.Equal(t, int64(i+1), r.incr.Val(), "INCR %d: %v", i, r.incr.Err())
		want := []any{val(i), nil}
		if i > 0 {
			want[1] = val(i - 1)
		}
		require.Equal(t, want, r.mget.Val(), "MGET %d: %v", i, r.mget.Err())
		require.Equal(t, "OK", r.put.Val(), "SET of the shared key %d: %v", i, r.put.Err())
		require.Equal(t, val(i), r.read.Val(), "GET of the shared key %d, right after its SET: %v", i, r.read.Err())
	}
	assert.Equal(t, strconv.Itoa(n), rc.Get(ctx, counter).Val())
}

// readAhead: bytes read after a command that are no whole command (a
// blank line, the start of another) must not hold its reply back: the
// client waits for the reply before it sends the rest.
func readAhead(t *testing.T, c *cluster) {
	rc := c.raw(t, 0)
	require.NoError(t, rc.nc.SetDeadline(time.Now().Add(3*time.Second)))
	rc.send("PING\r\n\r\n")
	rc.expect("+PONG")
	rc.send("PING\r\n*1\r\n")
	rc.expect("+PONG")
	rc.send("$4\r\nPING\r\n")
	rc.expect("+PONG")
}
