// Package syslogd receives syslog straight from devices: over UDP, TCP
// (RFC 6587 octet counting or newline framing) and TCP with TLS (RFC
// 5425). A device cannot sign in, so each message is routed by the network
// it came from to an API key of write scope, and through it to one
// organization (a provider's key may name one of its clients); the key is
// checked at every delivery, so revoking it stops the route. Messages are
// gathered per route and handed to the sink (the ingest path, as a
// partial syslog batch) every second or every 1,000 lines.
package syslogd

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Route sends the messages of a network to an organization: Key is an API
// key of write scope, Org (optional) a client of the key's provider.
type Route struct {
	Network netip.Prefix
	Key     string
	Org     string
}

// Config is what a Receiver needs.
type Config struct {
	Addr    string      // UDP and TCP, plain ("" none)
	TLSAddr string      // TCP with TLS ("" none)
	TLS     *tls.Config // the server's certificate, for TLSAddr
	Routes  []Route
	// Authorize says which organization a route's key acts in, or why not.
	Authorize func(ctx context.Context, key, org string) (orgID string, err error)
	// Deliver stores a batch of syslog lines for an organization.
	Deliver func(ctx context.Context, orgID string, lines []byte) (stored, rejected int, err error)
	// Count, when set, counts messages by outcome: stored, rejected,
	// unrouted, refused (the route's key no longer valid), failed.
	Count func(outcome string, n int)
	// Retry, when set, says whether a delivery that failed may succeed
	// later (a full disk, a busy database): its messages are kept for the
	// next delivery, up to maxHeld bytes a route.
	Retry func(error) bool
	Log   *slog.Logger
}

// Bounds.
const (
	MaxMessage     = 64 << 10 // longer messages are cut short and dropped
	maxConns       = 512
	idleTimeout    = 10 * time.Minute
	flushEvery     = time.Second
	flushLines     = 1000
	flushBytes     = 4 << 20
	deliverTimeout = 30 * time.Second
	maxHeld        = 16 << 20
)

// Receiver is the running listeners.
type Receiver struct {
	c       Config
	mu      sync.Mutex
	pending map[int]*bytes.Buffer // by route
	lines   map[int]int
	kick    chan struct{}
	conns   chan struct{} // a slot per open connection
	udp     net.PacketConn
	tcp     []net.Listener
}

// ParseRoutes reads a routes file: one route a line, "CIDR KEY [ORG_ID]";
// blank lines and lines starting with # are skipped; "*" is every network.
func ParseRoutes(text string) ([]Route, error) {
	var out []Route
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 || len(f) > 3 {
			return nil, fmt.Errorf("line %d: want CIDR KEY [ORG_ID]", n+1)
		}
		var r Route
		switch f[0] {
		case "*":
			r.Network = netip.MustParsePrefix("::/0")
		default:
			p, err := netip.ParsePrefix(f[0])
			if err != nil {
				a, aerr := netip.ParseAddr(f[0])
				if aerr != nil {
					return nil, fmt.Errorf("line %d: %q is not a network (CIDR), an address or *", n+1, f[0])
				}
				p = netip.PrefixFrom(a, a.BitLen())
			}
			r.Network = p.Masked()
		}
		r.Key = f[1]
		if len(f) == 3 {
			r.Org = f[2]
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, errors.New("no route: a device's messages would go nowhere")
	}
	return out, nil
}

// New checks the configuration and listens; Run serves.
func New(c Config) (*Receiver, error) {
	if c.Addr == "" && c.TLSAddr == "" {
		return nil, errors.New("no listen address")
	}
	if len(c.Routes) == 0 {
		return nil, errors.New("no routes: every message would be dropped")
	}
	if c.TLSAddr != "" && c.TLS == nil {
		return nil, errors.New("a TLS listener needs a certificate")
	}
	if c.Count == nil {
		c.Count = func(string, int) {}
	}
	r := &Receiver{c: c, pending: map[int]*bytes.Buffer{}, lines: map[int]int{}, kick: make(chan struct{}, 1),
		conns: make(chan struct{}, maxConns)}
	if c.Addr != "" {
		udp, err := net.ListenPacket("udp", c.Addr)
		if err != nil {
			return nil, fmt.Errorf("syslog udp: %w", err)
		}
		r.udp = udp
		tcp, err := net.Listen("tcp", c.Addr)
		if err != nil {
			udp.Close()
			return nil, fmt.Errorf("syslog tcp: %w", err)
		}
		r.tcp = append(r.tcp, tcp)
	}
	if c.TLSAddr != "" {
		l, err := net.Listen("tcp", c.TLSAddr)
		if err != nil {
			r.close()
			return nil, fmt.Errorf("syslog tls: %w", err)
		}
		r.tcp = append(r.tcp, tls.NewListener(l, c.TLS))
	}
	return r, nil
}

