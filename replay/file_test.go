//go:build !js

package replay

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// TestWriteFileNeverShowsHalfFile: whoever lists the replays (*.wtr) while
// files are being written only ever finds whole files (a temporary file
// named like a replay was found, and gone by the time it was read).
func TestWriteFileNeverShowsHalfFile(t *testing.T) {
	f := sampleFile(t)
	dir := t.TempDir()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 300; i++ {
			if err := WriteFile(filepath.Join(dir, strconv.Itoa(i)+Ext), f); err != nil {
				t.Error(err)
				return
			}
		}
		close(done)
	}()
	for {
		select {
		case <-done:
			wg.Wait()
			return
		default:
		}
		names, _ := filepath.Glob(filepath.Join(dir, "*"+Ext))
		for _, name := range names {
			if _, err := ReadFile(name); errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("%s was listed and then gone: a temporary file looks like a replay", filepath.Base(name))
			} else if err != nil {
				t.Fatal(err)
			}
		}
	}
}
