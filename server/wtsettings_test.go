package server

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/quicvarint"
	"github.com/quic-go/webtransport-go"

	"webtron/proto"
)

// The HTTP/3 SETTINGS identifiers a WebTransport server's SETTINGS frame is
// read for (docs/protocol.md section 1.3).
const (
	settingEnableConnectProtocol   = 0x08       // RFC 9220: extended CONNECT
	settingH3Datagram              = 0x33       // RFC 9297
	settingWTEnabled               = 0x2c7cf000 // draft-ietf-webtrans-http3-15 and later
	settingWTMaxSessions           = 0x14e9cd29 // drafts 13 and 14: what Safari 26.4 looks for
	settingWTInitialMaxStreamsUni  = 0x2b64
	settingWTInitialMaxStreamsBidi = 0x2b65
	settingWTInitialMaxData        = 0x2b61
)

// readServerSettings opens a QUIC connection to the server's WebTransport
// port as an HTTP/3 client would (ALPN h3, datagrams, reset_stream_at) and
// returns the SETTINGS frame the server sends first on its control stream,
// and the QUIC connection's state.
func readServerSettings(t *testing.T, s *testServer) (map[uint64]uint64, quic.ConnectionState) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	qc, err := quic.DialAddr(ctx, s.ts.Listener.Addr().String(), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h3"}},
		&quic.Config{EnableDatagrams: true, EnableStreamResetPartialDelivery: true})
	if err != nil {
		t.Fatal(err)
	}
	defer qc.CloseWithError(0, "")
	for {
		// The server's unidirectional streams: the control stream (type 0)
		// and perhaps QPACK's, in any order.
		str, err := qc.AcceptUniStream(ctx)
		if err != nil {
			t.Fatalf("no control stream from the server: %v", err)
		}
		r := bufio.NewReader(str)
		typ, err := quicvarint.Read(r)
		if err != nil {
			t.Fatal(err)
		}
		if typ != 0 {
			continue
		}
		frame, err := quicvarint.Read(r)
		if err != nil || frame != 0x4 {
			t.Fatalf("the control stream begins with frame type %#x (%v), want SETTINGS (0x4)", frame, err)
		}
		n, err := quicvarint.Read(r)
		if err != nil {
			t.Fatal(err)
		}
		body := io.LimitReader(r, int64(n))
		br := bufio.NewReader(body)
		settings := map[uint64]uint64{}
		for {
			id, err := quicvarint.Read(br)
			if err == io.EOF {
				return settings, qc.ConnectionState()
			}
			if err != nil {
				t.Fatalf("SETTINGS: %v", err)
			}
			v, err := quicvarint.Read(br)
			if err != nil {
				t.Fatalf("SETTINGS %#x without a value: %v", id, err)
			}
			if _, dup := settings[id]; dup {
				t.Fatalf("SETTINGS %#x twice", id)
			}
			settings[id] = v
		}
	}
}

