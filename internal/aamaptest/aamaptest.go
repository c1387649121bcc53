// Package aamaptest gives tests Armagetron's ten stock maps, which Debian's
// armagetronad-common installs (scripts/install-armagetron-maps.sh; no map
// file is copied into this repository).
package aamaptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// Dir is where the package puts the maps (aamap.ResourceDir).
const Dir = "/usr/share/games/armagetronad/resource/included"

// Stock are the ten maps of armagetronad-common, relative to Dir.
var Stock = []string{
	"Anonymous/polygon/regular/square-1.0.1.aamap.xml",
	"Anonymous/polygon/regular/diamond-1.0.2.aamap.xml",
	"Anonymous/polygon/regular/40-gon-0.2.aamap.xml",
	"Your_mom/clever/inaktek-0.7.2.aamap.xml",
	"Your_mom/clever/repeat-0.3.2.aamap.xml",
	"Z-Man/fortress/for_old_clients-0.1.0.aamap.xml",
	"Z-Man/fortress/fourfold_for_old_clients-0.1.0.aamap.xml",
	"Z-Man/fortress/sumo_4x4-0.1.1.aamap.xml",
	"Z-Man/fortress/sumo_8x2-0.1.0.aamap.xml",
	"Z-Man/fortress/zonetest-0.1.0.aamap.xml",
}

var install sync.Once

// Paths returns the ten maps' paths, installing the package first when they
// are missing (natively; under WebAssembly, where no script runs, a missing
// map fails the test: `make test-wasm` installs them first).
func Paths(t testing.TB) []string {
	t.Helper()
	missing := func() bool {
		for _, p := range Stock {
			if _, err := os.Stat(filepath.Join(Dir, p)); err != nil {
				return true
			}
		}
		return false
	}
	if missing() && runtime.GOOS != "js" {
		install.Do(func() {
			_, file, _, _ := runtime.Caller(0)
			script := filepath.Join(filepath.Dir(file), "..", "..", "scripts", "install-armagetron-maps.sh")
			if out, err := exec.Command(script).CombinedOutput(); err != nil {
				t.Logf("%s: %v\n%s", script, err, out)
			}
		})
	}
	if missing() {
		t.Fatalf("Armagetron's maps are not in %s: run scripts/install-armagetron-maps.sh", Dir)
	}
	out := make([]string, len(Stock))
	for i, p := range Stock {
		out[i] = filepath.Join(Dir, p)
	}
	return out
}
