package storage

import (
	"encoding/binary"
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

// clusterVersion numbers the encoding of a Cluster, so that a later
// version can add fields and still read what this one wrote.
const clusterVersion = 1

func encodeCluster(c Cluster) []byte {
	b := binary.AppendUvarint(nil, clusterVersion)
	b = appendString(b, c.Protocol)
	b = binary.AppendUvarint(b, uint64(len(c.Replicas)))
	for _, r := range c.Replicas {
		b = appendString(b, r)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func decodeCluster(b []byte) (Cluster, error) {
	bad := errors.New("bad cluster identity")
	next := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	str := func() (string, bool) {
		n, ok := next()
		if !ok || n > uint64(len(b)) {
			return "", false
		}
		s := string(b[:n])
		b = b[n:]
		return s, true
	}
	if v, ok := next(); !ok || v != clusterVersion {
		return Cluster{}, bad
	}
	var c Cluster
	var ok bool
	if c.Protocol, ok = str(); !ok {
		return Cluster{}, bad
	}
	n, ok := next()
	if !ok || n > uint64(len(b)) {
		return Cluster{}, bad
	}
	for range n {
		r, ok := str()
		if !ok {
			return Cluster{}, bad
		}
		c.Replicas = append(c.Replicas, r)
	}
	if len(b) != 0 {
		return Cluster{}, bad
	}
	return c, nil
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
