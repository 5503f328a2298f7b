package nemesis

import (
	"context"
	"time"

	"swiftpaxos/client/statuscli"
	"swiftpaxos/config"
	"swiftpaxos/wire"
)

// ReplicaState is what one replica said of itself, or that it did not
// answer (killed, paused, or too busy).
type ReplicaState struct {
	Alias    string
	Answered bool
	// Member: a full member (not a learner catching up, not founding).
	Member bool
	Leader bool
	Ballot wire.Ballot
}

// Cluster reports the replicas' states, in the configuration's order.
type Cluster interface {
	States(ctx context.Context) []ReplicaState
}

// StatusCluster asks the replicas themselves (swiftpaxos -run status's
// request), each within Timeout. It reads their real addresses, not the
// proxies', so that a partitioned replica still answers and a leader cut
// off from its followers is still seen to believe it leads.
type StatusCluster struct {
	Config  *config.Config
	Timeout time.Duration
}

// States asks every replica at once.
func (c StatusCluster) States(ctx context.Context) []ReplicaState {
	answers, err := statuscli.Query(ctx, c.Config, c.Timeout)
	out := make([]ReplicaState, c.Config.N())
	for i := range out {
		out[i].Alias = c.Config.Replica(i).Alias
		if err != nil || answers[i].Err != nil {
			continue
		}
		st := answers[i].Status
		role := statuscli.RoleName(st)
		out[i].Answered, out[i].Member, out[i].Leader, out[i].Ballot = true, st.Member, role == "leader", st.Ballot
	}
	return out
}
