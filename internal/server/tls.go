package server

// TLS, configured with redis-server's tls-* parameters.
//
// tls-port opens TLS listeners on the bind addresses next to the plain
// port; both serve the same engine. The
// configuration is built from the parameters at start-up and rebuilt on
// every CONFIG SET of a tls-* parameter; a value that does not build
// (an unreadable certificate, a wrong key password) fails the CONFIG SET
// with Redis's message and leaves the previous configuration in use, and
// connections made after a successful change use the new certificates.
//
// What Go's crypto/tls does differently from OpenSSL, documented rather
// than hidden:
//   - tls-ciphers takes OpenSSL's names for TLS 1.2 suites (":"-separated;
//     keywords such as DEFAULT or HIGH keep Go's secure default list);
//     names Go does not implement are skipped, as OpenSSL skips unknown
//     ones, and a list that selects nothing is an error.
//   - tls-ciphersuites (TLS 1.3) is checked but Go always offers its three
//     TLS 1.3 suites; tls-prefer-server-ciphers, tls-session-cache-size and
//     tls-dh-params-file (Go has no finite-field DHE suites) are accepted
//     and have no effect; tls-session-caching no turns session tickets off.
//   - tls-key-file-pass decrypts a PEM key encrypted the legacy OpenSSL way
//     ("Proc-Type: 4,ENCRYPTED"); encrypted PKCS#8 keys are refused with a
//     clear error.

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// tlsParams are the parameters whose change rebuilds the configuration.
var tlsParams = []string{"tls-cert-file", "tls-key-file", "tls-key-file-pass", "tls-client-cert-file",
	"tls-client-key-file", "tls-client-key-file-pass", "tls-dh-params-file", "tls-ca-cert-file",
	"tls-ca-cert-dir", "tls-auth-clients", "tls-protocols", "tls-ciphers", "tls-ciphersuites",
	"tls-prefer-server-ciphers", "tls-session-caching", "tls-session-cache-size", "tls-session-cache-timeout"}

// errTLSUpdate is Redis's CONFIG SET message when TLS cannot be applied.
var errTLSUpdate = errors.New("Unable to update TLS configuration. Check server logs.")

// tlsState is the configuration new TLS connections get.
type tlsState struct{ cur atomic.Pointer[tls.Config] }

// setupTLS builds the configuration and registers its reloading; it is
// called from Listen when tls-port is set.
func (s *Server) setupTLS() error {
	cfg := s.E.Config
	tc, err := buildTLSConfig(cfg.Get)
	if err != nil {
		return fmt.Errorf("Failed to configure TLS: %w", err)
	}
	s.tls.cur.Store(tc)
	for _, name := range tlsParams {
		cfg.OnChange(name, func(string) error {
			// CONFIG SET has already stored the new values: build from them.
			tc, err := buildTLSConfig(cfg.Get)
			if err != nil {
				s.Logf("Failed to update TLS configuration: %v", err)
				return errTLSUpdate
			}
			s.tls.cur.Store(tc)
			return nil
		})
	}
	return nil
}

// tlsListener wraps ln so that each connection gets the configuration
// current when it connects.
func (s *Server) tlsListener(ln net.Listener) net.Listener {
	return tls.NewListener(ln, &tls.Config{
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) { return s.tls.cur.Load(), nil },
	})
}

