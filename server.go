package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"time"

	"garrison/app"
	"garrison/demo"
	"garrison/handlers"
	"garrison/memory"
)

// Server timeouts: a slow or stalled client is cut off instead of holding a
// connection (a header dripped a byte at a time hits ReadHeaderTimeout).
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 60 * time.Second
	idleTimeout       = 120 * time.Second
	maxHeaderBytes    = 64 << 10
)

// listening reports the bound addresses, for tests that listen on port 0.
type listening func(httpsAddr, httpAddr string)

// serve runs the server until ctx is done, then drains in-flight requests,
// stops the workers and closes the database, in that order.
func serve(ctx context.Context, cfg config, opts appOptions, stderr io.Writer, ready listening) error {
	log := newLogger(cfg, stderr)
	memory.TuneGC()
	stopProfile, err := startCPUProfile(cfg.cpuProfile)
	if err != nil {
		return err
	}
	defer func() {
		if err := stopProfile(); err != nil {
			log.Error("cpu profile", "err", err)
		}
	}()
	unlock, err := app.LockDataDir(cfg.dataDir)
	if err != nil {
		return err
	}
	defer unlock()
	a, err := newApp(ctx, cfg, log, opts)
	if err != nil {
		return err
	}
	defer a.Close()
	if cfg.demo {
		if err := demo.Create(ctx, a.Store, a.Now(), stderr); err != nil {
			return err
		}
	}
	tlsConfig, selfSigned, err := loadTLS(cfg, a.Now)
	if err != nil {
		return err
	}
	httpsLn, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", cfg.addr, err)
	}
	servers := []*http.Server{newHTTPServer(a.Handler, tlsConfig, log)}
	listeners := []net.Listener{tls.NewListener(httpsLn, tlsConfig)}
	httpAddr := ""
	if cfg.httpAddr != "" {
		ln, err := net.Listen("tcp", cfg.httpAddr)
		if err != nil {
			httpsLn.Close()
			return fmt.Errorf("listen %s: %w", cfg.httpAddr, err)
		}
		httpAddr = ln.Addr().String()
		_, httpsPort, _ := net.SplitHostPort(httpsLn.Addr().String())
		servers = append(servers, newHTTPServer(handlers.RedirectToHTTPS(httpsPort, log), nil, log))
		listeners = append(listeners, ln)
	}
	metricsAddr := ""
	if cfg.metricsAddr != "" {
		ln, err := net.Listen("tcp", cfg.metricsAddr)
		if err != nil {
			for _, l := range listeners {
				l.Close()
			}
			return fmt.Errorf("listen %s: %w", cfg.metricsAddr, err)
		}
		metricsAddr = ln.Addr().String()
		servers = append(servers, metricsServer(cfg.metricsAddr, a.Metrics))
		listeners = append(listeners, ln)
	}

	syslogRcv, err := startSyslog(cfg, a, tlsConfig)
	if err != nil {
		for _, l := range listeners {
			l.Close()
		}
		return err
	}
	workCtx, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	waitWork := a.Start(workCtx)
	syslogDone := make(chan struct{})
	go func() {
		defer close(syslogDone)
		if syslogRcv != nil {
			syslogRcv.Run(workCtx)
		}
	}()
	errs := make(chan error, len(servers))
	for i, srv := range servers {
		go func() { errs <- srv.Serve(listeners[i]) }()
	}
	log.Info("garrison listening", "https", httpsLn.Addr().String(), "http_redirect", httpAddr,
		"data", cfg.dataDir, "jwt_ttl", cfg.jwtTTL.String(), "default_plan", cfg.defaultPlan,
		"smtp", cfg.smtpAddr != "", "trusted_proxies", fmt.Sprint(cfg.trustedProxies),
		"agent_workers", cfg.agentWorkers, "llm", cfg.llmURL != "", "metrics", metricsAddr,
		"syslog", cfg.syslogAddr, "syslog_tls", cfg.syslogTLSAddr)
	for _, name := range slices.Sorted(maps.Keys(cfg.limits)) {
		log.Info("rate limit", "name", name, "limit", cfg.limits[name].String())
	}
	greeting(stderr, cfg, httpsLn.Addr().String(), selfSigned)
	if ready != nil {
		ready(httpsLn.Addr().String(), httpAddr)
	}

	var serveErr error
	serving := len(servers)
	select {
	case <-ctx.Done():
	case serveErr = <-errs:
		serving--
	}
	log.Info("shutting down: draining in-flight requests", "timeout", cfg.shutdownTimeout.String())
	drainCtx, cancel := context.WithTimeout(context.Background(), cfg.shutdownTimeout)
	defer cancel()
	for _, srv := range servers {
		if err := srv.Shutdown(drainCtx); err != nil {
			serveErr = errors.Join(serveErr, fmt.Errorf("shutdown: %w", err))
		}
	}
	for ; serving > 0; serving-- {
		if err := <-errs; !errors.Is(err, http.ErrServerClosed) {
			serveErr = errors.Join(serveErr, err)
		}
	}
	stopWork()
	<-syslogDone // what it held is delivered before the loops stop
	waitWork()
	log.Info("stopped")
	if errors.Is(serveErr, http.ErrServerClosed) {
		return nil
	}
	return serveErr
}

func newHTTPServer(h http.Handler, tlsConfig *tls.Config, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		TLSConfig:         tlsConfig,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
}
