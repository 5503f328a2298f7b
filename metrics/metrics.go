package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"
)

// Namespace prefixes every metric of the project.
const Namespace = "swiftpaxos"

// NewRegistry is a registry with the Go runtime and process collectors.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// Listen binds addr for the metrics endpoint. A missing host (":9100")
// means loopback: the endpoint exposes pprof, which nobody off the
// machine should reach unless the user names an address.
func Listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	return ln, nil
}

// Handler serves /metrics from reg and /debug/pprof/.
func Handler(reg *prometheus.Registry) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// Serve serves Handler(reg) on ln until ctx ends.
func Serve(ctx context.Context, ln net.Listener, reg *prometheus.Registry, log *zap.Logger) error {
	srv := &http.Server{Handler: Handler(reg), ReadHeaderTimeout: 5 * time.Second}
	stop := context.AfterFunc(ctx, func() { srv.Close() })
	defer stop()
	log.Info("metrics listening", zap.String("url", "http://"+ln.Addr().String()+"/metrics"))
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("metrics: %w", err)
	}
	return nil
}

// Start listens on addr and serves reg on a goroutine until ctx ends; the
// returned function waits for it to stop. It fails only if addr cannot
// be bound.
func Start(ctx context.Context, addr string, reg *prometheus.Registry, log *zap.Logger) (net.Addr, func(), error) {
	ln, err := Listen(addr)
	if err != nil {
		return nil, nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := Serve(ctx, ln, reg, log); err != nil {
			log.Warn("metrics endpoint stopped", zap.Error(err))
		}
	}()
	return ln.Addr(), func() { <-done }, nil
}