// buildTLSConfig makes a server configuration from the tls-* values.
func buildTLSConfig(get func(string) string) (*tls.Config, error) {
	certFile, keyFile := get("tls-cert-file"), get("tls-key-file")
	if certFile == "" || keyFile == "" {
		return nil, errors.New("tls-cert-file and tls-key-file must be set")
	}
	cert, err := loadKeyPair(certFile, keyFile, get("tls-key-file-pass"))
	if err != nil {
		return nil, err
	}
	tc := &tls.Config{Certificates: []tls.Certificate{cert}}
	if get("tls-client-cert-file") != "" { // for connections Ordo makes (replication); checked now
		if _, err := loadKeyPair(get("tls-client-cert-file"), get("tls-client-key-file"), get("tls-client-key-file-pass")); err != nil {
			return nil, fmt.Errorf("client certificate: %w", err)
		}
	}
	pool, err := loadCAs(get("tls-ca-cert-file"), get("tls-ca-cert-dir"))
	if err != nil {
		return nil, err
	}
	switch get("tls-auth-clients") {
	case "yes":
		if pool == nil {
			return nil, errors.New("either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-auth-clients is enabled")
		}
		tc.ClientAuth = tls.RequireAndVerifyClientCert
	case "optional":
		tc.ClientAuth = tls.VerifyClientCertIfGiven
	default:
		tc.ClientAuth = tls.NoClientCert
	}
	tc.ClientCAs = pool
	if tc.MinVersion, tc.MaxVersion, err = tlsVersions(get("tls-protocols")); err != nil {
		return nil, err
	}
	if tc.CipherSuites, err = tlsCiphers(get("tls-ciphers")); err != nil {
		return nil, err
	}
	if err := checkCipherSuites13(get("tls-ciphersuites")); err != nil {
		return nil, err
	}
	if f := get("tls-dh-params-file"); f != "" {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("tls-dh-params-file: %w", err)
		}
	}
	tc.SessionTicketsDisabled = get("tls-session-caching") == "no"
	return tc, nil
}

// loadKeyPair reads a certificate chain and its key, decrypting the key
// with pass when it is encrypted.
func loadKeyPair(certFile, keyFile, pass string) (tls.Certificate, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("Failed to load certificate: %s: %w", certFile, err)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("Failed to load private key: %s: %w", keyFile, err)
	}
	if pass != "" {
		if keyPEM, err = decryptKey(keyPEM, pass); err != nil {
			return tls.Certificate{}, fmt.Errorf("Failed to load private key: %s: %w", keyFile, err)
		}
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("Failed to load certificate %s with key %s: %w", certFile, keyFile, err)
	}
	return cert, nil
}

// decryptKey decrypts the first encrypted PEM block of a key file.
func decryptKey(keyPEM []byte, pass string) ([]byte, error) {
	var out []byte
	for rest := keyPEM; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type == "ENCRYPTED PRIVATE KEY" {
			return nil, errors.New("encrypted PKCS#8 keys are not supported; convert with: openssl pkcs8 -topk8 -traditional or openssl rsa -aes256")
		}
		//lint:ignore SA1019 the legacy OpenSSL encryption is what tls-key-file-pass decrypts
		if x509.IsEncryptedPEMBlock(b) { //nolint:staticcheck
			//lint:ignore SA1019 as above
			der, err := x509.DecryptPEMBlock(b, []byte(pass)) //nolint:staticcheck
			if err != nil {
				return nil, fmt.Errorf("wrong password or corrupt key: %w", err)
			}
			b = &pem.Block{Type: b.Type, Bytes: der}
		}
		out = append(out, pem.EncodeToMemory(b)...)
	}
	return out, nil
}

// loadCAs reads the CA file and every certificate file in the CA
// directory; nil when neither is set.
func loadCAs(file, dir string) (*x509.CertPool, error) {
	if file == "" && dir == "" {
		return nil, nil
	}
	pool := x509.NewCertPool()
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("Failed to configure CA certificate(s) file/directory: %w", err)
		}
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("Failed to configure CA certificate(s) file/directory: no certificate in %s", file)
		}
	}
	if dir != "" {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("Failed to configure CA certificate(s) file/directory: %w", err)
		}
		for _, e := range ents {
			if e.IsDir() {
				continue
			}
			if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
				pool.AppendCertsFromPEM(b) // OpenSSL's hashed links and other files alike
			}
		}
	}
	return pool, nil
}

// tlsVersions maps tls-protocols ("TLSv1.2 TLSv1.3", the default when
// empty) to a version range.
func tlsVersions(list string) (uint16, uint16, error) {
	if strings.TrimSpace(list) == "" {
		return tls.VersionTLS12, tls.VersionTLS13, nil
	}
	var lo, hi uint16
	for _, p := range strings.Fields(list) {
		var v uint16
		switch strings.ToLower(p) {
		case "tlsv1":
			v = tls.VersionTLS10
		case "tlsv1.1":
			v = tls.VersionTLS11
		case "tlsv1.2":
			v = tls.VersionTLS12
		case "tlsv1.3":
			v = tls.VersionTLS13
		default:
			return 0, 0, fmt.Errorf("Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.")
		}
		if lo == 0 || v < lo {
			lo = v
		}
		hi = max(hi, v)
	}
	return lo, hi, nil
}

