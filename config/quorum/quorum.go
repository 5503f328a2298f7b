package quorum

// F is the number of replica crashes a group of n tolerates: f = (n-1)/2.
func F(n int) int { return (n - 1) / 2 }

// Majority is M = f+1, the votes that elect a leader, the copies that
// commit an entry and the witness replies a recovery waits for. It is
// written n/2+1, which is f+1 for every odd n.
func Majority(n int) int { return n/2 + 1 }

// Super is the fast-path super-quorum Q = f + ceil(f/2) + 1, counting the
// leader.
func Super(n int) int { return F(n) + (F(n)+1)/2 + 1 }

// Recovery is R = ceil(f/2) + 1: a recovering leader replays a witnessed
// request kept by at least R of the M replies it collected.
func Recovery(n int) int { return (F(n)+1)/2 + 1 }
