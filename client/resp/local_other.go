//go:build !linux

package resp

// LocalAddr is "" outside Linux: the front-end reaches its replica over
// TCP there, as it reaches the others (a socket file would need a
// directory to live in and removing after a crash).
func LocalAddr() string { return "" }
