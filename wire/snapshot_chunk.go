package wire

import "swiftpaxos/kvs"

// SnapshotCursor is where a snapshot sent in chunks stands: first the
// client table, then the store's items. The zero value is the start.
type SnapshotCursor struct {
	sessions int
	items    kvs.ChunkPos
}

// FillChunk sets m's Sessions, Items and Done to the chunk of the snapshot
// (sessions, store) that follows cur, and returns the cursor after it. A
// chunk holds about maxBytes: as many sessions as fit (one at least, so
// that a table of any size crosses in frames of bounded size), then items
// in what is left. The leader's transfer and the snapshot file share it,
// so that a table that fits one fits the other.
func FillChunk(m *InstallSnapshot, sessions []SessionState, store *kvs.Snapshot, cur SnapshotCursor, maxBytes int) SnapshotCursor {
	m.Sessions, m.Items, m.Done = nil, nil, false
	budget := maxBytes
	if cur.sessions < len(sessions) {
		n, size := 0, 0
		var scratch []byte
		for rest := sessions[cur.sessions:]; n < len(rest); n++ {
			scratch = appendSession(scratch[:0], &rest[n])
			if n > 0 && size+len(scratch) > maxBytes {
				break
			}
			size += len(scratch)
		}
		m.Sessions = sessions[cur.sessions : cur.sessions+n : cur.sessions+n]
		cur.sessions += n
		budget -= size
	}
	if cur.sessions == len(sessions) && budget > 0 {
		m.Items, cur.items = store.Chunk(cur.items, budget)
		m.Done = cur.items.Done()
	}
	return cur
}
