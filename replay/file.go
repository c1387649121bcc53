//go:build !js

package replay

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Files are read and written natively only: the browser's core, which
// plays replays, gets their bytes from the page and links neither os nor
// fmt (a third of its size).

// ReadFile reads and decodes the file at path. Only a regular file is read
// (a device such as /dev/zero never ends, a FIFO blocks), and never more than
// MaxFileSize bytes of it, whatever its size said when it was opened.
func ReadFile(path string) (*File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file (%v)", ErrNotReplay, path, fi.Mode().Type())
	}
	if fi.Size() > MaxFileSize {
		return nil, fmt.Errorf("%w: %s is %d bytes, more than any replay", ErrNotReplay, path, fi.Size())
	}
	fd, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer fd.Close()
	if fi, err := fd.Stat(); err != nil || !fi.Mode().IsRegular() { // replaced since the Stat
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrNotReplay, path)
	}
	b, err := io.ReadAll(io.LimitReader(fd, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if len(b) > MaxFileSize {
		return nil, fmt.Errorf("%w: %s grew past %d bytes, more than any replay", ErrNotReplay, path, MaxFileSize)
	}
	f, err := Unmarshal(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// TempPrefix starts the name of a file WriteFile is writing (a crash may
// leave one behind).
const TempPrefix = ".tmp-"

// WriteFile writes f to path, creating its directory. It writes a temporary
// file and renames it, so a crash or a full disk never leaves a half file
// under the final name.
func WriteFile(path string, f *File) error {
	b, err := Marshal(f)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	// Not named *.wtr: whoever lists the replays must not find it half written.
	tmp, err := os.CreateTemp(dir, TempPrefix+"*.part")
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("replay: %w", err)
	}
	return nil
}
