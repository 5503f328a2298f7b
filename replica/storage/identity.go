package storage

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

// storedCluster is a Cluster as the store keeps it: JSON, whose readers
// ignore fields they do not know, so that a later version can add some
// and still read what this one wrote.
type storedCluster struct {
	Protocol string   `json:"protocol"`
	Replicas []string `json:"replicas"`
}

func encodeCluster(c Cluster) []byte {
	b, err := json.Marshal(storedCluster(c))
	if err != nil {
		panic(err) // two strings and a slice of strings always marshal
	}
	return b
}

func decodeCluster(b []byte) (Cluster, error) {
	var c storedCluster
	if err := json.Unmarshal(b, &c); err != nil || c.Protocol == "" || len(c.Replicas) == 0 {
		return Cluster{}, fmt.Errorf("bad cluster identity %q", b)
	}
	return Cluster(c), nil
}

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
		held, derr := decodeCluster(v)
		closer.Close()
		if derr != nil {
			return false, fmt.Errorf("%s: %w", s.dir, derr)
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
