package sim

// RulesVersion numbers the simulation's rules as far as their results go:
// two builds with the same RulesVersion step every state to the same next
// state. Bump it with any change that alters a hash (the golden hashes in
// testdata/golden_random.txt record the version they were made with, and
// TestGolden fails when they change under the same version). Replays record
// it, so that a round written by an older simulation is refused with that
// reason instead of failing to decode or to match its hashes.
//
// 2: a round start empties the slots nobody holds (issue 21).
// 3: the state keeps each player's and team's points this round (issue 22).
// 4: Armagetron's premature input, legitimate wins, tied matches playing on,
// AI teams spawning apart (issue 24).
// 5: a dead cycle's walls stay deadly 0.2 s past WALLS_STAY_UP_DELAY (issue 24).
// 6: with no rubber left (or none granted) a cycle rides into the wall at its speed (issue 24).
// 7: players of one machine are not enemies (ALLOW_ENEMIES_SAME_IP; issue 24).
// 8: Armagetron's maps (Config.Map: walls at any angle, spawn points; issue 24).
// 9: a turn is made at the instant within its tick that its event carries,
// and turn delays count from those instants (issue 24).
// 10: a map's zones: win, death and fortress (FORTRESS_*; issue 24).
// 11: SPAWN_POINT_GROUP_SIZE (issue 24).
// 12: a map's Axes other than 4 played: turns of 360/Axes degrees, slanted
// trails (issue 24); maps of 4 axes and the square play as under 11.
// 13: on those maps a cycle is held short of a wall by the rounding of its
// position, and only its own wall ending where a leg starts is the corner
// it just left (TestSlantHitRoundedPoint, TestSlantedOwnTrailAfterTurn).
const RulesVersion = 13