// TestWebTransportSettings: the server's HTTP/3 SETTINGS frame and QUIC
// transport parameters carry what each browser's WebTransport needs: the
// current draft's (extended CONNECT, HTTP datagrams, SETTINGS_WT_ENABLED,
// max_datagram_frame_size, reset_stream_at), and what Safari 26.4 refuses
// a session without: SETTINGS_WT_MAX_SESSIONS of 1 or more, and with it
// the three SETTINGS_WT_INITIAL_MAX_* (webtransport-go with a nil Config
// sends the first without the others, quic-go/webtransport-go#355), large
// enough for the page's one bidirectional stream and the largest message
// it sends on it.
func TestWebTransportSettings(t *testing.T) {
	s := newWTTestServer(t, nil)
	got, cs := readServerSettings(t, s)
	var list []string
	for id, v := range got {
		list = append(list, fmt.Sprintf("%#x=%d", id, v))
	}
	slices.Sort(list)
	t.Logf("SETTINGS %s", strings.Join(list, " "))
	if !cs.SupportsDatagrams.Remote || !cs.SupportsStreamResetPartialDelivery.Remote {
		t.Errorf("transport parameters: datagrams %v, reset_stream_at %v; WebTransport needs both", cs.SupportsDatagrams.Remote, cs.SupportsStreamResetPartialDelivery.Remote)
	}
	for _, c := range []struct {
		name string
		id   uint64
		min  uint64
	}{
		{"SETTINGS_ENABLE_CONNECT_PROTOCOL", settingEnableConnectProtocol, 1},
		{"SETTINGS_H3_DATAGRAM", settingH3Datagram, 1},
		{"SETTINGS_WT_ENABLED", settingWTEnabled, 1},
		{"SETTINGS_WT_MAX_SESSIONS", settingWTMaxSessions, 1},
		{"SETTINGS_WT_INITIAL_MAX_STREAMS_BIDI", settingWTInitialMaxStreamsBidi, 1},
		{"SETTINGS_WT_INITIAL_MAX_STREAMS_UNI", settingWTInitialMaxStreamsUni, 1},
		{"SETTINGS_WT_INITIAL_MAX_DATA", settingWTInitialMaxData, uint64(maxClientMessage)},
	} {
		v, ok := got[c.id]
		switch {
		case !ok:
			t.Errorf("%s (%#x) not sent", c.name, c.id)
		case v < c.min:
			t.Errorf("%s (%#x) = %d, want at least %d", c.name, c.id, v, c.min)
		}
	}
	for _, id := range []uint64{settingEnableConnectProtocol, settingH3Datagram, settingWTEnabled} {
		if v, ok := got[id]; ok && v != 1 {
			t.Errorf("setting %#x = %d: a boolean setting is 0 or 1", id, v)
		}
	}
}

// TestWebTransportFlowControlled: a client that sends session limits of its
// own, as Safari does, turns on WebTransport's session flow control: the
// server's limits hold (one bidirectional stream: a second is refused) and
// the game's stream still flows both ways, past the client's small data
// window (the Welcome alone is larger: the window is renewed as it is read):
// Hello, Welcome, a chat line and the room's echo of it.
func TestWebTransportFlowControlled(t *testing.T) {
	s := newWTTestServer(t, func(c *Config) { c.Bots = 2 })
	const window = 512
	sess, err := dialWTConfig(t, s, nil, &webtransport.Config{MaxIncomingStreams: 1, MaxIncomingUniStreams: 1, MaxIncomingData: window})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	str, err := sess.OpenStreamSync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.OpenStream(); err == nil {
		t.Errorf("a second bidirectional stream opened: the server's limit of 1 is not in force")
	}
	if _, err := str.Write(proto.AppendFrame(nil, marshal(t, &proto.Hello{Name: "safari", Room: "fc"}))); err != nil {
		t.Fatal(err)
	}
	str.SetReadDeadline(time.Now().Add(5 * time.Second))
	read, welcomed, echoed := 0, false, false
	said := strings.Repeat("w", 150)
	proto.ReadFrames(str, proto.MaxSize(proto.TypeWelcome), func(msg []byte, err error) bool {
		if err != nil {
			t.Fatalf("the stream ended after %d bytes: %v", read, err)
		}
		read += len(msg)
		m, err := proto.Decode(msg)
		if err != nil {
			t.Fatal(err)
		}
		switch m := m.(type) {
		case *proto.Welcome:
			welcomed = true
			// Say something on the stream, as a page's chat does: the room says it back.
			if _, err := str.Write(proto.AppendFrame(nil, marshal(t, &proto.Chat{Text: said}))); err != nil {
				t.Fatal(err)
			}
		case *proto.Chat:
			echoed = m.Text == said
		}
		return !echoed
	})
	if !welcomed || !echoed || read < 2*window {
		t.Fatalf("read %d bytes (welcomed %v, chat echoed %v), want both and past %d", read, welcomed, echoed, 2*window)
	}
}
