package commands

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/poller"
	"github.com/valkey-io/valkey-go"
)

// writeCerts makes a CA and a certificate for 127.0.0.1 signed by it.
func writeCerts(t *testing.T, dir string) testcluster.TLSFiles {
	t.Helper()
	pemOut := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "emqtop test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	caCert, _ := x509.ParseCertificate(caDER)
	der, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	return testcluster.TLSFiles{CA: pemOut("ca.pem", "CERTIFICATE", caDER), Cert: pemOut("cert.pem", "CERTIFICATE", der),
		Key: pemOut("key.pem", "EC PRIVATE KEY", kb)}
}

// TestTLSCluster: --tls --tls-ca and a valkeys:// URL on a TLS cluster.
func TestTLSCluster(t *testing.T) {
	files := writeCerts(t, t.TempDir())
	cl := testcluster.ForTest(t, testcluster.Options{Primaries: 3, TLS: &files})
	// the cluster announces its TLS ports, so the test writes over TLS too
	pool := x509.NewCertPool()
	caPEM, _ := os.ReadFile(files.CA)
	pool.AppendCertsFromPEM(caPEM)
	c, err := valkey.NewClient(valkey.ClientOption{InitAddress: cl.TLSAddrs(), DisableCache: true,
		TLSConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := echomq.Enqueue(bg, c, "orders", []byte("x")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--once", "--json", "--tls", "--tls-ca", files.CA, "--addr", cl.Nodes[1].TLSAddr()},
		{"--once", "--json", "--tls-ca", files.CA, "--url", "valkeys://" + cl.Nodes[2].TLSAddr()},
	} {
		var out, errb bytes.Buffer
		if rc := Main(args, &out, &errb); rc != 0 {
			t.Fatalf("%v: rc %d %s", args, rc, errb.String())
		}
		var doc jsonSnapshot
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Nodes) != 3 || len(doc.Queues) != 1 || doc.Queues[0].Pending != 1 {
			t.Errorf("%v: %d nodes, queues %+v", args, len(doc.Nodes), doc.Queues)
		}
		for _, n := range doc.Nodes {
			if n.Error != "" {
				t.Errorf("node %s: %s", n.Addr, n.Error)
			}
		}
	}
	// a tracker of the dashboard's, on a TLS connection the runtime's
	// poller does not watch (poller/hold.go): the handshake is made over
	// it, and a write is seen at the Sync after it
	owner, _ := cl.Owner(int(keyspace.QueueSlot("orders")))
	cfg := poller.Config{TLS: true, TLSCA: files.CA, Timeout: 5 * time.Second}
	tr, err := poller.StartHeldTracker(bg, cfg.HeldDialer(), cl.Nodes[owner].TLSAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	tr.Take() // a new tracker vouches for nothing
	if _, err := echomq.Enqueue(bg, c, "orders", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := tr.Sync(bg); err != nil {
		t.Fatal(err)
	}
	if slots, all, alive := tr.Take(); all || !alive || !slices.Equal(slots, []uint16{keyspace.QueueSlot("orders")}) {
		t.Errorf("a held tracker over TLS gave %v, all %v, alive %v after a write and a Sync", slots, all, alive)
	}
	// without the CA the certificate is refused, with a clear error
	var out, errb bytes.Buffer
	if rc := Main([]string{"--once", "--tls", "--addr", cl.Nodes[0].TLSAddr(), "--timeout", "500ms"}, &out, &errb); rc != 1 || !bytes.Contains(errb.Bytes(), []byte("certificate")) {
		t.Errorf("untrusted certificate: rc %d %s", rc, errb.String())
	}
	// --tls against a plain port: the wait names TLS as the likely cause
	errb.Reset()
	if rc := Main([]string{"--once", "--tls", "--addr", cl.Nodes[0].Addr(), "--timeout", "500ms"}, &out, &errb); rc != 1 ||
		!strings.Contains(errb.String(), "TLS handshake: is that port TLS?") {
		t.Errorf("--tls on a plain port: rc %d %s", rc, errb.String())
	}
}
