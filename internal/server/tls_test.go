package server_test

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// pki is a throwaway CA with server and client certificates in files.
type pki struct {
	dir                            string
	ca                             string
	cert, key, cert2, key2, encKey string
	clientCert, clientKey          string
	pool                           *x509.CertPool
	client                         tls.Certificate
	caCert                         *x509.Certificate
	caKey                          *ecdsa.PrivateKey
}

func newPKI(t *testing.T) *pki {
	t.Helper()
	p := &pki{dir: t.TempDir(), pool: x509.NewCertPool()}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Ordo test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	p.caCert, _ = x509.ParseCertificate(der)
	p.caKey = key
	p.pool.AddCert(p.caCert)
	p.ca = p.write(t, "ca.crt", "CERTIFICATE", der)
	p.cert, p.key, _ = p.issue(t, "server", 2, false, "")
	p.cert2, p.key2, _ = p.issue(t, "server-v2", 3, false, "")
	_, p.encKey, _ = p.issue(t, "server", 2, false, "s3cret") // same key pair as cert, encrypted
	var cpem, kpem []byte
	p.clientCert, p.clientKey, cpem = p.issue(t, "client", 4, true, "")
	kpem, _ = os.ReadFile(p.clientKey)
	if p.client, err = tls.X509KeyPair(cpem, kpem); err != nil {
		t.Fatal(err)
	}
	return p
}

var serverKeys = map[string]*ecdsa.PrivateKey{}

