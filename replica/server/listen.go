package server

import (
	"fmt"
	"net"
)

// listeners are the sockets a replica accepts connections on: its TCP
// address first, then, when set, the Unix socket of its process's RESP
// front-end (Options.LocalAddr, docs/DECISIONS.md 54). Both are open from
// the start, so that a front-end that dials while a durable replica
// restores waits in the backlog, as over TCP.
type listeners []net.Listener

func listen(addr, local string) (listeners, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	if local == "" {
		return listeners{ln}, nil
	}
	u, err := net.Listen("unix", local)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("listen on %s: %w", local, err)
	}
	return listeners{ln, u}, nil
}

// tcp is the replica's TCP listener.
func (ls listeners) tcp() net.Listener { return ls[0] }

func (ls listeners) close() {
	for _, l := range ls {
		l.Close()
	}
}
