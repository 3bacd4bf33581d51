package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"os"

	"garrison/app"
	"garrison/syslogd"
)

// startSyslog listens for devices' syslog when --syslog-addr or
// --syslog-tls-addr is set (nil otherwise), routed by --syslog-routes.
func startSyslog(cfg config, a *app.App, tlsConfig *tls.Config) (*syslogd.Receiver, error) {
	if cfg.syslogAddr == "" && cfg.syslogTLSAddr == "" {
		return nil, nil
	}
	if cfg.syslogRoutes == "" {
		return nil, errors.New("--syslog-addr and --syslog-tls-addr need --syslog-routes: the file saying which organization each device network sends for")
	}
	text, err := os.ReadFile(cfg.syslogRoutes)
	if err != nil {
		return nil, fmt.Errorf("--syslog-routes: %w", err)
	}
	routes, err := syslogd.ParseRoutes(string(text))
	if err != nil {
		return nil, fmt.Errorf("--syslog-routes %s: %w", cfg.syslogRoutes, err)
	}
	return a.SyslogReceiver(cfg.syslogAddr, cfg.syslogTLSAddr, tlsConfig, routes)
}
