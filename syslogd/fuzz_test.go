package syslogd

import (
	"bytes"
	"net"
	"net/netip"
	"testing"
)

// FuzzFraming feeds a connection any bytes: nothing panics or hangs, and
// every message taken is bounded and one line.
func FuzzFraming(f *testing.F) {
	f.Add([]byte(line + "\n" + line))
	f.Add([]byte("12 <13>hello wo5 short"))
	f.Add([]byte("0 x\n9999999 y\n\n\r\n"))
	f.Add([]byte("65537 " + string(bytes.Repeat([]byte("z"), 100))))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &Receiver{c: Config{Routes: []Route{{Network: netip.MustParsePrefix("::/0"), Key: "k"}},
			Count: func(string, int) {}}, pending: map[int]*bytes.Buffer{}, lines: map[int]int{}, kick: make(chan struct{}, 1)}
		client, server := net.Pipe()
		go func() {
			client.Write(data)
			client.Close()
		}()
		r.serveConn(server)
		for _, b := range r.pending {
			for _, m := range bytes.Split(bytes.TrimSuffix(b.Bytes(), []byte("\n")), []byte("\n")) {
				if len(m) > MaxMessage+1 {
					t.Fatalf("a message of %d bytes", len(m))
				}
			}
		}
	})
}
