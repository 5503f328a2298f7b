//go:build !unix

package cost

import "time"

// cpuTime is not measured where getrusage does not exist.
func cpuTime() (user, sys time.Duration) { return 0, 0 }
