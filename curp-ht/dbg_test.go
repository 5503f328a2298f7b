package curpht_test

import (
	"testing"

	"swiftpaxos/replica/sim"
)

func TestDbg(t *testing.T) {
	o := options(51, 3)
	o.Faults = sim.FailoverMix(3)
	_, err := sim.Run(o)
	t.Log(err)
}
