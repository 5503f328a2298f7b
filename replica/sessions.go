package replica

import (
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// applied is the stored outcome of an applied command (PROTOCOL.md 3.7: a
// duplicate or a Sync is answered with this, never with a fresh result).
type applied struct {
	slot   kvs.Slot
	result kvs.Result
	// refused: the slot holds the leader's refusal of the command, which
	// therefore never executed and never will.
	refused bool
}

// session is the client-table row of one client session (PROTOCOL.md 3.1).
//
// Two watermarks keep it small and keep execution deterministic:
//   - floor is the largest AckUpTo stamped on an applied entry of the
//     session. It is derived from the log alone, so every replica skips the
//     same entries at apply time; results at or below it are forgotten.
//   - ackUpTo is the largest AckUpTo this replica has seen on any request;
//     requests at or below it are ignored (PROTOCOL.md 1.5). It is local
//     knowledge and never influences execution.
type session struct {
	results          map[wire.Seq]applied
	floor            wire.Seq
	ackUpTo          wire.Seq
	weakCommittedSeq wire.Seq
	heard            int64 // when this replica (as leader) last heard from the client
	// ended is the slot of the entry that ended the session (0: live).
	// An ended row keeps nothing else: it only makes every later request
	// of the session fail, so that none executes twice (docs/DECISIONS.md
	// 23).
	ended kvs.Slot
}

type sessionTable map[wire.ClientID]*session

func (t sessionTable) get(c wire.ClientID) *session {
	s, ok := t[c]
	if !ok {
		s = &session{results: make(map[wire.Seq]applied)}
		t[c] = s
	}
	return s
}

// peek returns the session without creating it.
func (t sessionTable) peek(c wire.ClientID) *session { return t[c] }

// endedAt returns the slot that ended the session c, 0 if it is live.
func (t sessionTable) endedAt(c wire.ClientID) kvs.Slot {
	if s := t[c]; s != nil {
		return s.ended
	}
	return 0
}

// end releases the session's row, keeping only the slot that ended it.
func (t sessionTable) end(c wire.ClientID, slot kvs.Slot) { t[c] = &session{ended: slot} }

// live counts the rows of sessions that have not ended.
func (t sessionTable) live() int {
	n := 0
	for _, s := range t {
		if s.ended == 0 {
			n++
		}
	}
	return n
}

// appliedResult returns the stored outcome of id, if it was applied and is
// still remembered.
func (t sessionTable) appliedResult(id wire.CmdID) (applied, bool) {
	s := t[id.Client]
	if s == nil {
		return applied{}, false
	}
	a, ok := s.results[id.Seq]
	return a, ok
}

// wasApplied reports whether id was applied here (or is forgotten because
// it is below the session's floor, which implies it was applied or is a
// read that needs no execution).
func (t sessionTable) wasApplied(id wire.CmdID) bool {
	s := t[id.Client]
	if s == nil {
		return false
	}
	if id.Seq <= s.floor {
		return true
	}
	_, ok := s.results[id.Seq]
	return ok
}

// ignorable reports whether a request for id must be ignored because the
// client has declared it complete.
func (t sessionTable) ignorable(id wire.CmdID) bool {
	s := t[id.Client]
	return s != nil && (id.Seq <= s.ackUpTo || id.Seq <= s.floor)
}

// awaited reports whether the client may still wait for an answer about
// id: its session has not declared id complete.
func (t sessionTable) awaited(id wire.CmdID) bool {
	s := t[id.Client]
	return s == nil || id.Seq > s.ackUpTo && id.Seq > s.floor
}

// noteLoggedAcks raises the local AckUpTo of e's session to the one
// stamped on e: the request that created e carried it, so its client had
// completed everything up to it.
func (t sessionTable) noteLoggedAcks(e *wire.Entry) {
	if t.endedAt(e.Cmd.Client) != 0 {
		return
	}
	t.noteAck(e.Cmd.Client, e.AckUpTo)
}

// noteAck raises the session's local AckUpTo.
func (t sessionTable) noteAck(c wire.ClientID, ack wire.Seq) {
	if ack == 0 {
		return
	}
	s := t.get(c)
	if ack > s.ackUpTo {
		s.ackUpTo = ack
	}
}

// refuse stores the outcome of an applied refusal: later copies of the
// command are skipped, and a re-sent request is answered that it was
// refused.
func (t sessionTable) refuse(e *wire.Entry) {
	t.get(e.Cmd.Client).results[e.Cmd.Seq] = applied{slot: e.Slot, refused: true}
}

// record stores the outcome of an applied entry and advances the floor to
// the AckUpTo stamped on it.
func (t sessionTable) record(e *wire.Entry, res kvs.Result) {
	s := t.get(e.Cmd.Client)
	s.results[e.Cmd.Seq] = applied{slot: e.Slot, result: res}
	if e.Level == wire.Weak && e.Command.IsWrite() && e.Cmd.Seq > s.weakCommittedSeq {
		s.weakCommittedSeq = e.Cmd.Seq
	}
	if e.AckUpTo > s.floor {
		s.floor = e.AckUpTo
		for seq := range s.results {
			if seq <= s.floor {
				delete(s.results, seq)
			}
		}
	}
}
