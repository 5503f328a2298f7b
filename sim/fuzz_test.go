package sim_test

import (
	"bytes"
	"testing"
	"time"

	"swiftpaxos/check"
	"swiftpaxos/kvs"
	"swiftpaxos/sim"
	"swiftpaxos/wire"
)

// FuzzClientMessages lets a fake client send arbitrary message sequences
// to the replicas of a 3-replica cluster while a real session works
// (issue 12). Whatever it sends, the replicas must not reject each other's
// messages (the simulator fails the run if they do), and their applied
// logs must agree, with no command applied twice. The fake client's
// commands are not in the history, so only the log rules are judged.
func FuzzClientMessages(f *testing.F) {
	put := func(seq wire.Seq, k int) kvs.Command {
		return kvs.Command{Op: kvs.OpPut, Key: sim.KeyOf(k), Value: kvs.Value("f")}
	}
	var seed []byte
	for _, m := range []wire.Message{
		&wire.Propose{Cmd: wire.CmdID{Client: 99, Seq: 1}, Command: put(1, 1)},
		&wire.CausalPropose{Cmd: wire.CmdID{Client: 99, Seq: 2}, Command: put(2, 1), CausalDep: 1, Bound: 1},
		&wire.WeakPropose{Cmd: wire.CmdID{Client: 99, Seq: 3}, Command: put(3, 2), CausalDep: 2, AckUpTo: 9},
		&wire.Propose{Cmd: wire.CmdID{Client: 99, Seq: 1}, Command: put(1, 3), AckUpTo: 1 << 40},
		&wire.WeakRead{Cmd: wire.CmdID{Client: 99, Seq: 4}, Command: kvs.Command{Op: kvs.OpScan, Key: sim.KeyOf(0), End: sim.KeyOf(6), Limit: 6}, MinSlot: 1 << 50},
	} {
		seed = wire.AppendFrame(seed, m)
	}
	for _, p := range protocols {
		f.Add(p.Name == protocols[0].Name, seed)
	}
	f.Fuzz(func(t *testing.T, ht bool, stream []byte) {
		p := protocols[1]
		if ht {
			p = protocols[0]
		}
		s, err := sim.NewScript(sim.Options{Seed: 1, N: 3, Sessions: 2, Protocol: p,
			Faults: sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		fake := s.Endpoint(1)
		r := wire.NewReader(bytes.NewReader(stream), 1<<16)
		for i := 0; ; i++ {
			m, err := r.Next()
			if err != nil {
				break
			}
			s.Inject(fake, i%3, m)
			s.Put(0, wire.Level(1+i%2), i%4)
			if err := s.Run(2 * time.Millisecond); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Run(3 * time.Second); err != nil {
			t.Fatal(err)
		}
		for _, v := range s.Check().Violations {
			switch v.Rule {
			case check.RuleLogAgreement, check.RuleAtMostOnce, check.RuleLogInvalid:
				t.Fatal(v)
			}
		}
	})
}
