package replica

import (
	"sort"

	"swiftpaxos/replica/wire"
)

// flushStaleRecords hands the leader the witness records that have not
// committed for WitnessSyncAge (PROTOCOL.md 3.4 rule 4). A record is sent
// again after another WitnessSyncAge in case the leader changed.
func (c *Core) flushStaleRecords(now int64) {
	if c.role == Leader || c.leader == wire.NoReplica {
		return
	}
	age := int64(c.o.WitnessSyncAge)
	var stale []*witnessRecord
	for _, r := range c.wit.byCmd {
		if now-r.created >= age {
			stale = append(stale, r)
		}
	}
	if len(stale) == 0 {
		return
	}
	sort.Slice(stale, func(i, j int) bool { return stale[i].Arrival < stale[j].Arrival })
	m := &wire.WitnessSync{Records: make([]wire.Record, len(stale))}
	for i, r := range stale {
		m.Records[i] = r.Record
		r.created = now
	}
	c.o.Out.ToReplica(c.leader, m)
}
