package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"webtron/proto"
	"webtron/sim"
	"webtron/web/view"
)

// LayoutFile is where the build writes the TypeScript mirror of the Go
// constants the page shares with the core, relative to web/.
const LayoutFile = "src/core/layout.ts"

// constant is one TypeScript name and its Go value.
type constant struct {
	name  string
	value int64
}

// group is a TypeScript object of constants (`export const H = {...}`).
type group struct {
	name, doc string
	fields    []constant
}

// layoutGroups lists what the page reads: each value comes from the Go
// constant itself, so the TypeScript copy cannot drift; a Go constant the
// page needs and this list lacks is a compile error in the page, not a
// wrong number.
func layoutGroups() []group {
	return []group{
		{"H", "Header word offsets.", []constant{
			{"magic", view.HMagic}, {"tick", view.HTick}, {"you", view.HYou}, {"phase", view.HPhase},
			{"phaseEnd", view.HPhaseEnd}, {"round", view.HRound}, {"match", view.HMatch}, {"winner", view.HWinner},
			{"tickRate", view.HTickRate}, {"arena", view.HArena}, {"turnDelayMs", view.HTurnDelayMs},
			{"deadWallTicks", view.HDeadWallTicks}, {"wallsLength", view.HWallsLength}, {"cycles", view.HCycles},
			{"wallTotal", view.HWallTotal}, {"wallFrom", view.HWallFrom}, {"wallN", view.HWallN},
			{"updateMicros", view.HUpdateMicros}, {"flags", view.HFlags}, {"rubber", view.HRubber},
			{"baseSpeed", view.HBaseSpeed}, {"teamMax", view.HTeamMax}, {"teams", view.HTeams},
			{"zoneX", view.HZoneX}, {"zoneY", view.HZoneY}, {"zoneRadius", view.HZoneRadius}, {"zoneOpen", view.HZoneOpen},
			{"explN", view.HExplN}, {"holeN", view.HHoleN}, {"explosionRadius", view.HExplosionRadius},
			{"matchOver", view.HMatchOver}, {"limitRounds", view.HLimitRounds},
			{"teamScore", view.HTeamScore}, {"teamRound", view.HTeamRound}, {"mapN", view.HMapN}, {"mapZoneN", view.HMapZoneN},
		}},
		{"C", "Cycle record word offsets.", []constant{
			{"flags", view.CFlags}, {"dir", view.CDir}, {"x", view.CX}, {"y", view.CY}, {"turnX", view.CTurnX},
			{"turnY", view.CTurnY}, {"speed", view.CSpeed}, {"score", view.CScore}, {"kills", view.CKills},
			{"deaths", view.CDeaths}, {"deathTick", view.CDeathTick}, {"brake", view.CBrake},
			{"rubberUsed", view.CRubberUsed}, {"odo", view.COdo}, {"segOdo", view.CSegOdo},
			{"killer", view.CKiller}, {"cause", view.CCause}, {"team", view.CTeam}, {"roundScore", view.CRoundScore},
			{"axes", view.CAxes},
		}},
		{"CF", "Cycle flag bits.", []constant{
			{"present", view.CyclePresent}, {"inRound", view.CycleInRound}, {"alive", view.CycleAlive},
			{"braking", view.CycleBraking}, {"walls", view.CycleWalls}, {"human", view.CycleHuman},
		}},
		{"E", "Explosion record word offsets.", []constant{
			{"x", view.EX}, {"y", view.EY}, {"radius", view.ERadius}, {"age", view.EAge}, {"owner", view.EOwner},
		}},
		{"Ho", "Hole record word offsets.", []constant{
			{"owner", view.HoOwner}, {"from", view.HoFrom}, {"to", view.HoTo},
		}},
		{"Z", "Map zone record word offsets.", []constant{
			{"x", view.ZX}, {"y", view.ZY}, {"radius", view.ZRadius}, {"effect", view.ZEffect}, {"state", view.ZState},
			{"owner", view.ZOwner}, {"conquered", view.ZConquered},
		}},
		{"ZoneEffect", "sim.Map zone effects.", []constant{
			{"Death", sim.ZoneDeath}, {"Win", sim.ZoneWin}, {"Fortress", sim.ZoneFortress},
		}},
		{"ZoneState", "sim.ZoneState states.", []constant{
			{"Open", sim.ZoneOpen}, {"Collapsing", sim.ZoneCollapsing}, {"Gone", sim.ZoneGone},
		}},
		{"W", "Wall record word offsets.", []constant{
			{"x1", view.WX1}, {"y1", view.WY1}, {"x2", view.WX2}, {"y2", view.WY2}, {"odo", view.WOdo}, {"owner", view.WOwner},
		}},
		{"Cause", "sim.DeathCause values: why a cycle died (the kill feed).", []constant{
			{"None", int64(sim.CauseNone)}, {"Rim", int64(sim.CauseRim)}, {"Wall", int64(sim.CauseWall)},
			{"OwnWall", int64(sim.CauseOwnWall)}, {"Collision", int64(sim.CauseCollision)}, {"Left", int64(sim.CauseLeft)},
			{"Zone", int64(sim.CauseZone)},
		}},
		{"Phase", "sim.Phase values.", []constant{
			{"Waiting", int64(sim.PhaseWaiting)}, {"Prepare", int64(sim.PhasePrepare)},
			{"Play", int64(sim.PhasePlay)}, {"Over", int64(sim.PhaseOver)},
		}},
		{"Press", "sim.EventKind values a player may press.", []constant{
			{"Left", int64(sim.EvTurnLeft)}, {"Right", int64(sim.EvTurnRight)},
			{"BrakeOn", int64(sim.EvBrakeOn)}, {"BrakeOff", int64(sim.EvBrakeOff)},
		}},
		{"Msg", "proto.Type values the worker looks at (a message's first byte).", []constant{
			{"Ping", int64(proto.TypePing)},
		}},
		{"Close", "proto.CloseCode values: why the server closed the connection.", []constant{
			{"Other", int64(proto.CloseOther)}, {"Protocol", int64(proto.CloseProtocol)},
			{"Version", int64(proto.CloseVersion)}, {"RoomFull", int64(proto.CloseRoomFull)},
			{"BadName", int64(proto.CloseBadName)}, {"NameTaken", int64(proto.CloseNameTaken)},
			{"BadToken", int64(proto.CloseBadToken)}, {"Replaced", int64(proto.CloseReplaced)},
			{"Kicked", int64(proto.CloseKicked)}, {"Timeout", int64(proto.CloseTimeout)},
			{"Shutdown", int64(proto.CloseShutdown)}, {"AddrLimit", int64(proto.CloseAddrLimit)},
		}},
	}
}

