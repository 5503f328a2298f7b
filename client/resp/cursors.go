package resp

import (
	"math/rand/v2"
	"sync"

	"swiftpaxos/kvs"
)

// maxCursors bounds the SCAN cursors a front-end remembers; the oldest is
// forgotten first, and a client that comes back with it is told the
// cursor is invalid.
const maxCursors = 16 << 10

// cursors maps SCAN cursors to the key a walk goes on from. Clients expect
// a cursor to be a number (redis-cli and go-redis parse it), and a key
// does not fit in one; the table is the front-end's, not a connection's,
// since a client library may go on with a cursor on another of its
// connections.
type cursors struct {
	mu    sync.Mutex
	keys  map[uint64]kvs.Key
	order []uint64 // ids in the order they were made, for eviction
}

func (t *cursors) put(k kvs.Key) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.keys == nil {
		t.keys = make(map[uint64]kvs.Key)
	}
	var id uint64
	for id == 0 || t.keys[id] != "" {
		id = rand.Uint64() >> 1 // redis-cli reads a cursor as a signed number too
	}
	if len(t.order) >= maxCursors {
		delete(t.keys, t.order[0])
		t.order = t.order[1:]
	}
	t.keys[id] = k
	t.order = append(t.order, id)
	return id
}

func (t *cursors) get(id uint64) (kvs.Key, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	k, ok := t.keys[id]
	return k, ok
}
