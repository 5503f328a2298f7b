package server

import "go.uber.org/zap"

// coreLog is the replica.Logger the server hands its core: the replica's
// zap logger, with the core's alternating keys and values as fields.
type coreLog struct{ s *zap.SugaredLogger }

func (l coreLog) Debug(msg string, kv ...any) { l.s.Debugw(msg, kv...) }
func (l coreLog) Info(msg string, kv ...any)  { l.s.Infow(msg, kv...) }
func (l coreLog) Warn(msg string, kv ...any)  { l.s.Warnw(msg, kv...) }
func (l coreLog) Error(msg string, kv ...any) { l.s.Errorw(msg, kv...) }
