package replay

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadFileOnlyRegularFiles: `webtron replay /dev/zero` used to allocate
// 2.7 GB and die (a device says its size is 0 and never ends); a FIFO would
// block. Only a regular file is read, through MaxFileSize.
func TestReadFileOnlyRegularFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/dev/zero", fifo, t.TempDir()} {
		done := make(chan error, 1)
		go func() {
			_, err := ReadFile(path)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotReplay) || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("ReadFile(%s): %v, want ErrNotReplay: not a regular file", path, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("ReadFile(%s) still reading after 5 s", path)
		}
	}
	big := filepath.Join(t.TempDir(), "big"+Ext)
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxFileSize+1); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(big); !errors.Is(err, ErrNotReplay) {
		t.Errorf("a file over MaxFileSize: %v, want ErrNotReplay", err)
	}
}

// TestSummaryEscapesNames: player names come from the file and are printed
// quoted, as room names are: no terminal control sequence gets through.
func TestSummaryEscapesNames(t *testing.T) {
	f := sampleFile(t)
	f.Names = append([]string(nil), f.Names...)
	f.Names[0] = "evil\x1b[2J\x1b]0;pwned\x07\u202e"
	f.Room = "room\x1b[31m"
	s, err := Verify(f)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	s.Print(&out, f)
	if strings.ContainsAny(out.String(), "\x1b\x07\u202e") {
		t.Fatalf("raw control characters in the summary:\n%q", out.String())
	}
	if !strings.Contains(out.String(), `"evil\x1b[2J\x1b]0;pwned\a\u202e"`) {
		t.Fatalf("the name is not shown escaped:\n%s", out.String())
	}
}
