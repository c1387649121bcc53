package headless

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/webtransport-go"

	"webtron/internal/netbatch"
	"webtron/proto"
)

// Transports a headless player can use (Options.Transport).
const (
	WebSocket    = "websocket"
	WebTransport = "webtransport"
)

// fallbackAfter is how long a WebTransport attempt may take before the
// player settles for the WebSocket, as the browser does.
const fallbackAfter = time.Second

// link is a player's connection to the server, whatever the transport.
type link interface {
	// read returns the next message, reusing buf's storage when it can.
	read(buf []byte) ([]byte, error)
	// write sends one frame's messages together.
	write(msgs [][]byte) error
	// close ends the connection normally; closeNow at once.
	close() error
	closeNow()
	// normal reports whether err is the end of a connection closed normally.
	normal(err error) bool
	transport() string
}

// dialLink connects over the transport opt asks for. WebTransport falls
// back to the WebSocket when the server offers none, when its handshake
// fails, or when it takes longer than fallbackAfter.
func dialLink(ctx context.Context, opt Options) (link, error) {
	switch opt.Transport {
	case "", WebSocket:
		return dialWS(ctx, opt)
	case WebTransport:
		wait := opt.Fallback
		if wait <= 0 {
			wait = fallbackAfter
		}
		wctx, cancel := context.WithTimeout(ctx, wait)
		l, err := dialWT(wctx, opt)
		cancel()
		if err == nil {
			return l, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		return dialWS(ctx, opt)
	}
	return nil, fmt.Errorf("headless: unknown transport %q (want %s or %s)", opt.Transport, WebTransport, WebSocket)
}

// wsURL is opt.URL with the /ws path added when it has none.
func wsURL(u string) string {
	if !strings.Contains(strings.TrimPrefix(strings.TrimPrefix(u, "ws://"), "wss://"), "/") {
		u = strings.TrimSuffix(u, "/") + "/ws"
	}
	return u
}

// wsLink is a WebSocket with a batching socket under it: a frame's
// messages leave in one write.
type wsLink struct {
	ws *websocket.Conn
	bc *netbatch.Conn
}

func dialWS(ctx context.Context, opt Options) (*wsLink, error) {
	u := wsURL(opt.URL)
	var bc *netbatch.Conn
	var d net.Dialer
	// One transport per player, so that the dial hands back this player's
	// socket, wrapped.
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			bc = &netbatch.Conn{Conn: c}
			return bc, nil
		}}}
	ws, _, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPHeader: opt.Header, HTTPClient: hc})
	if err != nil {
		return nil, fmt.Errorf("headless: dial %s: %w", u, err)
	}
	ws.SetReadLimit(int64(proto.MaxSize(proto.TypeWelcome)))
	return &wsLink{ws: ws, bc: bc}, nil
}

