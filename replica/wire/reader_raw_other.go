//go:build !linux

package wire

import "syscall"

// eachRaw reads with Next off Linux.
func (r *Reader) eachRaw(_ syscall.RawConn, fn func(Message, bool) error) error {
	return r.eachPull(fn)
}