// UDPAddr and TCPAddrs are where the receiver listens (for tests and logs).
func (r *Receiver) UDPAddr() net.Addr {
	if r.udp == nil {
		return nil
	}
	return r.udp.LocalAddr()
}

// TCPAddrs are the TCP listeners' addresses: plain first, then TLS.
func (r *Receiver) TCPAddrs() []net.Addr {
	var out []net.Addr
	for _, l := range r.tcp {
		out = append(out, l.Addr())
	}
	return out
}

func (r *Receiver) close() {
	if r.udp != nil {
		r.udp.Close()
	}
	for _, l := range r.tcp {
		l.Close()
	}
}

// Run serves until ctx ends, then delivers what it holds.
func (r *Receiver) Run(ctx context.Context) {
	var wg sync.WaitGroup
	stop := context.AfterFunc(ctx, r.close)
	defer stop()
	if r.udp != nil {
		wg.Add(1)
		go func() { defer wg.Done(); r.serveUDP(ctx) }()
	}
	for _, l := range r.tcp {
		wg.Add(1)
		go func() { defer wg.Done(); r.serveTCP(ctx, l, &wg) }()
	}
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-t.C:
		case <-r.kick:
		}
		r.flush(context.WithoutCancel(ctx))
	}
	wg.Wait()
	r.flush(context.WithoutCancel(ctx))
}

func (r *Receiver) serveUDP(ctx context.Context) {
	buf := make([]byte, MaxMessage+1)
	for {
		n, from, err := r.udp.ReadFrom(buf)
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, net.ErrClosed) {
				r.c.Log.Warn("syslog udp", "err", err)
				continue
			}
			return
		}
		src := addrOf(from)
		for _, m := range bytes.Split(bytes.TrimRight(buf[:n], "\r\n\x00"), []byte("\n")) {
			r.take(src, m)
		}
	}
}

func (r *Receiver) serveTCP(ctx context.Context, l net.Listener, wg *sync.WaitGroup) {
	for {
		conn, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			r.c.Log.Warn("syslog accept", "err", err)
			time.Sleep(50 * time.Millisecond)
			continue
		}
		select {
		case r.conns <- struct{}{}:
		default:
			conn.Close() // at the connection cap: the device retries
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-r.conns }()
			stop := context.AfterFunc(ctx, func() { conn.Close() })
			defer stop()
			r.serveConn(conn)
		}()
	}
}

// serveConn reads one connection's messages: octet counting ("LEN SP
// MSG") when a frame starts with a digit, newline framing otherwise.
func (r *Receiver) serveConn(conn net.Conn) {
	defer conn.Close()
	src := addrOf(conn.RemoteAddr())
	br := bufio.NewReaderSize(conn, 64<<10)
	for {
		conn.SetReadDeadline(time.Now().Add(idleTimeout))
		if _, err := br.Peek(1); err != nil {
			return
		}
		if octetFrame(br) {
			if !r.octetCounted(br, src) {
				return
			}
			continue
		}
		line, err := readLine(br)
		if len(line) > 0 {
			r.take(src, line)
		}
		if err != nil {
			return
		}
	}
}

// octetFrame reports whether the next frame is "LEN SP MSG": one to six
// digits, the first not 0, then a space.
func octetFrame(br *bufio.Reader) bool {
	head, _ := br.Peek(7)
	for i, c := range head {
		switch {
		case c == ' ':
			return i > 0
		case c < '0' || c > '9' || (i == 0 && c == '0'):
			return false
		}
	}
	return false
}

