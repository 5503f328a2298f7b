package client

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/config"
	"swiftpaxos/wire"
)

// TestTransportRoutes: on the shared connection a session's message that
// does not name the session (a Sync about another client's command) goes
// out inside a Routed that names it, and a Routed reply (a NewView, which
// names no session) reaches the session it names, unwrapped.
func TestTransportRoutes(t *testing.T) {
	ln, cfg := listenerReplica0(t)
	tr, err := NewTransport(TransportOptions{Config: cfg, Alias: "client0", Sessions: 3})
	require.NoError(t, err)
	defer tr.Close()

	type accepted struct {
		c   net.Conn
		err error
	}
	acc := make(chan accepted, 1)
	go func() {
		c, err := ln.Accept()
		acc <- accepted{c, err}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	inbox := make(chan reply, 4)
	p, err := tr.attach(ctx, ctx, 0, 5, inbox)
	require.NoError(t, err)
	a := <-acc
	require.NoError(t, a.err)
	srv := a.c
	defer srv.Close()
	require.NoError(t, srv.SetDeadline(time.Now().Add(time.Minute)))

	foreign := wire.CmdID{Client: 77, Seq: 3}
	require.NoError(t, p.send(&wire.Sync{Cmd: foreign}))
	rd := wire.NewReader(srv, 1<<20)
	var got []wire.Message
	for len(got) < 3 {
		m, err := rd.Next()
		require.NoError(t, err)
		got = append(got, m)
	}
	require.Equal(t, &wire.Hello{Kind: wire.PeerSessions, Alias: "client0", Sessions: 3, Protocol: "curpht"}, got[0], "the replica sizes its queue for the sessions, and refuses another protocol")
	require.Equal(t, &wire.Hello{Kind: wire.PeerClient, Client: 5, Alias: "client0", Protocol: "curpht"}, got[1])
	require.Equal(t, &wire.Routed{Session: 5, Msg: &wire.Sync{Cmd: foreign}}, got[2])

	nv := &wire.NewView{Ballot: 2, Leader: 0, ViewStart: 4, Committed: true}
	_, err = srv.Write(wire.AppendFrame(nil, &wire.Routed{Session: 5, Msg: nv}))
	require.NoError(t, err)
	select {
	case r := <-inbox:
		require.Equal(t, []wire.Message{nv}, r.msgs)
	case <-ctx.Done():
		t.Fatal("the routed NewView did not reach its session")
	}
}

// A session may still be dialling when its Transport closes: a
// connection opened after Close would be left open, its reader never
// waited for (and its WaitGroup.Add raced with Close's Wait). Close is
// final: attach fails after it, and opens nothing.
func TestTransportOpensNothingAfterClose(t *testing.T) {
	_, cfg := listenerReplica0(t) // a replica0 that is there, were Close to let attach dial it
	tr, err := NewTransport(TransportOptions{Config: cfg, Alias: "client0"})
	require.NoError(t, err)
	require.NoError(t, tr.Close())

	_, err = tr.attach(t.Context(), t.Context(), 0, 1, make(chan reply, 1))
	require.ErrorIs(t, err, net.ErrClosed)
	tr.links[0].mu.RLock()
	defer tr.links[0].mu.RUnlock()
	require.Nil(t, tr.links[0].cur)
}

// listenerReplica0 is a configuration whose replica0 is a listener of the
// test's (closed at its end) and whose other replicas are not there.
func listenerReplica0(t *testing.T) (net.Listener, *config.Config) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	text := fmt.Sprintf("-- Replicas --\nreplica0 %s\nreplica1 127.0.0.1:1\nreplica2 127.0.0.1:2\n-- Clients --\nclient0 127.0.0.1\n---\nprotocol: curpht\n", ln.Addr())
	cfg, err := config.Parse("t.conf", strings.NewReader(text))
	require.NoError(t, err)
	return ln, cfg
}