// layoutTS renders the TypeScript module.
func layoutTS() []byte {
	var b bytes.Buffer
	b.WriteString("// Generated by web/build from the Go constants (web/build/layout.go): do not\n")
	b.WriteString("// edit. The frame buffer layout is described in web/view/view.go; every value\n")
	b.WriteString("// is an int32 word, distances in millimetres.\n\n")
	for _, c := range []struct {
		name, doc string
		v         int64
	}{
		{"MAGIC", "Layout version, header word 0.", view.Magic},
		{"HEADER_WORDS", "", view.HeaderWords},
		{"CYCLE_WORDS", "", view.CycleWords},
		{"WALL_WORDS", "", view.WallWords},
		{"EXPL_WORDS", "", view.ExplWords},
		{"HOLE_WORDS", "", view.HoleWords},
		{"MAP_WORDS", "", view.MapWords},
		{"ZONE_WORDS", "", view.ZoneWords},
		{"EXPLOSION_LIFE", "sim.ExplosionLife: seconds an explosion record lasts.", sim.ExplosionLife},
		{"NO_TEAM", "sim.NoTeam: the team of a player not yet dealt one.", sim.NoTeam},
		{"MAX_PLAYERS", "sim.MaxPlayers: cycle records in a frame.", sim.MaxPlayers},
		{"FLAG_NOTICES", "Header flag: notices (chat, server errors) wait in core.notices().", view.FlagNotices},
		{"MAX_DATAGRAM", "proto.MaxDatagram: the largest WebTransport datagram payload a peer sends.", proto.MaxDatagram},
		{"MAX_MESSAGE", "The largest message a client accepts: proto.MaxSize of a Welcome.", int64(proto.MaxSize(proto.TypeWelcome))},
	} {
		if c.doc != "" {
			fmt.Fprintf(&b, "/** %s */\n", c.doc)
		}
		fmt.Fprintf(&b, "export const %s = %s;\n", c.name, tsInt(c.v))
	}
	for _, g := range layoutGroups() {
		fmt.Fprintf(&b, "\n/** %s */\nexport const %s = {\n", g.doc, g.name)
		for _, f := range g.fields {
			fmt.Fprintf(&b, "  %s: %d,\n", f.name, f.value)
		}
		b.WriteString("} as const;\n")
	}
	// The WebTransport dial packs messages as proto.Packer does: these
	// types may go as datagrams, the others go on the stream.
	var safe []string
	for t := proto.Type(1); t < 255; t++ {
		if t.DatagramSafe() {
			safe = append(safe, fmt.Sprint(int(t)))
		}
	}
	fmt.Fprintf(&b, "\n/** proto.Type values that may travel as datagrams (proto.Type.DatagramSafe). */\nexport const DATAGRAM_SAFE: readonly number[] = [%s];\n", strings.Join(safe, ", "))
	b.WriteString("\nexport type PressKind = (typeof Press)[keyof typeof Press];\n")
	return b.Bytes()
}

func tsInt(v int64) string {
	if v > 0xffff {
		return fmt.Sprintf("0x%x", v)
	}
	return fmt.Sprint(v)
}

// writeLayout writes layout.ts when its content changed (an unchanged file
// keeps its time stamp, so editors and tsc do not see a change).
func writeLayout(web string) error {
	path := filepath.Join(web, filepath.FromSlash(LayoutFile))
	want := layoutTS()
	if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, want) {
		return nil
	}
	return os.WriteFile(path, want, 0o644)
}
