package replica

import (
	"swiftpaxos/config/quorum"
	"swiftpaxos/wire"
)

// A durable replica that restarts as a non-member cannot vote (join.go),
// so a brand-new durable cluster that crashes while fewer than a majority
// of its replicas have their membership on disk could never elect a
// leader again. Two rules close that window (docs/DECISIONS.md 24):
//
//   - the initial leader of a brand-new durable cluster appends nothing
//     until a majority of replicas, itself included, have their membership
//     on disk: a follower's first AcceptAck says so (it waits for the
//     follower's sync), Synced says so for the leader. Client requests
//     wait meanwhile, as during recovery;
//   - a durable replica that asks to join counts a member that reports
//     ballot 0 and an empty log as fresh: nothing was ever appended
//     anywhere, so bootstrapping again loses nothing.
//
// Once anything is appended, a majority are members on disk and can elect
// a leader whatever else crashed.

// founding is the initial leader's wait for a majority of members on disk.
type founding struct {
	onDisk   []bool
	buffered []bufferedRequest
}

// startFounding starts the wait at a bootstrapping leader. In memory the
// leader is a member at once, and a follower's first AcceptAck says it is
// one: the wait keeps every member's log empty until a majority are
// members, so that a replica joining late can count a member that holds
// nothing as fresh (join.go) and found the cluster with them. A core
// started as a member by a test (Options.StartAsMember) does not wait.
func (c *Core) startFounding() {
	if c.o.ID != c.o.InitialLeader || !c.o.Durable && c.o.StartAsMember {
		return
	}
	c.founded = &founding{onDisk: make([]bool, c.o.N)}
	if !c.o.Durable {
		c.foundingAck(c.o.ID)
	}
}

// foundingAck notes that replica p's membership is on disk.
func (c *Core) foundingAck(p wire.ReplicaID) {
	f := c.founded
	if f == nil || f.onDisk[p] {
		return
	}
	f.onDisk[p] = true
	if count(f.onDisk) < quorum.Majority(c.o.N) {
		return
	}
	c.founded = nil
	if c.o.Durable {
		c.log.Info("a majority are members on disk: serving", "buffered", len(f.buffered))
	} else {
		c.log.Info("a majority are members: serving", "buffered", len(f.buffered))
	}
	for _, b := range f.buffered {
		c.stepClient(b.from, b.msg)
	}
}
