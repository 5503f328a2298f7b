// Package nemesis draws and runs the fault schedules of
// run-multi-client.sh --nemesis: a seeded mix of kills, restarts, pauses,
// partitions, whole-cluster crashes and client kills on real processes,
// in the manner of Jepsen's nemesis.
//
// Draw turns (seed, kinds, mean interval, run length, cluster size) into
// a Plan: timed faults, each with its kind, the role of its target
// ("leader" or "follower", resolved when the fault starts, since nobody
// knows beforehand which replica will lead) and how long it lasts. The
// same options give the same plan, so a failing seed replays the same
// schedule; the processes' own timing does not replay, which is why the
// launcher records what actually happened in events.txt.
//
// The plan keeps the protocol's assumption: at most f = (n-1)/2
// replicas impaired at any moment (a whole-cluster crash excepted, which
// durable replicas survive by design), and every fault healed before the
// last tenth of the run, so that the run ends on a whole cluster. A
// killed replica is impaired until it is a full member again, which only
// the replicas can tell; the plan leaves a settling gap after each fault
// and the Runner checks membership before it starts the next one.
//
// Runner executes a plan against a live deployment. It runs one
// partition at a time, deferring a second one until the first heals:
// the proxies hold one cut per link, and two partitions may share one. It owns the timing
// and the decisions (who leads now, which replicas are impaired, whether
// a fault may start) and asks Hands, the launcher, to act: the launcher
// owns the processes and their PIDs, so it alone signals, restarts and
// cuts. They speak a line protocol (hands.go) over the runner's standard
// input and output. Cluster state comes from the replicas' status
// answers (client/statuscli).
//
// Nothing here is safe for concurrent use; a Runner is driven by one
// goroutine.
package nemesis
