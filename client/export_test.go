package client

import "swiftpaxos/wire"

// WithIdleHook returns o with a hook the session calls when it closes a
// connection it has not used.
func WithIdleHook(o SessionOptions, f func(wire.ReplicaID)) SessionOptions {
	o.onIdleClose = f
	return o
}

// WithEndHook returns o with a hook the session calls when the cluster
// applied the end of the session.
func WithEndHook(o SessionOptions, f func(expired bool)) SessionOptions {
	o.onEnd = f
	return o
}
