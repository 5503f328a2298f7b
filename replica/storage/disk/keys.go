package disk

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/storage"
	"swiftpaxos/wire"
)

// Keys in the database: the cluster's identity under "c" (identity.go),
// the hard state under "h", entries under "l" and their slot (big-endian,
// so that they sort by slot), records under "r" and their command id.
const (
	prefixHard   = 'h'
	prefixLog    = 'l'
	prefixRecord = 'r'
)

func logKey(s kvs.Slot) []byte { return appendLogKey(nil, s) }

func appendLogKey(dst []byte, s kvs.Slot) []byte {
	return binary.BigEndian.AppendUint64(append(dst, prefixLog), uint64(s))
}

// logEnd is past every log key.
var logEnd = []byte{prefixLog + 1}

func recordKey(id wire.CmdID) []byte { return appendRecordKey(nil, id) }

func appendRecordKey(dst []byte, id wire.CmdID) []byte {
	k := binary.BigEndian.AppendUint64(append(dst, prefixRecord), uint64(id.Client))
	return binary.BigEndian.AppendUint64(k, uint64(id.Seq))
}

// encodeHard writes ballot, vote, membership, the highest pre-vote ballot
// granted and the lives (their count, then each); decodeHard also reads a
// hard state written without the last two (0 and none).
func encodeHard(h storage.HardState) []byte {
	b := binary.AppendUvarint(nil, uint64(h.Ballot))
	b = binary.AppendVarint(b, int64(h.Vote))
	member := byte(0)
	if h.Member {
		member = 1
	}
	b = binary.AppendUvarint(append(b, member), uint64(h.PreGranted))
	if len(h.Lives) == 0 {
		return b
	}
	b = binary.AppendUvarint(b, uint64(len(h.Lives)))
	for _, life := range h.Lives {
		b = binary.AppendUvarint(b, life)
	}
	return b
}

// maxLives bounds the lives a hard state may hold: one per replica, and a
// replica id is an int32.
const maxLives = math.MaxInt32

func decodeHard(b []byte) (storage.HardState, error) {
	ballot, n := binary.Uvarint(b)
	if n <= 0 || ballot > 1<<32-1 {
		return storage.HardState{}, errors.New("bad ballot")
	}
	vote, m := binary.Varint(b[n:])
	if m <= 0 || len(b) < n+m+1 || b[n+m] > 1 || vote < -1 || vote > 1<<31-1 {
		return storage.HardState{}, errors.New("bad vote or membership")
	}
	h := storage.HardState{Ballot: wire.Ballot(ballot), Vote: wire.ReplicaID(vote), Member: b[n+m] == 1}
	rest := b[n+m+1:]
	if len(rest) == 0 {
		return h, nil
	}
	pre, k := binary.Uvarint(rest)
	if k <= 0 || pre > 1<<32-1 {
		return storage.HardState{}, errors.New("bad pre-vote ballot")
	}
	h.PreGranted, rest = wire.Ballot(pre), rest[k:]
	if len(rest) == 0 {
		return h, nil
	}
	count, k := binary.Uvarint(rest)
	// Each life takes a byte at least: a count above what is left is a
	// corrupt one, refused before it sizes an allocation.
	if k <= 0 || count == 0 || count > maxLives || count > uint64(len(rest)-k) {
		return storage.HardState{}, errors.New("bad count of lives")
	}
	rest = rest[k:]
	h.Lives = make([]uint64, count)
	for i := range h.Lives {
		life, k := binary.Uvarint(rest)
		if k <= 0 || life > math.MaxInt64 {
			return storage.HardState{}, fmt.Errorf("bad life of replica %d", i)
		}
		h.Lives[i], rest = life, rest[k:]
	}
	if len(rest) != 0 {
		return storage.HardState{}, errors.New("bytes after the lives")
	}
	return h, nil
}
