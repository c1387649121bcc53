package server

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"

	"webtron/bot"
	"webtron/proto"
)

// Practice rooms (the lobby's Practice, docs/protocol.md section 7): POST
// /api/practice opens a private room against bots of the skill asked for,
// under a name the server draws, and the page then joins it by that name
// like any room. The room is left out of every listing, refuses spectators
// and a second player (room.Config.Private), and counts against the
// address's new rooms (--rooms-per-addr) and --max-rooms like any other.

// practicePrefix begins every Practice room's name, and only theirs: a
// Hello for such a room that is not open is refused, not a new public room.
const practicePrefix = "practice-"

// isPractice reports whether name is a Practice room's.
func isPractice(name string) bool { return strings.HasPrefix(name, practicePrefix) }

// practiceName draws a room name nobody can guess: 100 random bits.
func practiceName() string {
	var b [15]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return practicePrefix + strings.ToLower(base32.StdEncoding.EncodeToString(b[:]))[:20]
}

// reasonPracticeGone refuses a Hello for a Practice room that is not open
// (it closed once empty, or never was): the page goes back to the lobby.
var reasonPracticeGone = reason{label: "practice_gone", code: proto.CloseBadName,
	text: "this practice room has closed: start another from the lobby", status: websocket.StatusPolicyViolation, tell: true}

// practiceRequest is /api/practice's body.
type practiceRequest struct {
	Skill *int   `json:"skill"`
	Map   string `json:"map"` // an id of /api/maps; "" the default
}

// practiceAnswer is /api/practice's answer: the room to join.
type practiceAnswer struct {
	Room  string `json:"room"`
	Skill int    `json:"skill"`
}

// servePractice is POST /api/practice {"skill": 1..100, "map": ID}: it
// opens a Practice room (on that map of /api/maps, optional) and answers
// 201 {"room": NAME, "skill": N}. Only a page of
// this server's origin (or an --origin) may ask, in JSON, which a form of
// another site cannot send without a preflight that is never answered; the
// address's room quota answers 429, a full or closing server 503.
func (s *Server) servePractice(w http.ResponseWriter, r *http.Request) {
	fail := func(status int, text string) { plainError(w, status, text) }
	if !s.pagePost(w, r, `send {"skill": N} as application/json`) {
		return
	}
	var req practiceRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 256))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || req.Skill == nil {
		fail(http.StatusBadRequest, `want {"skill": N}`)
		return
	}
	if k := *req.Skill; k < bot.MinSkill || k > bot.MaxSkill {
		fail(http.StatusBadRequest, fmt.Sprintf("skill %d is not %d..%d", k, bot.MinSkill, bot.MaxSkill))
		return
	}
	mp := s.mapFor(req.Map)
	if mp == nil {
		fail(http.StatusBadRequest, reasonBadMap(req.Map).text)
		return
	}
	name, why := s.openPractice(r, *req.Skill, mp)
	if why != nil {
		status := http.StatusServiceUnavailable
		if why == &reasonAddrRooms {
			status = http.StatusTooManyRequests
			w.Header().Set("Retry-After", strconv.Itoa(60/max(1, s.cfg.RoomsPerAddr)))
		}
		fail(status, why.text)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(practiceAnswer{Room: name, Skill: *req.Skill})
}

// openPractice opens a Practice room of skill on map mp for the client of
// r; in a cluster it takes the room's lease first, so that the join,
// wherever it lands, comes here.
func (s *Server) openPractice(r *http.Request, skill int, mp *roomMap) (string, *reason) {
	name := practiceName()
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return "", &reasonShutdown
	}
	if s.cl != nil && s.cl.draining.Load() {
		s.mu.Unlock()
		return "", &reasonDrain
	}
	_, why := s.openRoom(name, addrKey(s.clientAddr(r)), skill, mp)
	s.mu.Unlock()
	if why != nil || s.cl == nil {
		return name, why
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	if owner, err := s.cl.node.Acquire(ctx, name); err != nil || owner.Node != s.cl.node.Name() || owner.Incarnation != s.cl.node.Incarnation() {
		s.evict(name, reasonBusy)
		return "", &reasonBusy
	}
	return name, nil
}

// plainError answers status with text, never cached.
func plainError(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	fmt.Fprintln(w, text)
}

// pagePost checks a POST the page makes to the API (/api/practice,
// /api/client-error): from this server's origin (or an --origin), in JSON,
// which a form of another site cannot send without a preflight that is
// never answered. It answers the refusal itself (403, or 415 with want) and
// reports whether the request may go on.
func (s *Server) pagePost(w http.ResponseWriter, r *http.Request, want string) bool {
	if !s.originAllowed(r) {
		plainError(w, http.StatusForbidden, "origin not allowed")
		return false
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		plainError(w, http.StatusUnsupportedMediaType, want)
		return false
	}
	return true
}
