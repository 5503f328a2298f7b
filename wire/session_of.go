package wire

// SessionOf names the client session a message between a session and the
// replicas belongs to, for a connection that carries many sessions
// (PeerSessions): every such message names it, through its command id or
// in its own field. ok is false for a message that belongs to no session
// (replica-to-replica messages, status requests, a WeakCommit with no
// commits, a NewView): those travel to or from a session inside a Routed
// (RouteTo).
func SessionOf(m Message) (id ClientID, ok bool) {
	switch m := m.(type) {
	case *Routed:
		return m.Session, true
	case *Propose:
		return m.Cmd.Client, true
	case *Sync:
		return m.Cmd.Client, true
	case *WeakPropose:
		return m.Cmd.Client, true
	case *WeakRead:
		return m.Cmd.Client, true
	case *CausalPropose:
		return m.Cmd.Client, true
	case *EndSession:
		return m.Client, true
	case *LeaderReply:
		return m.Cmd.Client, true
	case *RecordAck:
		return m.Cmd.Client, true
	case *SyncReply:
		return m.Cmd.Client, true
	case *NotLeader:
		return m.Cmd.Client, true
	case *WeakReply:
		return m.Cmd.Client, true
	case *WeakReadReply:
		return m.Cmd.Client, true
	case *CausalReply:
		return m.Cmd.Client, true
	case *WeakCommit:
		if len(m.Commits) == 0 {
			return 0, false
		}
		return m.Commits[0].Cmd.Client, true
	}
	return 0, false
}
