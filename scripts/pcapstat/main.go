// Command pcapstat counts a capture's IP packets and bytes each way between
// a server port and its clients, for scripts/bandwidth.sh: bytes are whole
// IP packets (headers included, as a network carries them), so TCP's and
// QUIC's acknowledgements count like anything else.
//
//	pcapstat -port 8080 -seconds 60 capture.pcap
//
// It reads classic pcap files (tcpdump -w) of Ethernet (Linux loopback) or
// raw IP frames, IPv4 and IPv6, and prints JSON.
package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// way is one direction's count.
type way struct {
	Packets     int64   `json:"packets"`
	Bytes       int64   `json:"ip_bytes"`
	PacketsPerS float64 `json:"packets_per_s"`
	BytesPerS   float64 `json:"bytes_per_s"`
}

type result struct {
	Seconds float64 `json:"seconds"`
	Down    way     `json:"down"` // from the server port
	Up      way     `json:"up"`   // to the server port
}

func main() {
	port := flag.Int("port", 8080, "the server's port (TCP and UDP)")
	seconds := flag.Float64("seconds", 0, "divide by this many seconds (default: from the first packet to the last)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: pcapstat -port P [-seconds S] capture.pcap")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	r, err := count(f, uint16(*port))
	if err != nil {
		fmt.Fprintln(os.Stderr, "pcapstat:", err)
		os.Exit(1)
	}
	if *seconds > 0 {
		r.Seconds = *seconds
	}
	for _, w := range []*way{&r.Down, &r.Up} {
		if r.Seconds > 0 {
			w.PacketsPerS = float64(w.Packets) / r.Seconds
			w.BytesPerS = float64(w.Bytes) / r.Seconds
		}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.Encode(r)
}

// count reads a pcap stream and counts packets to and from port.
func count(rd io.Reader, port uint16) (*result, error) {
	var gh [24]byte
	if _, err := io.ReadFull(rd, gh[:]); err != nil {
		return nil, fmt.Errorf("pcap header: %w", err)
	}
	var bo binary.ByteOrder
	nano := false
	switch binary.LittleEndian.Uint32(gh[:4]) {
	case 0xa1b2c3d4:
		bo = binary.LittleEndian
	case 0xa1b23c4d:
		bo, nano = binary.LittleEndian, true
	case 0xd4c3b2a1:
		bo = binary.BigEndian
	case 0x4d3cb2a1:
		bo, nano = binary.BigEndian, true
	default:
		return nil, errors.New("not a pcap file (pcapng is not read: use tcpdump -w)")
	}
	link := bo.Uint32(gh[20:24])
	r := &result{}
	var first, last float64
	var rh [16]byte
	buf := make([]byte, 1<<16)
	for n := 0; ; n++ {
		if _, err := io.ReadFull(rd, rh[:]); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
		frac := float64(bo.Uint32(rh[4:8])) / 1e6
		if nano {
			frac /= 1e3
		}
		ts := float64(bo.Uint32(rh[0:4])) + frac
		caplen := int(bo.Uint32(rh[8:12]))
		if caplen > len(buf) {
			return nil, fmt.Errorf("record %d: %d bytes", n, caplen)
		}
		if _, err := io.ReadFull(rd, buf[:caplen]); err != nil {
			return nil, err
		}
		pkt := buf[:caplen]
		switch link {
		case 1: // Ethernet: loopback on Linux
			if len(pkt) < 14 {
				continue
			}
			pkt = pkt[14:]
		case 101, 12: // raw IP
		case 113: // Linux cooked
			if len(pkt) < 16 {
				continue
			}
			pkt = pkt[16:]
		default:
			return nil, fmt.Errorf("link type %d not read", link)
		}
		size, src, dst, ok := ipPorts(pkt)
		if !ok {
			continue
		}
		var w *way
		switch {
		case src == port:
			w = &r.Down
		case dst == port:
			w = &r.Up
		default:
			continue
		}
		w.Packets++
		w.Bytes += int64(size)
		if first == 0 {
			first = ts
		}
		last = ts
	}
	r.Seconds = last - first
	return r, nil
}

// ipPorts returns an IP packet's whole length (from its header, not the
// capture, which may be cut short) and its TCP or UDP ports.
func ipPorts(p []byte) (size int, src, dst uint16, ok bool) {
	if len(p) < 1 {
		return 0, 0, 0, false
	}
	var proto byte
	var hl int
	switch p[0] >> 4 {
	case 4:
		if len(p) < 20 {
			return 0, 0, 0, false
		}
		size, proto, hl = int(binary.BigEndian.Uint16(p[2:4])), p[9], int(p[0]&0xf)*4
	case 6:
		if len(p) < 40 {
			return 0, 0, 0, false
		}
		size, proto, hl = 40+int(binary.BigEndian.Uint16(p[4:6])), p[6], 40
	default:
		return 0, 0, 0, false
	}
	if (proto != 6 && proto != 17) || len(p) < hl+4 {
		return 0, 0, 0, false
	}
	return size, binary.BigEndian.Uint16(p[hl : hl+2]), binary.BigEndian.Uint16(p[hl+2 : hl+4]), true
}