// openSSLCiphers maps OpenSSL's TLS 1.2 suite names to Go's.
var openSSLCiphers = map[string]uint16{
	"ECDHE-ECDSA-AES128-GCM-SHA256": tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-RSA-AES128-GCM-SHA256":   tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-ECDSA-AES256-GCM-SHA384": tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-RSA-AES256-GCM-SHA384":   tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-ECDSA-CHACHA20-POLY1305": tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-RSA-CHACHA20-POLY1305":   tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-ECDSA-AES128-SHA256":     tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256,
	"ECDHE-RSA-AES128-SHA256":       tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256,
	"ECDHE-ECDSA-AES128-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,
	"ECDHE-RSA-AES128-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
	"ECDHE-ECDSA-AES256-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
	"ECDHE-RSA-AES256-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
	"AES128-GCM-SHA256":             tls.TLS_RSA_WITH_AES_128_GCM_SHA256,
	"AES256-GCM-SHA384":             tls.TLS_RSA_WITH_AES_256_GCM_SHA384,
	"AES128-SHA256":                 tls.TLS_RSA_WITH_AES_128_CBC_SHA256,
	"AES128-SHA":                    tls.TLS_RSA_WITH_AES_128_CBC_SHA,
	"AES256-SHA":                    tls.TLS_RSA_WITH_AES_256_CBC_SHA,
}

// opensslKeywords are the OpenSSL cipher-string keywords that select
// modern suites; any of them keeps Go's (secure) default list.
var opensslKeywords = map[string]bool{"DEFAULT": true, "ALL": true, "HIGH": true, "MEDIUM": true,
	"ECDHE": true, "EECDH": true, "kECDHE": true, "kEECDH": true, "aRSA": true, "aECDSA": true, "RSA": true,
	"ECDSA": true, "AES": true, "AESGCM": true, "AES128": true, "AES256": true, "CHACHA20": true,
	"SHA256": true, "SHA384": true, "TLSv1.2": true, "PROFILE=SYSTEM": true}

// tlsCiphers maps an OpenSSL cipher list to Go suites; nil keeps Go's
// defaults (an empty list, or one naming a keyword such as DEFAULT).
func tlsCiphers(list string) ([]uint16, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	var out []uint16
	keyword := false
	removed := map[uint16]bool{}
	for _, item := range strings.FieldsFunc(list, func(r rune) bool { return r == ':' || r == ',' || r == ' ' }) {
		switch item[0] {
		case '!', '-':
			if id, ok := openSSLCiphers[item[1:]]; ok {
				removed[id] = true
			}
			continue
		case '+', '@':
			continue
		}
		if id, ok := openSSLCiphers[item]; ok {
			out = append(out, id)
		} else if opensslKeywords[strings.SplitN(item, "+", 2)[0]] {
			keyword = true
		}
	}
	if keyword && len(out) == 0 {
		for _, cs := range tls.CipherSuites() {
			if !removed[cs.ID] {
				out = append(out, cs.ID)
			}
		}
		return out, nil
	}
	kept := out[:0]
	for _, id := range out {
		if !removed[id] {
			kept = append(kept, id)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("Failed to configure ciphers: no cipher match in %q", list)
	}
	return kept, nil
}

// checkCipherSuites13 checks tls-ciphersuites names (Go always enables
// its TLS 1.3 suites; it cannot restrict them).
func checkCipherSuites13(list string) error {
	if strings.TrimSpace(list) == "" {
		return nil
	}
	known := map[string]bool{"TLS_AES_128_GCM_SHA256": true, "TLS_AES_256_GCM_SHA384": true,
		"TLS_CHACHA20_POLY1305_SHA256": true, "TLS_AES_128_CCM_SHA256": true, "TLS_AES_128_CCM_8_SHA256": true}
	for _, s := range strings.Split(list, ":") {
		if known[strings.TrimSpace(s)] {
			return nil
		}
	}
	return fmt.Errorf("Failed to configure ciphersuites: no ciphersuite match in %q", list)
}
