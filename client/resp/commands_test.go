package resp_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every command, at both levels, through go-redis: a client nobody here
// wrote.
func TestCommandsThroughGoRedis(t *testing.T) {
	for _, protocol := range []string{"curpht", "curpho"} {
		t.Run(protocol, func(t *testing.T) {
			c := startCluster(t, protocol, quick)
			for _, level := range []string{"strong", "weak"} {
				t.Run(level, func(t *testing.T) {
					rc := c.client(t, 1, func(o *redis.Options) {
						o.OnConnect = func(ctx context.Context, cn *redis.Conn) error { return cn.Do(ctx, "LEVEL", level).Err() }
						o.PoolSize = 1
					})
					commandsAtLevel(t, rc, level)
				})
			}
		})
	}
}

func commandsAtLevel(t *testing.T, rc *redis.Client, level string) {
	ctx := t.Context()
	k := func(s string) string { return level + ":" + s }
	require.Equal(t, level, rc.Do(ctx, "LEVEL").Val())
	require.Equal(t, "PONG", rc.Ping(ctx).Val())
	assert.Equal(t, "hi", rc.Echo(ctx, "hi").Val())

	// GET and SET; absent and empty differ.
	_, err := rc.Get(ctx, k("a")).Result()
	assert.ErrorIs(t, err, redis.Nil)
	require.NoError(t, rc.Set(ctx, k("a"), "1", 0).Err())
	assert.Equal(t, "1", rc.Get(ctx, k("a")).Val())
	require.NoError(t, rc.Set(ctx, k("empty"), "", 0).Err())
	v, err := rc.Get(ctx, k("empty")).Result()
	require.NoError(t, err)
	assert.Equal(t, "", v)
	assert.Equal(t, int64(2), rc.Exists(ctx, k("a"), k("empty"), k("none")).Val())
	assert.Equal(t, int64(1), rc.StrLen(ctx, k("a")).Val())
	assert.Equal(t, []any{"1", "", nil}, rc.MGet(ctx, k("a"), k("empty"), k("none")).Val())
	assert.Equal(t, "string", rc.Type(ctx, k("a")).Val())
	assert.Equal(t, "none", rc.Type(ctx, k("none")).Val())

	// SET's conditions, SETNX, GETSET, GETDEL, APPEND: compare-and-sets.
	assert.True(t, rc.SetNX(ctx, k("nx"), "x", 0).Val())
	assert.False(t, rc.SetNX(ctx, k("nx"), "y", 0).Val())
	assert.Equal(t, "x", rc.Get(ctx, k("nx")).Val())
	assert.False(t, rc.SetXX(ctx, k("xx"), "y", 0).Val(), "XX on an absent key")
	assert.True(t, rc.SetXX(ctx, k("nx"), "z", 0).Val())
	old, err := rc.SetArgs(ctx, k("nx"), "w", redis.SetArgs{Get: true}).Result()
	require.NoError(t, err)
	assert.Equal(t, "z", old)
	assert.Equal(t, "w", rc.GetSet(ctx, k("nx"), "v").Val())
	assert.Equal(t, "v", rc.Do(ctx, "SET", k("nx"), "u", "IFEQ", "v", "GET").Val())
	assert.Equal(t, "OK", rc.Do(ctx, "SET", k("nx"), "t", "IFEQ", "u").Val())
	assert.ErrorIs(t, rc.Do(ctx, "SET", k("nx"), "s", "IFEQ", "nope").Err(), redis.Nil)
	assert.Equal(t, "t", rc.Do(ctx, "SET", k("nx"), "s", "IFEQ", "nope", "GET").Val(), "what a CAS that did not apply found")
	assert.Equal(t, int64(3), rc.Append(ctx, k("ap"), "abc").Val())
	assert.Equal(t, int64(5), rc.Append(ctx, k("ap"), "de").Val())
	assert.Equal(t, "abcde", rc.GetDel(ctx, k("ap")).Val())
	assert.ErrorIs(t, rc.GetDel(ctx, k("ap")).Err(), redis.Nil)
	err = rc.Set(ctx, k("ttl"), "1", 10e9).Err()
	assert.ErrorContains(t, err, "expiry (ex) is not supported")

	// Counters.
	assert.Equal(t, int64(1), rc.Incr(ctx, k("n")).Val())
	assert.Equal(t, int64(11), rc.IncrBy(ctx, k("n"), 10).Val())
	assert.Equal(t, int64(10), rc.Decr(ctx, k("n")).Val())
	assert.Equal(t, int64(3), rc.DecrBy(ctx, k("n"), 7).Val())
	require.NoError(t, rc.Set(ctx, k("str"), "abc", 0).Err())
	assert.ErrorContains(t, rc.Incr(ctx, k("str")).Err(), "ERR value is not an integer")
	require.NoError(t, rc.Set(ctx, k("big"), "9223372036854775807", 0).Err())
	assert.ErrorContains(t, rc.Incr(ctx, k("big")).Err(), "overflow")
	assert.ErrorContains(t, rc.Do(ctx, "INCRBY", k("n"), "x").Err(), "not an integer")

	// The compare-and-set commands.
	assert.Equal(t, int64(1), rc.Do(ctx, "CAS", k("a"), "1", "2").Val())
	assert.Equal(t, int64(0), rc.Do(ctx, "CAS", k("a"), "1", "3").Val())
	assert.Equal(t, "2", rc.Get(ctx, k("a")).Val())
	assert.Equal(t, int64(0), rc.Do(ctx, "DELIFEQ", k("a"), "1").Val())
	assert.Equal(t, int64(1), rc.Do(ctx, "DELIFEQ", k("a"), "2").Val())

	// DEL: strong counts the keys that existed; weak, whose DELETE is
	// acknowledged before it executes, counts every key given.
	require.NoError(t, rc.Set(ctx, k("d"), "1", 0).Err())
	n := rc.Del(ctx, k("d"), k("never")).Val()
	if level == "strong" {
		assert.Equal(t, int64(1), n)
	} else {
		assert.Equal(t, int64(2), n)
	}
	assert.Equal(t, int64(0), rc.Exists(ctx, k("d")).Val())
	require.NoError(t, rc.Unlink(ctx, k("nx")).Err())

	// SCAN walks every key of a prefix, in key order; KEYS and DBSIZE.
	for i := range 25 {
		require.NoError(t, rc.Set(ctx, k("scan:")+string(rune('a'+i)), "v", 0).Err())
	}
	var walked []string
	iter := rc.Scan(ctx, 0, k("scan:*"), 7).Iterator()
	for iter.Next(ctx) {
		walked = append(walked, iter.Val())
	}
	require.NoError(t, iter.Err())
	require.Len(t, walked, 25)
	assert.IsNonDecreasing(t, walked)
	assert.Len(t, rc.Keys(ctx, k("scan:[a-e]")).Val(), 5)
	assert.GreaterOrEqual(t, rc.DBSize(ctx).Val(), int64(25))
}

