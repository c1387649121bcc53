package server

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"

	"webtron/proto"
)

// WebTransport beside the WebSocket (docs/protocol.md section 1): HTTP/3 on
// UDP at the same port number as the HTTP server, a session at
// WebTransportPath, one bidirectional stream opened by the client for the
// hello, the welcome and everything large or rare, and datagrams for the
// rest. A WebTransport session is a conn like a WebSocket one: the room
// sees no difference, and the reader and writer goroutines are the same,
// with the transport's reads and writes below them (wtLink).

// WebTransportPath is where WebTransport sessions are opened.
const WebTransportPath = "/wt"

// wtServer is the WebTransport side of a Server, once ServeWebTransport runs.
type wtServer struct {
	srv   *webtransport.Server
	certs *certSource
}

// quicConnKey finds a request's QUIC connection, for its loss counters.
type quicConnKey struct{}

// wtSessionLimits is what a WebTransport session may open and send on its
// streams, advertised as SETTINGS_WT_INITIAL_MAX_STREAMS_BIDI, _UNI and
// SETTINGS_WT_INITIAL_MAX_DATA. Safari 26.4 refuses a session, before its
// CONNECT and with an empty error, from a server whose SETTINGS have
// SETTINGS_WT_MAX_SESSIONS (webtransport-go sends 2^62-1) without these
// three, which the drafts require beside a session limit above 1, and which
// webtransport-go sends only when a Config asks for them
// (quic-go/webtransport-go#355; docs/protocol.md section 1.3). They are
// enforced when the client sends its own (session flow control): the page
// opens one bidirectional stream (protocol section 1.2) and no
// unidirectional one; one, not none, of those, because nothing shows that
// Safari takes a zero. The data window, renewed as the server reads, holds
// many times the largest message a client sends (maxClientMessage).
var wtSessionLimits = webtransport.Config{MaxIncomingStreams: 1, MaxIncomingUniStreams: 1, MaxIncomingData: 64 << 10}

// ServeWebTransport serves WebTransport over HTTP/3 on pc (UDP, normally the
// port number of Serve's listener, so that a page reaches it at its own
// host and port) until Shutdown; it returns nil then. The certificate is
// Config.TLSCert and TLSKey, or a generated one whose hash /api/transport
// gives to pages.
func (s *Server) ServeWebTransport(pc net.PacketConn) error {
	certs, err := newCertSource(s.cfg.TLSCert, s.cfg.TLSKey, time.Now)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc(WebTransportPath, s.serveWT)
	h3 := &http3.Server{
		Handler:   mux,
		TLSConfig: http3.ConfigureTLSConfig(&tls.Config{GetCertificate: certs.getCertificate, MinVersion: tls.VersionTLS13}),
		// A connection is only ever for a session, which a client opens at
		// once and must say Hello on within HelloTimeout: one with no
		// request open that long (never a session, or its session over) is
		// closed, and the gate closes one that keeps other requests open
		// without a session. QUIC's own idle timeout below does neither:
		// the client's PINGs reset it (quicGate).
		IdleTimeout: s.cfg.HelloTimeout,
		ConnContext: func(ctx context.Context, c *quic.Conn) context.Context {
			return context.WithValue(ctx, quicConnKey{}, c)
		},
	}
	wts := &webtransport.Server{H3: h3, CheckOrigin: s.originAllowed, Config: &wtSessionLimits}
	// Game messages are small: probing for larger packets (path MTU
	// discovery) would only add padded packets to every connection.
	quicConf := &quic.Config{EnableDatagrams: true, EnableStreamResetPartialDelivery: true, DisablePathMTUDiscovery: true,
		MaxIdleTimeout: s.cfg.IdleTimeout + 5*time.Second}
	// The transport, not webtransport.Server.Serve, listens: its ConnContext
	// is where the gate admits or refuses a connection before its handshake.
	tr := &quic.Transport{Conn: pc, ConnContext: s.quic.connContext, VerifySourceAddress: s.quic.verifySource}
	ln, err := tr.ListenEarly(h3.TLSConfig, quicConf)
	if err != nil {
		return err
	}
	if !s.wt.CompareAndSwap(nil, &wtServer{srv: wts, certs: certs}) {
		tr.Close()
		return errors.New("server: WebTransport is served already")
	}
	go func() {
		<-s.closed
		// The connections tell their clients why they close before the
		// QUIC connections under them go.
		grace, cancel := context.WithTimeout(context.Background(), s.cfg.CloseGrace+time.Second)
		defer cancel()
		waitGroup(grace, &s.connWG)
		wts.Close()
		tr.Close()
	}()
	for {
		qc, err := ln.Accept(context.Background())
		if err != nil {
			select {
			case <-s.closed:
				return nil
			default:
				return err
			}
		}
		s.quic.accepted(qc)
		go func() {
			if err := wts.ServeQUICConn(qc); err != nil && !errors.Is(err, http.ErrServerClosed) {
				s.log.Info("server: webtransport connection", "remote", qc.RemoteAddr().String(), "err", err)
			}
		}()
	}
}

