package sim

import "testing"

func TestSmoke(t *testing.T) {
	s, err := NewState(DefaultConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	s.Step([]Event{{Kind: EvJoin, Player: 0}, {Kind: EvJoin, Player: 1}})
	for i := 0; i < 2000; i++ {
		s.Step(nil)
		if i%200 == 0 {
			c0, c1 := s.Cycle(0), s.Cycle(1)
			ph, _ := s.Phase()
			t.Logf("tick %d phase %d c0 %d,%d v=%d alive=%v  c1 %d,%d v=%d alive=%v walls=%d", s.Tick(), ph, c0.X/Meter, c0.Y/Meter, c0.Speed/1000, c0.Alive, c1.X/Meter, c1.Y/Meter, c1.Speed/1000, c1.Alive, s.WallCount())
		}
	}
	t.Logf("hash %x", s.Hash())
}
