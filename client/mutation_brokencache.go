//go:build brokencache

package client

// With the brokencache build tag every session skips the cache merge of
// weak reads (PROTOCOL.md 4.6). It exists to show that a real run's check
// catches a broken build:
//
//	go build -tags brokencache -o bin/swiftpaxos . && ./run-multi-client.sh --check
func init() { buildMutation = Mutation{IgnoreCache: true} }
