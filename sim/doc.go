// Package sim is Webtron's game simulation: a pure, deterministic, fixed-tick step
// function over integer state that plays by Armagetron Advanced 0.2.9's rules
// (docs/physics.md tables every rule and setting, with the test checking it).
//
// The same code runs on the server (amd64) and in the browser (WebAssembly), and
// every machine must compute bit-identical states from the same history, so the
// package follows hard rules, guarded by TestImportRules:
//   - integers only: no float types, no math package (math/bits is integer);
//   - no time, no math/rand, no goroutines, no map iteration, no package-level
//     mutable state: everything lives in State and in Config;
//   - events within a tick are applied in one canonical order (Event.Less).
//
// # Units
//
// Distances are int64 micrometres (Meter = 1,000,000), speeds micrometres per
// second, accelerations micrometres per second squared. Time is counted in ticks
// of the match's fixed tick rate (Config.TickRate, 120 Hz by default); durations
// in Config are milliseconds and are turned into ticks once (rounded up).
// Ratios and rates per second are millionths (Unit = 1,000,000). Rubber is
// measured as micrometres of forward travel denied; the brake reservoir in
// millionths (Unit is a full reservoir).
//
// # Deviations from Armagetron
//
// Armagetron integrates in continuous time with steps split at exact event
// times; this package steps at a fixed tick. Every place where that changes a
// rule carries a comment starting with "Deviation:".
package sim

// Meter is one metre in the simulation's distance unit (micrometres).
const Meter = 1_000_000

// Unit is 1.0 in the simulation's dimensionless fixed point (millionths), used
// for the brake reservoir and for ratios.
const Unit = 1_000_000

// MaxPlayers is the number of player slots in a State. Cycles live in a fixed
// array so that a snapshot is one flat copy whose cost does not depend on
// anything that grows.
const MaxPlayers = 32