// The connection's own commands, and the refusals.
func TestConnectionCommands(t *testing.T) {
	c := startCluster(t, "curpht", quick)
	rc := c.client(t, 0, func(o *redis.Options) { o.PoolSize = 1; o.ClientName = "tester" })
	ctx := t.Context()
	assert.Equal(t, "tester", rc.ClientGetName(ctx).Val())
	id, err := rc.ClientID(ctx).Result()
	require.NoError(t, err)
	assert.Positive(t, id)
	assert.Equal(t, "tester", rc.ClientInfo(ctx).Val().Name)
	assert.NoError(t, rc.Do(ctx, "SELECT", 0).Err())
	assert.ErrorContains(t, rc.Do(ctx, "SELECT", 1).Err(), "DB index is out of range")
	assert.ErrorContains(t, rc.Do(ctx, "HELLO", 3).Err(), "ERR unknown command 'HELLO'", "what old go-redis versions fall back to RESP2 on")
	assert.Equal(t, "swiftpaxos", rc.Do(ctx, "HELLO", 2).Val().([]any)[1])
	assert.ErrorContains(t, rc.Do(ctx, "NOSUCH", "x").Err(), "ERR unknown command 'NOSUCH'")
	assert.Equal(t, "PONG", rc.Ping(ctx).Val(), "the connection stays usable")
	assert.ErrorContains(t, rc.FlushDB(ctx).Err(), "not supported")
	assert.ErrorContains(t, rc.Do(ctx, "GET").Err(), "wrong number of arguments for 'get'")
	assert.ErrorContains(t, rc.Do(ctx, "LEVEL", "eventual").Err(), "strong or weak")
	assert.ErrorContains(t, rc.Do(ctx, "GET", "").Err(), "key", "an empty key is refused")
	cfg, err := rc.ConfigGet(ctx, "appendonly").Result()
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"appendonly": "no"}, cfg)
	n, err := rc.Do(ctx, "COMMAND", "COUNT").Int()
	require.NoError(t, err)
	assert.Greater(t, n, 30)
	info := rc.Info(ctx, "replication").Val()
	assert.Contains(t, info, "connection_level:strong")
	assert.Contains(t, info, "ballot:")
	assert.Regexp(t, `role:(leader|follower)`, info)
	assert.Contains(t, info, "leader:replica")
	assert.NotContains(t, info, "lease_ms", "without leaseReads")
}

// With leaseReads, INFO replication shows how long the replica's lease
// holds: 0 on a follower (replica 1; replica 0 founds the cluster and
// leads it while nothing fails). A leader also says whether it is quiet
// (quiet:0 while it hears its followers) and founding, a follower does
// not.
func TestInfoShowsTheLease(t *testing.T) {
	c := startCluster(t, "curpht", quick+"leaseReads: true")
	info := c.client(t, 1).Info(t.Context(), "replication").Val()
	assert.Contains(t, info, "role:follower\r\n")
	assert.Contains(t, info, "lease_ms:0\r\n")
	assert.NotContains(t, info, "quiet:", "a follower is never quiet")
	// A write completes once the leader founded the cluster.
	require.NoError(t, c.client(t, 0).Set(t.Context(), "k", "v", 0).Err())
	info = c.client(t, 0).Info(t.Context(), "replication").Val()
	assert.Contains(t, info, "role:leader\r\n")
	assert.Contains(t, info, "quiet:0\r\n", "a leader that hears its followers")
	assert.Contains(t, info, "founding:0\r\n", "a leader that answered a client")
}

// A password guards every command but AUTH, HELLO and QUIT.
func TestPassword(t *testing.T) {
	c := startCluster(t, "curpho", quick+"respPassword: S3cret")
	ctx := t.Context()
	bad := c.client(t, 2, func(o *redis.Options) { o.PoolSize = 1 })
	assert.ErrorContains(t, bad.Get(ctx, "k").Err(), "NOAUTH")
	wrong := c.client(t, 2, func(o *redis.Options) { o.Password = "nope" })
	assert.ErrorContains(t, wrong.Ping(ctx).Err(), "WRONGPASS")
	lower := c.client(t, 2, func(o *redis.Options) { o.Password = "s3cret" })
	assert.ErrorContains(t, lower.Ping(ctx).Err(), "WRONGPASS", "the password keeps its case")
	good := c.client(t, 2, func(o *redis.Options) { o.Password = "S3cret" })
	require.NoError(t, good.Set(ctx, "k", "v", 0).Err())
	assert.Equal(t, "v", good.Get(ctx, "k").Val())
}