// octetCounted reads one "LEN SP MSG" frame; false ends the connection.
func (r *Receiver) octetCounted(br *bufio.Reader, src netip.Addr) bool {
	head, err := br.ReadSlice(' ')
	if err != nil || len(head) > 7 {
		return false
	}
	n, err := strconv.Atoi(string(head[:len(head)-1]))
	if err != nil || n <= 0 {
		return false
	}
	if n > MaxMessage {
		r.c.Count("failed", 1)
		_, err := io.CopyN(io.Discard, br, int64(n))
		return err == nil
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(br, msg); err != nil {
		return false
	}
	r.take(src, bytes.TrimRight(msg, "\r\n\x00"))
	return true
}

// readLine reads up to a newline; a line over MaxMessage is dropped whole.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		part, err := br.ReadSlice('\n')
		if len(line)+len(part) <= MaxMessage+1 {
			line = append(line, part...)
		} else {
			line = line[:0:0] // too long: dropped, the rest read through
			if err == nil {
				return nil, nil
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimRight(line, "\r\n\x00"), err
	}
}

func addrOf(a net.Addr) netip.Addr {
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

// route is the most specific route of an address, -1 for none.
func (r *Receiver) route(a netip.Addr) int {
	best, bits := -1, -1
	for i, rt := range r.c.Routes {
		p := rt.Network
		if p.Bits() == 0 && p.Addr().Is6() { // "*"
			if bits < 0 {
				best, bits = i, 0
			}
			continue
		}
		if p.Contains(a) && p.Bits() > bits {
			best, bits = i, p.Bits()
		}
	}
	return best
}

// take queues one message for its route's next delivery.
func (r *Receiver) take(src netip.Addr, msg []byte) {
	if len(bytes.TrimSpace(msg)) == 0 {
		return
	}
	i := r.route(src)
	if i < 0 {
		r.c.Count("unrouted", 1)
		return
	}
	r.mu.Lock()
	b := r.pending[i]
	if b == nil {
		b = &bytes.Buffer{}
		r.pending[i] = b
	}
	b.Write(bytes.ReplaceAll(msg, []byte("\n"), []byte(" ")))
	b.WriteByte('\n')
	r.lines[i]++
	full := r.lines[i] >= flushLines || b.Len() >= flushBytes
	r.mu.Unlock()
	if full {
		select {
		case r.kick <- struct{}{}:
		default:
		}
	}
}

// flush delivers every route's pending messages.
func (r *Receiver) flush(ctx context.Context) {
	r.mu.Lock()
	pending, lines := r.pending, r.lines
	r.pending, r.lines = map[int]*bytes.Buffer{}, map[int]int{}
	r.mu.Unlock()
	for i, b := range pending {
		rt := r.c.Routes[i]
		ctx, cancel := context.WithTimeout(ctx, deliverTimeout)
		org, err := r.c.Authorize(ctx, rt.Key, rt.Org)
		if err != nil {
			cancel()
			r.c.Count("refused", lines[i])
			r.c.Log.Warn("syslog route refused", "network", rt.Network.String(), "messages", lines[i], "err", err)
			continue
		}
		stored, rejected, err := r.c.Deliver(ctx, org, b.Bytes())
		cancel()
		if err != nil && r.c.Retry != nil && r.c.Retry(err) && r.hold(i, b, lines[i]) {
			r.c.Log.Warn("syslog delivery held for the next try", "org", org, "messages", lines[i], "err", err)
			continue
		}
		if err != nil {
			r.c.Count("failed", lines[i])
			r.c.Log.Warn("syslog delivery", "org", org, "messages", lines[i], "err", err)
			continue
		}
		r.c.Count("stored", stored)
		r.c.Count("rejected", rejected)
	}
}

// hold puts a route's undelivered messages back before those that came
// since, unless that would pass maxHeld: then they are dropped (false).
func (r *Receiver) hold(i int, b *bytes.Buffer, lines int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	since := r.pending[i]
	size := b.Len()
	if since != nil {
		size += since.Len()
	}
	if size > maxHeld {
		return false
	}
	if since != nil {
		b.Write(since.Bytes())
	}
	r.pending[i] = b
	r.lines[i] += lines
	return true
}
