package disk

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cockroachdb/pebble/v2"
)

// prefixCluster keys the identity of the cluster whose state the store
// holds (Cluster); it sorts before every other key.
const prefixCluster = 'c'

// Cluster is what a store's state belongs to: a protocol and its
// replicas' aliases, in order. Addresses and tuning keys are not part of
// it: they may change across restarts.
type Cluster struct {
	Protocol string
	Replicas []string
}

func (c Cluster) String() string {
	return fmt.Sprintf("protocol %s, replicas %s", c.Protocol, strings.Join(c.Replicas, " "))
}

// DataModel is the version of the data model (PROTOCOL.md 1.2) whose keys,
// values, commands and results the store holds: 2 is byte-string keys,
// DELETE, CAS and INCR. A store written for another one is refused, never
// misread: the encodings of its entries, records and snapshot differ.
const DataModel = 2

// storedCluster is a Cluster as the store keeps it, with the data model
// it was written for: JSON, whose readers ignore fields they do not know,
// so that a later version can add some and still read what this one
// wrote. A store of data model 1 has no data_model.
type storedCluster struct {
	Protocol  string   `json:"protocol"`
	Replicas  []string `json:"replicas"`
	DataModel int      `json:"data_model,omitempty"`
}

func encodeCluster(c Cluster) []byte {
	b, err := json.Marshal(storedCluster{Protocol: c.Protocol, Replicas: c.Replicas, DataModel: DataModel})
	if err != nil {
		panic(err) // strings and an int always marshal
	}
	return b
}

// decodeCluster returns the identity and the data model a store holds (1
// when it names none).
func decodeCluster(b []byte) (Cluster, int, error) {
	var c storedCluster
	if err := json.Unmarshal(b, &c); err != nil || c.Protocol == "" || len(c.Replicas) == 0 || c.DataModel < 0 {
		return Cluster{}, 0, fmt.Errorf("bad cluster identity %q", b)
	}
	return Cluster{Protocol: c.Protocol, Replicas: c.Replicas}, max(c.DataModel, 1), nil
}

// errDataModel says that the store in dir was written for data model
// held, which this build does not read.
func errDataModel(dir string, held int) error {
	return fmt.Errorf("%s was written for data model %d (%s); this build stores data model %d (byte-string keys, DELETE, CAS, INCR) and cannot read it: use another data directory, or empty this one and start the cluster anew (the data is not converted)",
		dir, held, dataModelNames[min(held, len(dataModelNames)-1)], DataModel)
}

var dataModelNames = []string{"unknown", "64-bit integer keys, GET, PUT and SCAN of a key count", "byte-string keys", "a later one"}

// claim ties the store to cluster c, before its state is read. A store
// with no identity yet (new, or written before stores had one) takes c,
// durably, and claim reports that it did; a store of another cluster is
// refused with both named: its log, votes and witness records belong to
// that cluster, and starting from them would break its quorums or mix
// two protocols' records (docs/DECISIONS.md 33).
func (s *Store) claim(c Cluster) (taken bool, err error) {
	key := []byte{prefixCluster}
	v, closer, err := s.db.Get(key)
	switch {
	case err == nil:
		held, model, derr := decodeCluster(v)
		closer.Close()
		if derr != nil {
			return false, fmt.Errorf("%s: %w", s.dir, derr)
		}
		if model != DataModel {
			return false, errDataModel(s.dir, model)
		}
		if held.Protocol != c.Protocol || !slices.Equal(held.Replicas, c.Replicas) {
			return false, fmt.Errorf("%s holds the state of another cluster (%s), not of this one (%s): use another data directory, or empty this one for a new cluster",
				s.dir, held, c)
		}
		return false, nil
	case errors.Is(err, pebble.ErrNotFound):
		if err := s.db.Set(key, encodeCluster(c), pebble.Sync); err != nil {
			return false, fmt.Errorf("%s: writing the cluster's identity: %w", s.dir, err)
		}
		return true, nil
	default:
		return false, fmt.Errorf("%s: reading the cluster's identity: %w", s.dir, err)
	}
}
