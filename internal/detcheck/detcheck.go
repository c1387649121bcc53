// Package detcheck enforces the determinism rules on a package's source: the
// simulation and the bot must compute bit-identical results natively and in
// WebAssembly, so their non-test files may not use floats, goroutines,
// select, maps, package-level variables (sentinel errors aside) or imports
// outside an allowed list. Their tests call Check on their own directory.
package detcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Check parses the non-test .go files of the current directory and reports
// every breach of the rules; allowed lists the import paths (unquoted) the
// package may use. It fails if it finds fewer than minFiles files, so a test
// run from the wrong directory cannot pass by checking nothing.
func Check(t testing.TB, allowed []string, minFiles int) {
	t.Helper()
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[`"`+a+`"`] = true
	}
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
			if !ok[imp.Path.Value] {
				t.Errorf("%s imports %s; allowed: %s", name, imp.Path.Value, strings.Join(allowed, ", "))
			}
		}
		for _, d := range f.Decls {
			if g, isGen := d.(*ast.GenDecl); isGen && g.Tok == token.VAR {
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
			case *ast.SelectStmt:
				t.Errorf("%s: select statement", fset.Position(n.Pos()))
			case *ast.MapType:
				t.Errorf("%s: map type (iteration order is random)", fset.Position(n.Pos()))
			}
			return true
		})
	}
	if checked < minFiles {
		t.Fatalf("checked only %d files: is the test running in the package's directory?", checked)
	}
}
