package bot

import "webtron/sim"

// NewRider returns a scripted rider for player slot player, not an AI: it
// rides straight on and turns only at a wall, as late as it safely can, to
// the side with the longer road; it never brakes, cuts nobody off and sees
// no pocket. It is the yardstick the bots' skill levels are measured
// against (docs/performance.md), much as a newcomer rides.
func NewRider(player int) *Bot {
	return &Bot{id: player, rider: true}
}

// ride is a rider's decision: a turn when the wall ahead is within the road
// the turn delay and a metre of margin take, once the delay allows a turn.
func (b *Bot) ride(s *sim.State, me *sim.Cycle, out []sim.Event) []sim.Event {
	other, same := s.TurnDelay()
	delay := max(other, same)
	if me.QueueLen > 0 || s.Tick()-me.LastTurn() < delay {
		return out
	}
	step := max(1, me.Speed/s.Config().TickRate)
	if g, _ := s.Ray(me.X, me.Y, me.Dir, sim.Meter+3*step, b.id); g < 0 {
		return out
	}
	l, _ := s.Ray(me.X, me.Y, s.Turned(me.Dir, 1), farLook, b.id)
	r, _ := s.Ray(me.X, me.Y, s.Turned(me.Dir, -1), farLook, b.id)
	if r < 0 && l >= 0 || r > l && l >= 0 {
		return b.event(out, sim.EvTurnRight)
	}
	return b.event(out, sim.EvTurnLeft)
}
