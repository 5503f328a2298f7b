package bench

import (
	"path/filepath"
	"slices"
	"sort"

	"swiftpaxos/config"
	"swiftpaxos/cost"
)

// costOf merges what the processes of the run in dir spent (summary.json's
// cost): the clients' from their results, the replicas' from the
// cost-ALIAS.json files they write when they stop (cost-ALIAS.2.json for
// a restarted replica's second lifetime). A replica or client of cfg with
// no report is named as missing. nil when no process reported (results of
// an older build).
func costOf(dir string, cfg *config.Config, rs []ProcessResults, ops int64) (*cost.Section, error) {
	var us []cost.Usage
	reported := map[string]bool{}
	paths, err := filepath.Glob(filepath.Join(dir, "cost-*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	for _, p := range paths {
		u, err := cost.ReadFile(p)
		if err != nil {
			return nil, err
		}
		us = append(us, u)
		reported[u.Alias] = true
	}
	var missing []string
	for _, h := range cfg.Replicas {
		if !reported[h.Alias] {
			missing = append(missing, h.Alias)
		}
	}
	missing = append(missing, missingClients(cfg, rs, nil)...)
	for _, r := range rs {
		if r.Cost == nil {
			missing = append(missing, r.Alias)
			continue
		}
		us = append(us, *r.Cost)
	}
	if len(us) == 0 {
		return nil, nil
	}
	// Replicas first, in the configuration's order, then the clients.
	order := func(u cost.Usage) int {
		if i := slices.IndexFunc(cfg.Replicas, func(h config.Host) bool { return h.Alias == u.Alias }); i >= 0 && u.Role == cost.RoleReplica {
			return i
		}
		return len(cfg.Replicas)
	}
	slices.SortStableFunc(us, func(a, b cost.Usage) int { return order(a) - order(b) })
	return cost.Merge(ops, us, missing), nil
}
