package disk

import (
	"encoding/binary"
	"errors"

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

// encodeHard writes ballot, vote, membership and the highest pre-vote
// ballot granted; decodeHard also reads a hard state written without the
// last (it is then 0).
func encodeHard(h storage.HardState) []byte {
	b := binary.AppendUvarint(nil, uint64(h.Ballot))
	b = binary.AppendVarint(b, int64(h.Vote))
	member := byte(0)
	if h.Member {
		member = 1
	}
	return binary.AppendUvarint(append(b, member), uint64(h.PreGranted))
}

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
	if rest := b[n+m+1:]; len(rest) > 0 {
		pre, k := binary.Uvarint(rest)
		if k != len(rest) || pre > 1<<32-1 {
			return storage.HardState{}, errors.New("bad pre-vote ballot")
		}
		h.PreGranted = wire.Ballot(pre)
	}
	return h, nil
}