// issue signs a certificate named cn (a server certificate for
// 127.0.0.1, or a client one) and writes it and its key; with pass the
// key is written encrypted the legacy OpenSSL way.
func (p *pki) issue(t *testing.T, cn string, serial int64, client bool, pass string) (certFile, keyFile string, certPEM []byte) {
	t.Helper()
	key := serverKeys[cn]
	if key == nil {
		var err error
		if key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			t.Fatal(err)
		}
		serverKeys[cn] = key
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	if client {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	} else {
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.caCert, &key.PublicKey, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile = p.write(t, cn+".crt", "CERTIFICATE", der)
	certPEM, _ = os.ReadFile(certFile)
	if pass == "" {
		keyFile = p.write(t, cn+".key", "EC PRIVATE KEY", kder)
		return certFile, keyFile, certPEM
	}
	//lint:ignore SA1019 legacy encryption is what tls-key-file-pass reads
	b, err := x509.EncryptPEMBlock(rand.Reader, "EC PRIVATE KEY", kder, []byte(pass), x509.PEMCipherAES256) //nolint:staticcheck
	if err != nil {
		t.Fatal(err)
	}
	keyFile = filepath.Join(p.dir, cn+".enc.key")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(b), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, certPEM
}

func (p *pki) write(t *testing.T, name, typ string, der []byte) string {
	t.Helper()
	f := filepath.Join(p.dir, name)
	if err := os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// tlsDial connects to addr with TLS (with the client certificate unless
// noCert) and returns the server's leaf certificate's name.
func (p *pki) tlsDial(addr string, noCert bool, maxVersion uint16) (*tls.Conn, error) {
	cfg := &tls.Config{RootCAs: p.pool, MaxVersion: maxVersion}
	if !noCert {
		cfg.Certificates = []tls.Certificate{p.client}
	}
	d := &net.Dialer{Timeout: 3 * time.Second}
	c, err := tls.DialWithDialer(d, "tcp", addr, cfg)
	if err != nil {
		return nil, err
	}
	// TLS 1.3 reports a refused client certificate only at the first read.
	c.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := c.Write(resp.AppendCommand(nil, "PING")); err != nil {
		c.Close()
		return nil, err
	}
	v, err := resp.ReadReply(bufio.NewReader(c))
	if err != nil {
		c.Close()
		return nil, err
	}
	if v.Str != "PONG" {
		c.Close()
		return nil, &net.OpError{Op: "ping", Err: os.ErrInvalid}
	}
	c.SetDeadline(time.Time{})
	return c, nil
}

func freePort(t *testing.T) string { return strconv.Itoa(redistest.FreePort(t)) }

// TestTLS compares ordo-server with redis-server configured with the same
// certificates: connections with redis-cli --tls, Go's TLS client and
// go-redis; client certificates required, optional, refused; CONFIG GET
// and CONFIG SET of every tls-* parameter, errors included; certificates
// replaced at runtime; tls-protocols; an encrypted key.
func TestTLS(t *testing.T) {
	p := newPKI(t)
	settings := []string{"tls-cert-file", p.cert, "tls-key-file", p.key, "tls-ca-cert-file", p.ca}
	rport, oport := freePort(t), freePort(t)
	var rargs []string
	for i := 0; i < len(settings); i += 2 {
		rargs = append(rargs, "--"+settings[i], settings[i+1])
	}
	r := redistest.StartRedis(t, append(rargs, "--tls-port", rport)...)
	o := redistest.StartOrdo(t, append(settings, "tls-port", oport)...)
	type srv struct {
		name, plain, tls string
	}
	servers := []srv{{"redis", r.Addr, "127.0.0.1:" + rport}, {"ordo", o.Addr, o.Server.TLSAddrs()[0]}}
	if got := o.Server.TLSAddrs()[0]; got != "127.0.0.1:"+oport {
		t.Fatalf("TLS address %s, want port %s", got, oport)
	}
	cli := func(s srv, args ...string) (string, error) {
		_, port, _ := net.SplitHostPort(s.tls)
		base := []string{"--tls", "--cacert", p.ca, "-p", port}
		out, err := exec.Command("redis-cli", append(base, args...)...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}

	t.Run("clients", func(t *testing.T) {
		for _, s := range servers {
			out, err := cli(s, "--cert", p.clientCert, "--key", p.clientKey, "SET", "tls:k", "v")
			if err != nil || out != "OK" {
				t.Errorf("%s: redis-cli --tls SET: %q %v", s.name, out, err)
			}
			if out, _ := cli(s, "--cert", p.clientCert, "--key", p.clientKey, "GET", "tls:k"); out != "v" {
				t.Errorf("%s: redis-cli --tls GET: %q", s.name, out)
			}
			if v := redistest.Dial(t, s.plain).Do("GET", "tls:k"); v.Str != "v" {
				t.Errorf("%s: the plain port does not see the TLS write: %v", s.name, v)
			}
			if c, err := p.tlsDial(s.tls, true, 0); err == nil {
				c.Close()
				t.Errorf("%s: a client without a certificate was served (tls-auth-clients yes)", s.name)
			}
			c, err := p.tlsDial(s.tls, false, 0)
			if err != nil {
				t.Errorf("%s: Go TLS client: %v", s.name, err)
			} else {
				c.Close()
			}
			rc := redis.NewClient(&redis.Options{Addr: s.tls, TLSConfig: &tls.Config{RootCAs: p.pool, Certificates: []tls.Certificate{p.client}}})
			if err := rc.Ping(context.Background()).Err(); err != nil {
				t.Errorf("%s: go-redis over TLS: %v", s.name, err)
			}
			rc.Close()
			_, port, _ := net.SplitHostPort(s.tls)
			script := `import redis, sys
r = redis.Redis(host="127.0.0.1", port=int(sys.argv[1]), ssl=True, ssl_ca_certs=sys.argv[2],
                ssl_certfile=sys.argv[3], ssl_keyfile=sys.argv[4])
r.set("tls:py", "ok")
print(r.get("tls:py").decode())`
			pyOut, err := exec.Command(redistest.RedisPy(t), "-c", script, port, p.ca, p.clientCert, p.clientKey).CombinedOutput()
			if err != nil || strings.TrimSpace(string(pyOut)) != "ok" {
				t.Errorf("%s: redis-py over TLS: %v %s", s.name, err, pyOut)
			}
			nodeDir := redistest.NodeDir(t)
			jsOut, err := exec.Command("node", filepath.Join(nodeDir, "tls.js"), port, p.ca, p.clientCert, p.clientKey).CombinedOutput()
			if err != nil || strings.TrimSpace(string(jsOut)) != "ok" {
				t.Errorf("%s: ioredis over TLS: %v %s", s.name, err, jsOut)
			}
		}
	})

	t.Run("config", func(t *testing.T) {
		get := func(s srv) map[string]string {
			v := redistest.Dial(t, s.plain).Do("CONFIG", "GET", "tls-*")
			m := map[string]string{}
			for i := 0; i+1 < len(v.Elems); i += 2 {
				m[v.Elems[i].Str] = v.Elems[i+1].Str
			}
			delete(m, "tls-port")
			return m
		}
		rg, og := get(servers[0]), get(servers[1])
		if len(rg) != len(og) {
			t.Errorf("CONFIG GET tls-*: redis has %d parameters, ordo %d", len(rg), len(og))
		}
		for k, v := range rg {
			if og[k] != v {
				t.Errorf("CONFIG GET %s: redis %q, ordo %q", k, v, og[k])
			}
		}
		for _, set := range [][]string{
			{"tls-cert-file", "/nonexistent/cert.pem"},
			{"tls-key-file", p.key2}, // does not match the certificate
			{"tls-protocols", "TLSv9"},
			{"tls-ciphers", "BOGUS"},
			{"tls-auth-clients", "maybe"},
			{"tls-session-cache-size", "-1"},
			{"tls-ca-cert-file", "/nonexistent/ca.pem"},
		} {
			args := append([]string{"CONFIG", "SET"}, set...)
			rr := string(redistest.Dial(t, servers[0].plain).DoRaw(args...))
			or := string(redistest.Dial(t, servers[1].plain).DoRaw(args...))
			if rr != or {
				t.Errorf("CONFIG SET %s %s: redis %q, ordo %q", set[0], set[1], rr, or)
			}
		}
		// A failed CONFIG SET left TLS working.
		for _, s := range servers {
			if c, err := p.tlsDial(s.tls, false, 0); err != nil {
				t.Errorf("%s: TLS broken after a failed CONFIG SET: %v", s.name, err)
			} else {
				c.Close()
			}
		}
	})

	t.Run("runtime changes", func(t *testing.T) {
		for _, s := range servers {
			c := redistest.Dial(t, s.plain)
			if v := c.Do("CONFIG", "SET", "tls-auth-clients", "optional"); v.Str != "OK" {
				t.Fatalf("%s: %v", s.name, v)
			}
			if conn, err := p.tlsDial(s.tls, true, 0); err != nil {
				t.Errorf("%s: no client certificate with tls-auth-clients optional: %v", s.name, err)
			} else {
				conn.Close()
			}
			if v := c.Do("CONFIG", "SET", "tls-cert-file", p.cert2, "tls-key-file", p.key2); v.Str != "OK" {
				t.Fatalf("%s: %v", s.name, v)
			}
			conn, err := p.tlsDial(s.tls, false, 0)
			if err != nil {
				t.Fatalf("%s: after replacing the certificate: %v", s.name, err)
			}
			if cn := conn.ConnectionState().PeerCertificates[0].Subject.CommonName; cn != "server-v2" {
				t.Errorf("%s: new connections get certificate %q, want server-v2", s.name, cn)
			}
			conn.Close()
			if v := c.Do("CONFIG", "SET", "tls-protocols", "TLSv1.3"); v.Str != "OK" {
				t.Fatalf("%s: %v", s.name, v)
			}
			if conn, err := p.tlsDial(s.tls, false, tls.VersionTLS12); err == nil {
				conn.Close()
				t.Errorf("%s: a TLS 1.2 client was served with tls-protocols TLSv1.3", s.name)
			}
			if conn, err := p.tlsDial(s.tls, false, tls.VersionTLS13); err != nil {
				t.Errorf("%s: TLS 1.3 client: %v", s.name, err)
			} else {
				conn.Close()
			}
		}
	})

	t.Run("encrypted key", func(t *testing.T) {
		port := freePort(t)
		o2 := redistest.StartOrdo(t, "tls-port", port, "tls-cert-file", p.cert, "tls-key-file", p.encKey,
			"tls-key-file-pass", "s3cret", "tls-ca-cert-file", p.ca)
		if c, err := p.tlsDial(o2.Server.TLSAddrs()[0], false, 0); err != nil {
			t.Errorf("encrypted key: %v", err)
		} else {
			c.Close()
		}
		if v := redistest.Dial(t, o2.Addr).Do("CONFIG", "SET", "tls-key-file-pass", "wrong"); v.Kind != resp.KindError {
			t.Errorf("a wrong key password was accepted: %v", v)
		}
	})
}
