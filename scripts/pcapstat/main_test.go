package main

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// pcap builds a little-endian pcap of Ethernet frames around IPv4 packets.
func pcap(pkts ...[]byte) []byte {
	var b bytes.Buffer
	h := make([]byte, 24)
	binary.LittleEndian.PutUint32(h[0:], 0xa1b2c3d4)
	binary.LittleEndian.PutUint16(h[4:], 2)
	binary.LittleEndian.PutUint16(h[6:], 4)
	binary.LittleEndian.PutUint32(h[16:], 96)
	binary.LittleEndian.PutUint32(h[20:], 1)
	b.Write(h)
	for i, p := range pkts {
		frame := append(make([]byte, 14), p...)
		if len(frame) > 96 {
			frame = frame[:96] // a short snap length: sizes come from the IP header
		}
		r := make([]byte, 16)
		binary.LittleEndian.PutUint32(r[0:], uint32(100+i)) // one packet a second
		binary.LittleEndian.PutUint32(r[8:], uint32(len(frame)))
		binary.LittleEndian.PutUint32(r[12:], uint32(len(p)+14))
		b.Write(r)
		b.Write(frame)
	}
	return b.Bytes()
}

// ipv4 makes an IPv4 packet of size bytes with the given protocol and ports.
func ipv4(size int, proto byte, src, dst uint16) []byte {
	p := make([]byte, size)
	p[0] = 0x45
	binary.BigEndian.PutUint16(p[2:], uint16(size))
	p[9] = proto
	binary.BigEndian.PutUint16(p[20:], src)
	binary.BigEndian.PutUint16(p[22:], dst)
	return p
}

func TestCount(t *testing.T) {
	data := pcap(
		ipv4(52, 6, 40000, 8080),     // up: a TCP acknowledgement
		ipv4(400, 6, 8080, 40000),    // down: TCP data, cut by the snap length
		ipv4(90, 17, 8080, 50000),    // down: a QUIC datagram
		ipv4(60, 17, 50000, 8080),    // up: QUIC
		ipv4(60, 17, 50000, 9999),    // another port: not counted
		ipv4(60, 1, 8080, 8080)[:30], // not TCP or UDP
	)
	r, err := count(bytes.NewReader(data), 8080)
	if err != nil {
		t.Fatal(err)
	}
	if r.Down.Packets != 2 || r.Down.Bytes != 490 || r.Up.Packets != 2 || r.Up.Bytes != 112 {
		t.Fatalf("down %+v up %+v, want 2 packets of 490 bytes down, 2 of 112 up", r.Down, r.Up)
	}
	if r.Seconds != 3 {
		t.Fatalf("%v s between the first and last counted packets, want 3", r.Seconds)
	}
	if _, err := count(bytes.NewReader([]byte("not a capture at all, no")), 8080); err == nil {
		t.Fatal("a file that is no pcap was read")
	}
}
