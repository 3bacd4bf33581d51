package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"garrison/app"
)

// appOptions are knobs only tests turn; production always uses the zero value.
type appOptions struct {
	now                func() time.Time
	passwordIterations int
}

// newApp builds the app (package app, the composition root) from the
// server's configuration, with the session codec over the data
// directory's secret.
func newApp(ctx context.Context, cfg config, log *slog.Logger, opts appOptions) (*app.App, error) {
	now := opts.now
	if now == nil {
		now = time.Now
	}
	// The secret lives in the data directory, made here on a first start.
	if err := os.MkdirAll(cfg.dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	secret, err := loadSecret(cfg.dataDir)
	if err != nil {
		return nil, err
	}
	codec, err := newJWTCodec(secret, cfg.jwtTTL, cfg.sessionMax, now)
	if err != nil {
		return nil, err
	}
	return app.New(ctx, appSettings(cfg), app.Options{Schema: schemaSQL, OpenAPI: openAPIDocument, Version: buildVersion(),
		Sessions: codec, Log: log, Now: opts.now, PasswordIterations: opts.passwordIterations})
}

// appSettings are the settings of cfg the app uses.
func appSettings(cfg config) app.Settings {
	return app.Settings{DataDir: cfg.dataDir, Database: cfg.database, Node: cfg.node, BaseURL: cfg.baseURL, SessionTTL: cfg.jwtTTL, DefaultPlan: cfg.defaultPlan,
		Registration: cfg.registration, SMTPAddr: cfg.smtpAddr, SMTPFrom: cfg.smtpFrom, SMTPUsername: cfg.smtpUsername,
		SMTPPassword: cfg.smtpPassword, Limits: cfg.limits, TrustedProxies: cfg.trustedProxies, AgentWorkers: cfg.agentWorkers,
		AgentTimeout: cfg.agentTimeout, LLMURL: cfg.llmURL, LLMModel: cfg.llmModel, LLMAPIKey: cfg.llmAPIKey,
		LLMTimeout: cfg.llmTimeout, IngestInflight: cfg.ingestInflight, IntelImportOrgs: cfg.intelImportOrgs,
		Retention: cfg.retention, AuditRetention: cfg.auditRetention, IntelSyncURLs: cfg.intelSyncURLs,
		IntelSyncEvery: cfg.intelSyncEvery, SelfSignedCert: selfSignedCertOf(cfg), StorageShare: cfg.storageShare,
		NotifyCAFile: cfg.notifyCAFile, NotifyAllowLoopback: cfg.notifyLoopback, SilenceAfter: cfg.silenceAfter}
}

// selfSignedCertOf is the certificate file the server makes for itself,
// "" when it is given one.
func selfSignedCertOf(cfg config) string {
	if cfg.tlsCert != "" {
		return ""
	}
	path, err := filepath.Abs(filepath.Join(cfg.dataDir, selfSignedCert))
	if err != nil {
		return filepath.Join(cfg.dataDir, selfSignedCert)
	}
	return path
}

func newLogger(cfg config, w interface{ Write([]byte) (int, error) }) *slog.Logger {
	var level slog.Level
	level.UnmarshalText([]byte(cfg.logLevel))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.logFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