func (l *wsLink) read(buf []byte) ([]byte, error) {
	_, r, err := l.ws.Reader(context.Background())
	if err != nil {
		return nil, err
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (l *wsLink) write(msgs [][]byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if l.bc != nil {
		l.bc.Hold()
	}
	for _, b := range msgs {
		if err := l.ws.Write(ctx, websocket.MessageBinary, b); err != nil {
			return err
		}
	}
	if l.bc != nil {
		return l.bc.Release(5 * time.Second)
	}
	return nil
}

func (l *wsLink) close() error {
	err := l.ws.Close(websocket.StatusNormalClosure, "bye")
	if websocket.CloseStatus(err) == websocket.StatusNormalClosure {
		err = nil
	}
	return err
}

func (l *wsLink) closeNow() { l.ws.CloseNow() }

func (l *wsLink) normal(err error) bool {
	return websocket.CloseStatus(err) == websocket.StatusNormalClosure
}

func (l *wsLink) transport() string { return WebSocket }

// transportInfo is the server's /api/transport (server.TransportInfo, which
// this package cannot import: the server's tests use headless players).
type transportInfo struct {
	WebTransport *struct {
		Path       string `json:"path"`
		CertHashes []struct {
			Algorithm string `json:"algorithm"`
			Value     string `json:"value"`
		} `json:"certHashes"`
	} `json:"webtransport"`
}

// wtLink is a WebTransport session: the player's stream for the hello and
// what the server sends reliably, datagrams for the rest
// (docs/protocol.md section 1).
type wtLink struct {
	sess *webtransport.Session
	tr   *webtransport.Transport
	str  *webtransport.Stream
	in   chan wtRead
	wmu  sync.Mutex
	pk   proto.Packer
}

type wtRead struct {
	msg []byte
	err error
}

// dialWT asks the server over HTTP where its WebTransport is and which
// certificate to trust (/api/transport, as a page does), then opens a
// session and its stream.
func dialWT(ctx context.Context, opt Options) (*wtLink, error) {
	u, err := url.Parse(wsURL(opt.URL))
	if err != nil {
		return nil, fmt.Errorf("headless: %w", err)
	}
	scheme := "http"
	if u.Scheme == "wss" {
		scheme = "https"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, scheme+"://"+u.Host+"/api/transport", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("headless: transport info: %w", err)
	}
	var info transportInfo
	err = json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&info)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("headless: transport info: status %d, %v", resp.StatusCode, err)
	}
	if info.WebTransport == nil {
		return nil, errors.New("headless: the server offers no WebTransport")
	}
	tlsConf := &tls.Config{}
	if hashes := info.WebTransport.CertHashes; len(hashes) > 0 {
		// serverCertificateHashes, as a browser applies them: the hash
		// vouches for the certificate, no authority does.
		tlsConf.InsecureSkipVerify = true
		tlsConf.VerifyConnection = func(st tls.ConnectionState) error {
			if len(st.PeerCertificates) == 0 {
				return errors.New("headless: no server certificate")
			}
			got := sha256.Sum256(st.PeerCertificates[0].Raw)
			for _, h := range hashes {
				if h.Algorithm == "sha-256" && h.Value == base64.StdEncoding.EncodeToString(got[:]) {
					return nil
				}
			}
			return errors.New("headless: server certificate hash mismatch")
		}
	}
	tr := &webtransport.Transport{TLSClientConfig: tlsConf,
		QUICConfig: &quic.Config{EnableDatagrams: true, EnableStreamResetPartialDelivery: true, MaxIdleTimeout: 30 * time.Second,
			DisablePathMTUDiscovery: true}}
	wu := "https://" + u.Host + info.WebTransport.Path
	_, sess, err := tr.Dial(ctx, wu, opt.Header)
	if err != nil {
		tr.Close()
		return nil, fmt.Errorf("headless: webtransport %s: %w", wu, err)
	}
	str, err := sess.OpenStreamSync(ctx)
	if err != nil {
		sess.CloseWithError(0, "")
		tr.Close()
		return nil, fmt.Errorf("headless: webtransport stream: %w", err)
	}
	l := &wtLink{sess: sess, tr: tr, str: str, in: make(chan wtRead, 256)}
	go l.readStream()
	go l.readDatagrams()
	return l, nil
}

func (l *wtLink) put(r wtRead) bool {
	select {
	case l.in <- r: // first, even when the session has ended: its reason comes this way
		return true
	default:
	}
	select {
	case l.in <- r:
		return true
	case <-l.sess.Context().Done():
		return false
	}
}

// putFrame hands a framed message, or the error that ended the framing, to
// the reader of the link.
func (l *wtLink) putFrame(msg []byte, err error) bool {
	return l.put(wtRead{msg: msg, err: err})
}

func (l *wtLink) readStream() {
	proto.ReadFrames(l.str, proto.MaxSize(proto.TypeWelcome), l.putFrame)
}

func (l *wtLink) readDatagrams() {
	for {
		d, err := l.sess.ReceiveDatagram(l.sess.Context())
		if err != nil {
			return
		}
		if !proto.EachFrame(d, l.putFrame) {
			return
		}
	}
}

func (l *wtLink) read(buf []byte) ([]byte, error) {
	select {
	case r := <-l.in:
		if r.err != nil {
			return nil, r.err
		}
		return append(buf[:0], r.msg...), nil
	case <-l.sess.Context().Done():
		// What was read before the session ended comes first (the
		// server's Error precedes its close), then the stream's error,
		// which carries the session's close code.
		select {
		case r := <-l.in:
			if r.err == nil {
				return append(buf[:0], r.msg...), nil
			}
			return nil, r.err
		case <-time.After(100 * time.Millisecond):
			return nil, context.Cause(l.sess.Context())
		}
	}
}

func (l *wtLink) write(msgs [][]byte) error {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.pk.Reset()
	for _, m := range msgs {
		l.pk.Add(m)
	}
	if len(l.pk.Stream) > 0 {
		l.str.SetWriteDeadline(time.Now().Add(5 * time.Second))
		if _, err := l.str.Write(l.pk.Stream); err != nil {
			return err
		}
	}
	for _, d := range l.pk.Datagrams {
		if err := l.sess.SendDatagram(d); err != nil {
			return err
		}
	}
	return nil
}

func (l *wtLink) close() error {
	err := l.sess.CloseWithError(0, "bye")
	l.tr.Close()
	return err
}

func (l *wtLink) closeNow() { l.close() }

func (l *wtLink) normal(err error) bool {
	var se *webtransport.SessionError
	return errors.As(err, &se) && se.ErrorCode == 0
}

func (l *wtLink) transport() string { return WebTransport }
