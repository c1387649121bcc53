//go:build js && wasm

package main

import (
	"strconv"
	"unicode/utf8"

	"webtron/client"
)

// appendInfo writes the HUD's few-times-a-second data as JSON. The field
// names are the contract with web/src/core/core.ts (type Info). It is written
// by hand to keep encoding/json's reflection out of the WebAssembly binary.
func appendInfo(b []byte, in client.Info) []byte {
	b = append(b, `{"tick":`...)
	b = strconv.AppendInt(b, in.Tick, 10)
	b = appendNum(b, "tickRate", float64(in.TickRate))
	b = appendNum(b, "pingMs", in.PingMs)
	b = appendNum(b, "leadMs", in.LeadMs)
	b = appendNum(b, "charityMs", in.CharityMs)
	b = append(b, `,"charityMode":`...)
	b = appendJSONString(b, in.CharityMode)
	b = appendNum(b, "eventsSent", float64(in.EventsSent))
	b = appendNum(b, "eventsReceived", float64(in.EventsReceived))
	b = appendNum(b, "rollbacks", float64(in.Rollbacks))
	b = appendNum(b, "postponed", float64(in.Postponed))
	b = appendNum(b, "lastRollbackDepth", float64(in.LastRollbackDepth))
	b = append(b, `,"players":[`...)
	for i, p := range in.Players {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = strconv.AppendInt(b, int64(p.ID), 10)
		b = append(b, `,"name":`...)
		b = appendJSONString(b, p.Name)
		b = appendBool(b, "bot", p.Bot)
		b = appendBool(b, "spectator", p.Spectator)
		b = appendBool(b, "connected", p.Connected)
		b = appendNum(b, "score", float64(p.Score))
		b = appendNum(b, "latencyMs", p.LatencyMs)
		b = appendNum(b, "leadMs", p.LeadMs)
		b = appendNum(b, "predictedLagMs", p.PredictedLagMs)
		b = appendNum(b, "measuredLagMs", p.MeasuredLagMs)
		b = appendNum(b, "measuredLagN", float64(p.MeasuredLagN))
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// appendNum writes ,"key":v. NaN and infinities (not JSON) become 0.
func appendNum(b []byte, key string, v float64) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	if v != v || v > 1e300 || v < -1e300 {
		v = 0
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}

func appendBool(b []byte, key string, v bool) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return strconv.AppendBool(b, v)
}

// appendJSONString writes s as a JSON string. Player names and chat come from
// other players, so every control character and invalid byte is escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20 || r == 0x2028 || r == 0x2029:
			b = append(b, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
		case r == utf8.RuneError:
			b = append(b, `\ufffd`...)
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}
