package main

import (
	"context"
	"net"
	"net/http"
	"time"

	"garrison/metrics"
)

// metricsServer serves GET /metrics in the Prometheus text format on its
// own listener (plain HTTP: bind it to loopback or a management network).
func metricsServer(addr string, m *metrics.Registry) *http.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		m.WriteTo(w)
	})
	return &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 30 * time.Second, BaseContext: func(net.Listener) context.Context { return context.Background() }}
}
