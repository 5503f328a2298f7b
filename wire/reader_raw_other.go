//go:build !linux

package wire

import "syscall"

// eachRaw reads with Next off Linux.
func (r *Reader) eachRaw(_ syscall.RawConn, add func(Message, bool) error, flush func() error) error {
	return r.eachPull(add, flush)
}
