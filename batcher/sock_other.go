//go:build !linux

package batcher

import (
	"net"
	"time"
)

// sockWriter is the Linux descriptor writer; elsewhere batches go
// through net.Conn.Write.
type sockWriter struct{}

func newSockWriter(net.Conn) *sockWriter { return nil }

func (*sockWriter) write([]byte, time.Duration) (int, error) { panic("batcher: no socket writer") }
