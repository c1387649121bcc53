package sim

import (
	"testing"

	"webtron/internal/detcheck"
)

// TestImportRules guards determinism: the simulation must compute
// bit-identical states natively and in WebAssembly, so it may not touch
// floats, clocks, randomness, goroutines, maps or package-level mutable state.
func TestImportRules(t *testing.T) {
	detcheck.Check(t, []string{"errors", "encoding/binary", "math/bits"}, 5)
}
