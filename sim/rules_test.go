package sim

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportRules guards determinism: the simulation must compute bit-identical
// states natively and in WebAssembly, so it may not touch floats, clocks,
// randomness, goroutines, maps or package-level mutable state.
func TestImportRules(t *testing.T) {
	allowed := map[string]bool{`"errors"`: true, `"fmt"`: true, `"encoding/binary"`: true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			if !allowed[imp.Path.Value] {
				t.Errorf("%s imports %s; the simulation may import only errors, fmt and encoding/binary", name, imp.Path.Value)
			}
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, spec := range g.Specs {
					for _, n := range spec.(*ast.ValueSpec).Names {
						if !strings.HasPrefix(n.Name, "Err") {
							t.Errorf("%s: package-level variable %s (only Err* sentinel errors are allowed)", fset.Position(n.Pos()), n.Name)
						}
					}
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Ident:
				if n.Name == "float32" || n.Name == "float64" || n.Name == "complex64" || n.Name == "complex128" {
					t.Errorf("%s: float type %s", fset.Position(n.Pos()), n.Name)
				}
			case *ast.BasicLit:
				if n.Kind == token.FLOAT || n.Kind == token.IMAG {
					t.Errorf("%s: float literal %s", fset.Position(n.Pos()), n.Value)
				}
			case *ast.GoStmt:
				t.Errorf("%s: goroutine", fset.Position(n.Pos()))
			case *ast.MapType:
				t.Errorf("%s: map type (iteration order is random)", fset.Position(n.Pos()))
			case *ast.SelectStmt:
				t.Errorf("%s: select statement", fset.Position(n.Pos()))
			}
			return true
		})
	}
	if checked < 5 {
		t.Fatalf("checked only %d files: is the test running in the sim directory?", checked)
	}
}
