package storage

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// prefixCluster keys the identity of the cluster whose state the store
// holds (Claim); it sorts before every other key.
const prefixCluster = 'c'

// Claim ties the store to a cluster: identity names it (the server
// passes its protocol and its replicas' aliases). A store that has no
// identity yet (new, or written before stores had one) takes this one,
// durably; a store that has another refuses, naming both: its log,
// votes and witness records belong to another cluster, and starting
// from them would break that cluster's quorums or mix two protocols'
// records.
func (s *Store) Claim(identity string) error {
	key := []byte{prefixCluster}
	v, closer, err := s.db.Get(key)
	switch {
	case err == nil:
		held := string(v)
		closer.Close()
		if held != identity {
			return fmt.Errorf("%s holds the state of another cluster (%s), not of this one (%s): use another data directory, or empty this one for a new cluster",
				s.dir, held, identity)
		}
		return nil
	case errors.Is(err, pebble.ErrNotFound):
		if err := s.db.Set(key, []byte(identity), pebble.Sync); err != nil {
			return fmt.Errorf("%s: writing the cluster's identity: %w", s.dir, err)
		}
		return nil
	default:
		return fmt.Errorf("%s: reading the cluster's identity: %w", s.dir, err)
	}
}
