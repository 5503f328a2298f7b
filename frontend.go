package main

import (
	"context"

	"golang.org/x/sync/errgroup"

	"swiftpaxos/client/resp"
	"swiftpaxos/client/statuscli"
	"swiftpaxos/config"
	"swiftpaxos/replica/server"
	"swiftpaxos/wire"
)

// serveReplica runs a replica and, when the configuration sets respPort,
// its RESP front-end beside it (client/resp). Either failing stops both:
// a replica whose RESP port cannot be bound says so rather than run
// without it. The front-end reaches its own replica over a Unix socket
// (docs/DECISIONS.md 54).
func serveReplica(ctx context.Context, cfg *config.Config, p protocol, o server.Options) error {
	if cfg.RESPPort == 0 {
		return server.Serve(ctx, o)
	}
	i, _ := cfg.ReplicaIndex(o.Alias)
	o.LocalAddr = resp.LocalAddr()
	fe, err := resp.New(resp.Options{Config: cfg, Alias: o.Alias, NewPolicy: p.client, Log: o.Log, Metrics: o.Metrics,
		Status:    func(ctx context.Context) (*wire.StatusReply, error) { return statuscli.Ask(ctx, cfg, i) },
		LocalAddr: o.LocalAddr})
	if err != nil {
		return err
	}
	o.FrontEndConns = fe.Conns
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return server.Serve(gctx, o) })
	g.Go(func() error { return fe.Serve(gctx) })
	return g.Wait()
}