// originAllowed applies the WebSocket's origin rule to WebTransport: no
// Origin (not a browser), the request's own host, or an --origin pattern.
func (s *Server) originAllowed(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	if err != nil {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	for _, p := range s.cfg.Origins {
		if ok, _ := path.Match(strings.ToLower(p), strings.ToLower(u.Host)); ok {
			return true
		}
	}
	return false
}

// TransportInfo is /api/transport: how a page reaches WebTransport. The JSON
// keys are a contract with the browser client.
type TransportInfo struct {
	// WebTransport is nil when the server serves no WebTransport.
	WebTransport *WebTransportInfo `json:"webtransport"`
}

// WebTransportInfo tells a page where the sessions are and which
// certificate hashes to trust.
type WebTransportInfo struct {
	// Path is opened at the page's own host and port: https://HOST:PORT/wt.
	Path string `json:"path"`
	// CertHashes are for the WebTransport constructor's
	// serverCertificateHashes (value: standard base64 of the SHA-256 of the
	// certificate's DER); empty when the certificate is a trusted one.
	CertHashes []CertHash `json:"certHashes"`
}

// CertHash is one entry of serverCertificateHashes.
type CertHash struct {
	Algorithm string `json:"algorithm"` // "sha-256"
	Value     string `json:"value"`     // base64 (standard, padded)
}

// Transport returns what /api/transport serves.
func (s *Server) Transport() TransportInfo {
	w := s.wt.Load()
	if w == nil {
		return TransportInfo{}
	}
	info := &WebTransportInfo{Path: WebTransportPath, CertHashes: []CertHash{}}
	for _, h := range w.certs.hashes() {
		info.CertHashes = append(info.CertHashes, CertHash{Algorithm: "sha-256", Value: base64.StdEncoding.EncodeToString(h)})
	}
	return TransportInfo{WebTransport: info}
}

func (s *Server) serveTransport(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	// The hash changes when the certificate does.
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(s.Transport())
}

// serveWT opens a WebTransport session and runs it as a connection.
func (s *Server) serveWT(w http.ResponseWriter, r *http.Request) {
	qc, _ := r.Context().Value(quicConnKey{}).(*quic.Conn)
	if qc != nil {
		defer s.quic.session(qc)()
	}
	wt := s.wt.Load()
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if closing || wt == nil {
		http.Error(w, "server shutting down", http.StatusServiceUnavailable)
		return
	}
	sess, err := wt.srv.Upgrade(w, r)
	if err != nil {
		s.metrics.disconnects.WithLabelValues("handshake").Inc()
		s.log.Info("server: webtransport handshake refused", "remote", r.RemoteAddr, "origin", r.Header.Get("Origin"), "err", err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	c := newConn(s, nil, nil)
	peer := peerAddr(r) // never X-Forwarded-For: no HTTP proxy carries WebTransport
	c.addr = addrKey(peer)
	c.hop, c.remote = joinHop(r), peer.String()
	c.wt = newWTLink(s, sess, qc)
	s.metrics.conns.WithLabelValues("webtransport").Inc()
	s.runConn(c)
}

// wtLink is a conn's WebTransport session. Reads come from two goroutines
// (the stream, the datagrams) through one channel; the conn's writer
// packs each batch into datagrams and stream writes (proto.Packer).
type wtLink struct {
	s    *Server
	sess *webtransport.Session
	qc   *quic.Conn // nil when unknown: loss is not counted then
	in   chan wtRead

	mu  sync.Mutex
	str *webtransport.Stream // the client's stream, once it has opened it

	pk       proto.Packer
	lostSeen atomic.Uint64 // the QUIC connection's lost packets already counted
	lostAt   time.Time     // when the writer last saw that count rise (writer only)
}

// lossyFor is how long after QUIC last declared a packet lost a path counts
// as lossy: datagrams with broadcasts go twice on it.
const lossyFor = 10 * time.Second

// wtRead is one message read, or why reading ended.
type wtRead struct {
	msg []byte
	err error
	at  time.Duration // when the session gave it to us (server clock)
}

func newWTLink(s *Server, sess *webtransport.Session, qc *quic.Conn) *wtLink {
	l := &wtLink{s: s, sess: sess, qc: qc, in: make(chan wtRead, 64)}
	go l.readStream()
	go l.readDatagrams()
	return l
}

// put hands a read to the conn's reader unless the session has ended.
func (l *wtLink) put(r wtRead) bool {
	select {
	case l.in <- r:
		return true
	case <-l.sess.Context().Done():
		return false
	}
}

// putFrame hands a framed message, or the error that ended the framing, to
// the reader of the link, stamped with the time it came off the session:
// the handoffs to the connection's reader after that are the server's own
// time, not the network's (a room measures round trips with the stamp).
func (l *wtLink) putFrame(msg []byte, err error) bool {
	if errors.Is(err, proto.ErrFrameTooLarge) {
		err = errTooLarge
	}
	return l.put(wtRead{msg: msg, err: err, at: l.s.now()})
}

// readStream waits for the client's stream and reads framed messages from
// it. A frame longer than the largest client message is errTooLarge, found
// from its length alone.
func (l *wtLink) readStream() {
	ctx, cancel := context.WithTimeout(l.sess.Context(), l.s.cfg.HelloTimeout)
	str, err := l.sess.AcceptStream(ctx)
	cancel()
	if err != nil {
		l.put(wtRead{err: err})
		return
	}
	l.mu.Lock()
	l.str = str
	l.mu.Unlock()
	proto.ReadFrames(str, maxClientMessage, l.putFrame)
}

// readDatagrams splits each datagram into its messages. An empty datagram
// holds none, yet costs the server as much to take in: it goes to the
// reader as an empty message, which the rate limit counts and decoding
// refuses, as it would an empty WebSocket message.
func (l *wtLink) readDatagrams() {
	for {
		d, err := l.sess.ReceiveDatagram(l.sess.Context())
		if err != nil {
			return // the session ended; the stream reader reports why
		}
		l.s.metrics.datagrams.WithLabelValues("received").Inc()
		if len(d) == 0 {
			if !l.putFrame(d, nil) {
				return
			}
			continue
		}
		if !proto.EachFrame(d, l.putFrame) {
			return
		}
	}
}

// read returns the next message in buf, as readMessage does for a WebSocket.
func (l *wtLink) read(buf []byte) (int, time.Duration, error) {
	select {
	case r := <-l.in:
		if r.err != nil {
			return 0, 0, r.err
		}
		if len(r.msg) > len(buf)-1 { // buf has room for one byte more than the limit
			return 0, 0, errTooLarge
		}
		return copy(buf, r.msg), r.at, nil
	case <-l.sess.Context().Done():
		return 0, 0, context.Cause(l.sess.Context())
	}
}

// readMessage reads the conn's next message from whichever transport it has,
// and when it arrived (0: now, as a WebSocket's reader is the first to see it).
func (c *conn) readMessage(buf []byte) (int, time.Duration, error) {
	if c.wt != nil {
		return c.wt.read(buf)
	}
	n, err := readMessage(c.ws, buf)
	return n, 0, err
}

// writeLoop is conn.writeLoop for a WebTransport session: batches already
// queued are packed together, so a tick's messages for a client leave in
// as few packets as hold them.
func (l *wtLink) writeLoop(c *conn) {
	for {
		select {
		case batch := <-c.send:
			l.pk.Reset()
			for n := 0; ; n++ {
				for _, b := range batch {
					l.pk.Add(b)
				}
				if n == 64 || len(c.send) == 0 {
					break
				}
				batch = <-c.send
			}
			if err := l.flush(); err != nil {
				c.close(reasonWrite)
			}
			continue
		case <-c.done:
		}
		break
	}
	l.goodbye(c.why)
}

// flush sends what the packer holds: the stream's part first, so that a
// welcome leaves before the news that follows it.
func (l *wtLink) flush() error {
	m := l.s.metrics
	if len(l.pk.Stream) > 0 {
		if err := l.writeStream(l.pk.Stream); err != nil {
			return err
		}
	}
	twice := !l.lostAt.IsZero() && time.Since(l.lostAt) < lossyFor
	for _, d := range l.pk.Datagrams {
		if twice && carries(d, proto.TypeAccepted) {
			// On a lossy path a broadcast lost would reach this client a
			// round trip late, through a resend request; a second copy
			// (dropped as a duplicate when both arrive) makes that rare.
			if l.sess.SendDatagram(d) == nil {
				m.datagrams.WithLabelValues("sent").Inc()
				m.datagrams.WithLabelValues("resent").Inc()
				m.bytesOut.Add(float64(len(d)))
			}
		}
		err := l.sess.SendDatagram(d)
		var tooLarge *quic.DatagramTooLargeError
		if errors.As(err, &tooLarge) {
			// A path with smaller packets than MaxDatagram assumes: the
			// stream carries these instead.
			err = l.writeStream(d)
		} else if err == nil {
			m.datagrams.WithLabelValues("sent").Inc()
		}
		if err != nil {
			return err
		}
		m.bytesOut.Add(float64(len(d)))
	}
	if l.qc != nil {
		// QUIC's loss count can go down again (a late acknowledgement); count its highs.
		lost := l.qc.ConnectionStats().PacketsLost
		if seen := l.lostSeen.Load(); lost > seen {
			l.lostSeen.Store(lost)
			l.lostAt = time.Now()
			m.datagrams.WithLabelValues("lost").Add(float64(lost - seen))
		}
	}
	return nil
}

// carries reports whether a datagram holds a message of type t.
func carries(d []byte, t proto.Type) bool {
	for len(d) > 0 {
		msg, rest, err := proto.NextFrame(d)
		if err != nil {
			return false
		}
		if proto.Type(msg[0]) == t {
			return true
		}
		d = rest
	}
	return false
}

// writeStream writes framed messages on the client's stream.
func (l *wtLink) writeStream(b []byte) error {
	l.mu.Lock()
	str := l.str
	l.mu.Unlock()
	if str == nil {
		return errors.New("server: webtransport stream not open")
	}
	str.SetWriteDeadline(time.Now().Add(l.s.cfg.WriteTimeout))
	_, err := str.Write(b)
	if err == nil {
		l.s.metrics.bytesOut.Add(float64(len(b)))
	}
	return err
}

// goodbye tells the client why the connection closes (an Error on the
// stream, and the same code and text in the session's close), then closes.
func (l *wtLink) goodbye(r reason) {
	if r.tell && r.label != "write_error" {
		if b, err := proto.Marshal(&proto.Error{Code: r.code, Text: r.text}); err == nil {
			l.mu.Lock()
			str := l.str
			l.mu.Unlock()
			if str != nil && l.writeStream(proto.AppendFrame(nil, b)) == nil {
				str.Close()
				// The session's close resets its streams: give the Error
				// a moment to be delivered and acknowledged first.
				select {
				case <-l.sess.Context().Done():
				case <-time.After(min(l.s.cfg.CloseGrace/2, 250*time.Millisecond)):
				}
			}
		}
	}
	l.sess.CloseWithError(webtransport.SessionErrorCode(r.code), r.text)
}

// cut ends the session at once.
func (l *wtLink) cut() {
	if l.qc != nil {
		l.qc.CloseWithError(0, "")
		return
	}
	l.sess.CloseWithError(webtransport.SessionErrorCode(proto.CloseShutdown), "")
}

// transport names a conn's transport for metrics and logs.
func (c *conn) transport() string {
	if c.wt != nil {
		return "webtransport"
	}
	return "websocket"
}
