package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

const (
	selfSignedCert = "tls-cert.pem"
	selfSignedKey  = "tls-key.pem"
)

// loadTLS returns the HTTPS configuration: the given certificate, or a
// self-signed ECDSA one made once into the data directory, with its
// SHA-256 fingerprint for the operator to check in the browser ("" for a
// given certificate).
func loadTLS(cfg config, now func() time.Time) (_ *tls.Config, selfSigned string, err error) {
	certFile, keyFile := cfg.tlsCert, cfg.tlsKey
	if certFile == "" {
		certFile = filepath.Join(cfg.dataDir, selfSignedCert)
		keyFile = filepath.Join(cfg.dataDir, selfSignedKey)
		if _, err := os.Stat(certFile); errors.Is(err, os.ErrNotExist) {
			if err := writeSelfSigned(certFile, keyFile, cfg.tlsHosts, now()); err != nil {
				return nil, "", err
			}
		}
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, "", fmt.Errorf("load TLS certificate: %w", err)
	}
	if cfg.tlsCert == "" {
		selfSigned = fingerprint(cert.Certificate[0])
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}, selfSigned, nil
}

// fingerprint is a certificate's SHA-256 fingerprint as browsers show it:
// upper-case hex bytes joined by colons.
func fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	parts := make([]string, len(sum))
	for i, b := range sum {
		parts[i] = fmt.Sprintf("%02X", b)
	}
	return strings.Join(parts, ":")
}

// greeting tells the operator, on the terminal, where to open the console
// and, for the self-signed certificate, which fingerprint the browser must
// show.
func greeting(w io.Writer, cfg config, httpsAddr, selfSigned string) {
	url := strings.TrimSuffix(cfg.baseURL, "/") + "/"
	fmt.Fprintf(w, "Garrison is serving %s on %s (data in %s). Open %s in a browser.\n", versionLine(), httpsAddr, cfg.dataDir, url)
	if selfSigned != "" {
		fmt.Fprintf(w, "Its certificate is self-signed: before you accept it, check that the browser shows this SHA-256 fingerprint:\n  %s\n",
			selfSigned)
	}
}

// writeSelfSigned makes the certificate for localhost, the loopback
// addresses, the host name and the extra names and addresses of
// --tls-hosts (an appliance reached as https://10.0.0.5 or by its FQDN).
func writeSelfSigned(certFile, keyFile string, extra []string, now time.Time) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generate TLS key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return fmt.Errorf("certificate serial: %w", err)
	}
	names := []string{"localhost"}
	if h, err := os.Hostname(); err == nil && h != "localhost" {
		names = append(names, h)
	}
	ips := []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	for _, h := range extra {
		if ip := net.ParseIP(h); ip != nil {
			ips = append(ips, ip)
		} else {
			names = append(names, h)
		}
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "Garrison self-signed", Organization: []string{"Garrison"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(825 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              names,
		IPAddresses:           ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return fmt.Errorf("create certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("encode TLS key: %w", err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return fmt.Errorf("write TLS key: %w", err)
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return fmt.Errorf("write TLS certificate: %w", err)
	}
	return nil
}
