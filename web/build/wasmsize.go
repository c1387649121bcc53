package main

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// The core's size by package: `go run ./web/build -sizes` builds the core
// again with its name section (the served one is built without) and prints
// the code bytes of each package, largest first, and the data. `go tool nm`
// does not read WebAssembly; this reads the two sections it needs.

// wasmCode returns the code bytes of each function of a WebAssembly module
// by the name its name section gives it (Go writes "pkg.Func" and
// "pkg.(*T).Method" with / . ( ) * turned to _ and dots kept between
// the parts: "webtron_sim.__State_.ray"), and the bytes of its data section.
func wasmCode(b []byte) (funcs map[string]int, data int, err error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, 0, errors.New("not a WebAssembly module")
	}
	imports := 0
	var sizes []int
	names := map[int]string{}
	for r := (wasmReader{b: b, i: 8}); r.i < len(b); {
		id := r.byte()
		n := int(r.uleb())
		end := r.i + n
		if r.err != nil || end > len(b) {
			return nil, 0, errors.New("truncated section")
		}
		sec := wasmReader{b: b[:end], i: r.i}
		switch id {
		case 2: // imports: functions imported take the first indices
			for range sec.uleb() {
				sec.skip(int(sec.uleb())) // module
				sec.skip(int(sec.uleb())) // name
				switch sec.byte() {
				case 0: // function
					sec.uleb()
					imports++
				case 1: // table
					sec.byte()
					sec.limits()
				case 2: // memory
					sec.limits()
				case 3: // global
					sec.skip(2)
				}
			}
		case 10: // code
			for range sec.uleb() {
				size := int(sec.uleb())
				sizes = append(sizes, size)
				sec.skip(size)
			}
		case 11:
			data = n
		case 0: // custom: the name section's function names
			if string(sec.bytes(int(sec.uleb()))) != "name" {
				break
			}
			for sec.i < end && sec.err == nil {
				sub := sec.byte()
				subEnd := int(sec.uleb()) + sec.i
				if sub == 1 {
					for range sec.uleb() {
						idx := int(sec.uleb())
						names[idx] = string(sec.bytes(int(sec.uleb())))
					}
				}
				sec.i = subEnd
			}
		}
		if sec.err != nil {
			return nil, 0, fmt.Errorf("section %d: %w", id, sec.err)
		}
		r.i = end
	}
	if len(names) == 0 {
		return nil, 0, errors.New("no function names: built with -ldflags=-s?")
	}
	funcs = map[string]int{}
	for i, size := range sizes {
		funcs[names[imports+i]] += size
	}
	return funcs, data, nil
}

// wasmReader reads a WebAssembly module's encodings; the first error sticks.
type wasmReader struct {
	b   []byte
	i   int
	err error
}

func (r *wasmReader) uleb() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[min(r.i, len(r.b)):])
	if n <= 0 {
		r.err = io.ErrUnexpectedEOF
		return 0
	}
	r.i += n
	return v
}

func (r *wasmReader) bytes(n int) []byte {
	if r.err != nil || n < 0 || r.i+n > len(r.b) {
		r.err = io.ErrUnexpectedEOF
		return nil
	}
	r.i += n
	return r.b[r.i-n : r.i]
}

func (r *wasmReader) skip(n int) { r.bytes(n) }

func (r *wasmReader) byte() byte {
	if b := r.bytes(1); b != nil {
		return b[0]
	}
	return 0
}

// limits skips a table's or a memory's limits: a flag, a minimum, a maximum if flagged.
func (r *wasmReader) limits() {
	if r.byte()&1 != 0 {
		r.uleb()
	}
	r.uleb()
}

// wasmPackage is the package of a function named as in the name section:
// what comes before the first dot after the last slash-turned-underscore
// part ("webtron_replay_playback.New" -> "webtron_replay_playback").
func wasmPackage(fn string) string {
	pkg, _, _ := strings.Cut(fn, ".")
	return pkg
}

// namedCore builds the core as buildWasm does but keeps its name section,
// and returns the code bytes of its functions and its data bytes (wasmCode).
func namedCore(web string, stdout io.Writer) (funcs map[string]int, data int, err error) {
	out := filepath.Join(os.TempDir(), fmt.Sprintf("webtron-names-%d.wasm", os.Getpid()))
	defer os.Remove(out)
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, "./web/wasm")
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = filepath.Dir(web), append(os.Environ(), "GOOS=js", "GOARCH=wasm"), stdout, stdout
	if err := cmd.Run(); err != nil {
		return nil, 0, fmt.Errorf("go build ./web/wasm: %w", err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, 0, err
	}
	return wasmCode(b)
}

// printSizes builds the core with its name section and prints its code by
// package.
func printSizes(w io.Writer, web string) error {
	funcs, data, err := namedCore(web, os.Stderr)
	if err != nil {
		return err
	}
	byPkg := map[string]int{}
	total := 0
	for fn, n := range funcs {
		byPkg[wasmPackage(fn)] += n
		total += n
	}
	pkgs := make([]string, 0, len(byPkg))
	for p := range byPkg {
		pkgs = append(pkgs, p)
	}
	slices.SortFunc(pkgs, func(a, b string) int { return cmp.Or(cmp.Compare(byPkg[b], byPkg[a]), cmp.Compare(a, b)) })
	fmt.Fprintf(w, "web/build: webtron.wasm: %d bytes of code in %d functions, %d of data (strings, types, the runtime's tables of functions and lines)\n", total, len(funcs), data)
	for _, p := range pkgs {
		if byPkg[p] >= 1000 {
			fmt.Fprintf(w, "web/build:   %8d  %s\n", byPkg[p], p)
		}
	}
	for _, p := range strings.Split(sizesOf, ",") {
		var names []string
		for fn := range funcs {
			if p != "" && wasmPackage(fn) == p {
				names = append(names, fn)
			}
		}
		slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(funcs[b], funcs[a]), cmp.Compare(a, b)) })
		for _, fn := range names {
			fmt.Fprintf(w, "web/build:   %8d  %s\n", funcs[fn], fn)
		}
	}
	return nil
}

// sizesOf names the packages whose functions -sizes lists one by one (-sizes-of).
var sizesOf string
