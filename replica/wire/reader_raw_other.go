//go:build !unix

package wire

import "syscall"

// eachRaw reads with Next where a descriptor's reads are not Unix reads.
func (r *Reader) eachRaw(_ syscall.RawConn, fn func(Message, bool) error) error {
	return r.eachPull(fn)
}
