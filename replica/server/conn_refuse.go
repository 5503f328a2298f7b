package server

import (
	"sync"

	"go.uber.org/zap"
)

// refuse counts a Hello refused for what it says of the peer (another
// protocol, another durability) and logs it: at error level the first
// time for that peer and reason (key), at debug level after, since a
// peer redials every 100 ms; the counter keeps the count.
func (s *server) refuse(key, msg string, fields ...zap.Field) {
	s.counters.RefusedProtocol.Add(1)
	level := zap.DebugLevel
	if s.refusals.first(key) {
		level = zap.ErrorLevel
	}
	if ce := s.log.Check(level, msg); ce != nil {
		ce.Write(fields...)
	}
}

// refusalsLogged bounds what refuse remembers: the keys come from Hellos,
// which anyone who can connect writes, so past refusalsKept of them every
// refusal is logged at debug level.
type refusalsLogged struct {
	mu   sync.Mutex
	seen map[string]struct{}
}

const refusalsKept = 64

// first reports whether key is new, and remembers it while there is room.
func (r *refusalsLogged) first(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.seen[key]; ok || len(r.seen) >= refusalsKept {
		return false
	}
	if r.seen == nil {
		r.seen = make(map[string]struct{})
	}
	r.seen[key] = struct{}{}
	return true
}
