package sim

import (
	"slices"

	"swiftpaxos/replica"
	"swiftpaxos/replica/storage"
)

// A durable replica (Options.Durable) has a simulated disk: a
// storage.Mem holding what is synced, and the batches written but not
// synced yet. A sync takes a random time up to Faults.SyncDelay and covers
// every batch written before it started (group commit); batches written
// meanwhile wait for the next one. When it completes, the batches reach
// the disk, the messages they held back leave (Ready.AfterSync), and the
// core hears Synced. A crash keeps a random prefix of the unsynced
// batches (the system may have written some of them out) and loses the
// rest; the first one lost may be torn, and a torn batch is lost whole (the
// log's checksums cut it), so a prefix is all a crash can leave. A
// restart reads the disk back (storage.Mem.State) and the replica comes
// back a member with what it holds.

// disk is one replica's simulated disk.
type disk struct {
	mem      *storage.Mem
	unsynced []*storage.Batch
	held     []heldBack
	synced   uint64 // every batch up to it is on disk
	syncing  bool   // a sync is in flight
	lifetime int    // the replica lifetime the in-flight sync belongs to
}

// newDisk is an empty disk.
func newDisk() *disk { return &disk{mem: storage.NewMem()} }

// heldBack is one Ready's AfterSync, waiting for batch seq.
type heldBack struct {
	seq  uint64
	msgs []replica.Envelope
}

// drainDurable is drain for a durable replica.
func (c *Cluster) drainDurable(i int, rd replica.Ready) {
	d := c.disks[i]
	for _, e := range rd.Messages {
		c.deliverFrom(i, e)
	}
	if rd.Persist != nil {
		d.unsynced = append(d.unsynced, rd.Persist)
	}
	if len(rd.AfterSync) > 0 {
		if rd.SyncSeq <= d.synced {
			for _, e := range rd.AfterSync {
				c.deliverFrom(i, e)
			}
		} else {
			d.held = append(d.held, heldBack{seq: rd.SyncSeq, msgs: slices.Clone(rd.AfterSync)})
		}
	}
	c.startSync(i)
}

// startSync starts a sync of every unsynced batch unless one is in flight.
func (c *Cluster) startSync(i int) {
	d := c.disks[i]
	if d.syncing || len(d.unsynced) == 0 {
		return
	}
	d.syncing, d.lifetime = true, c.lifetime[i]
	upTo := d.unsynced[len(d.unsynced)-1].Seq
	max := int64(c.o.Faults.SyncDelay)
	// The event names the lifetime that started the sync: a sync begun
	// before a crash must not complete one the restarted replica began.
	c.schedule(&event{at: c.now + max/10 + 1 + c.rng.Int64N(max), kind: evSync, idx: i, peer: d.lifetime, batch: upTo})
}

// synced completes a sync of replica i's batches up to seq, begun in
// lifetime life.
func (c *Cluster) synced(i, life int, seq uint64) {
	d := c.disks[i]
	if c.dead[i] || life != d.lifetime || d.lifetime != c.lifetime[i] || !d.syncing {
		return // the replica crashed meanwhile: this sync never finished
	}
	d.syncing = false
	n := 0
	for n < len(d.unsynced) && d.unsynced[n].Seq <= seq {
		d.mem.Apply(d.unsynced[n])
		n++
	}
	d.unsynced = append(d.unsynced[:0], d.unsynced[n:]...)
	d.synced = seq
	k := 0
	for k < len(d.held) && d.held[k].seq <= seq {
		for _, e := range d.held[k].msgs {
			c.deliverFrom(i, e)
		}
		k++
	}
	d.held = append(d.held[:0], d.held[k:]...)
	c.replicas[i].Synced(seq)
	c.drain(i)
}

// crashDisk is what a crash does to replica i's disk: a random prefix of
// the unsynced batches survives, the rest and every held message are lost.
func (c *Cluster) crashDisk(i int) {
	d := c.disks[i]
	keep := c.rng.IntN(len(d.unsynced) + 1)
	for _, b := range d.unsynced[:keep] {
		d.mem.Apply(b)
	}
	d.unsynced, d.held, d.syncing, d.synced = nil, nil, false, 0
}

// diskState is what replica i finds on its disk when it restarts.
func (c *Cluster) diskState(i int) (*storage.State, error) {
	return c.disks[i].mem.State()
}
