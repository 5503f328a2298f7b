package batcher

import (
	"io"
	"net"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countedTCP is a socket that counts the writes made on its descriptor.
type countedTCP struct {
	*net.TCPConn
	writes atomic.Int64
}

func (c *countedTCP) CountWrite() { c.writes.Add(1) }

// rawTCPPair is tcpPair without the counting wrapper, so that the batcher
// writes to the descriptor.
// Small socket buffers (which also stop the kernel from growing them)
// make a few megabytes fill the connection.
func rawTCPPair(t *testing.T) (*countedTCP, net.Conn) {
	cli, srv := tcpPair(t)
	tcp := cli.Conn.(*net.TCPConn)
	require.NoError(t, tcp.SetWriteBuffer(64<<10))
	require.NoError(t, srv.(*net.TCPConn).SetReadBuffer(64<<10))
	return &countedTCP{TCPConn: tcp}, srv
}

// TestSocketWriterWaitsForRoom: batches far larger than the socket's
// buffers fill it while nobody reads; the writer waits for room instead of
// failing, and once the peer reads, every message arrives once, in order.
func TestSocketWriterWaitsForRoom(t *testing.T) {
	cli, srv := rawTCPPair(t)
	require.NotNil(t, newSockWriter(cli), "a TCP socket is written on its descriptor")
	b := newTestBatcher(t, cli, Options{QueueLen: 4096, WriteTimeout: time.Minute, EnqueueTimeout: time.Minute})
	const n = 2000
	for i := range n {
		require.NoError(t, b.Send(testMsg{Sender: 1, Seq: uint32(i), Pad: 8 << 10}))
	}
	// 16 MB queued against a few hundred KB of socket buffers: the
	// writer is waiting for room before the reader starts.
	r := startReader(srv)
	got := r.recv(t, n)
	for i, a := range got {
		require.Equal(t, uint32(i), a.msg.Seq)
	}
	require.NoError(t, b.Close())
	assert.GreaterOrEqual(t, uint64(cli.writes.Load()), b.Stats().Batches, "every write is counted")
	assert.Greater(t, uint64(cli.writes.Load()), b.Stats().Batches, "no write found the socket full")
}

// TestSocketWriterDeadline: a peer that never reads stops the batcher with
// a deadline error about WriteTimeout after the socket filled.
func TestSocketWriterDeadline(t *testing.T) {
	const writeTimeout = 100 * time.Millisecond
	cli, _ := rawTCPPair(t)
	b := newTestBatcher(t, cli, Options{QueueLen: 4096, WriteTimeout: writeTimeout, EnqueueTimeout: time.Minute})
	for i := range 2000 {
		if b.Send(testMsg{Sender: 1, Seq: uint32(i), Pad: 8 << 10}) != nil {
			break
		}
	}
	select {
	case <-b.Done():
	case <-time.After(time.Minute):
		require.FailNow(t, "the write deadline did not stop the batcher")
	}
	assert.ErrorIs(t, b.Err(), os.ErrDeadlineExceeded)
}

// TestSocketWriterAllocatesNothing: writing a batch that the socket takes
// costs no allocation.
func TestSocketWriterAllocatesNothing(t *testing.T) {
	cli, srv := tcpPair(t)
	go func() { _, _ = io.Copy(io.Discard, srv) }()
	w := newSockWriter(cli.Conn)
	p := make([]byte, 512)
	require.Zero(t, testing.AllocsPerRun(100, func() {
		if _, err := w.write(p, time.Minute); err != nil {
			panic(err)
		}
	}))
}
