// What Go's own type checker says each call on a plain name reaches: the reference of
// bench_graph.py for Go. For every package folder under GOPATH/src/<prefix>, its non-test
// files are type-checked (imports from source, GOPATH mode; errors from missing imports are
// left aside), and each call `x.f(...)` whose `x` is a name prints one JSON line: the file
// and line of the call, the call as written, and the file and line of the declaration it
// reaches ("" when outside GOPATH/src/<prefix> or unknown). With -chains, the calls
// `x.y.f(...)` on a name's field or method value instead; with -results, the calls `g().f()`
// on what a call returns, written `().f`; with -bare, the calls `f(...)` of a name alone.
//
//	GO111MODULE=off GOPATH=DIR go run benchmarks/go_calls.go [-chains|-results|-bare] github.com/spf13/cobra
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type call struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Call    string `json:"call"`
	DefFile string `json:"def_file"`
	DefLine int    `json:"def_line"`
}

func main() {
	chains := len(os.Args) > 2 && os.Args[1] == "-chains"
	results := len(os.Args) > 2 && os.Args[1] == "-results"
	bare := len(os.Args) > 2 && os.Args[1] == "-bare"
	prefix := os.Args[len(os.Args)-1]
	root, err := filepath.EvalSymlinks(filepath.Join(build.Default.GOPATH, "src", prefix))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fset := token.NewFileSet()
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil), Error: func(error) {}}
	var folders []string
	filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err == nil && info.IsDir() {
			folders = append(folders, path)
		}
		return nil
	})
	sort.Strings(folders)
	out := json.NewEncoder(os.Stdout)
	for _, folder := range folders {
		found, err := build.ImportDir(folder, 0)
		if err != nil {
			continue
		}
		var files []*ast.File
		for _, name := range found.GoFiles {
			file, err := parser.ParseFile(fset, filepath.Join(folder, name), nil, 0)
			if err == nil {
				files = append(files, file)
			}
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
		conf.Check(found.ImportPath, fset, files, info)
		emit := func(name *ast.Ident, written string, obj types.Object) {
			at := fset.Position(name.Pos())
			rel, _ := filepath.Rel(root, at.Filename)
			row := call{File: filepath.ToSlash(rel), Line: at.Line, Call: written}
			if obj != nil && obj.Pos().IsValid() {
				def := fset.Position(obj.Pos())
				where, err := filepath.EvalSymlinks(def.Filename) // a package imported through GOPATH's link
				if err != nil {
					where = def.Filename
				}
				if inside, err := filepath.Rel(root, where); err == nil && !strings.HasPrefix(inside, "..") {
					row.DefFile, row.DefLine = filepath.ToSlash(inside), def.Line
				} else {
					row.DefFile = "out"
				}
			}
			out.Encode(row)
		}
		for _, file := range files {
			ast.Inspect(file, func(node ast.Node) bool {
				expr, ok := node.(*ast.CallExpr)
				if !ok {
					return true
				}
				if bare { // `f(x)` with -bare
					if name, ok := expr.Fun.(*ast.Ident); ok {
						if _, held := info.Uses[name].(*types.Var); !held { // not a variable or parameter holding a func
							emit(name, name.Name, info.Uses[name])
						}
					}
					return true
				}
				sel, ok := expr.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				receiver := ""
				if results {
					if _, ok := sel.X.(*ast.CallExpr); ok { // `c.Root().ExecuteC()` with -results
						receiver = "()"
					}
				} else if name, ok := sel.X.(*ast.Ident); ok {
					receiver = name.Name
				} else if inner, ok := sel.X.(*ast.SelectorExpr); ok && chains {
					if head, ok := inner.X.(*ast.Ident); ok { // `v.logger.Info()` with -chains
						receiver = head.Name + "." + inner.Sel.Name
					}
				}
				if receiver == "" || (chains && !strings.Contains(receiver, ".")) {
					return true
				}
				var obj types.Object
				if selection, ok := info.Selections[sel]; ok {
					obj = selection.Obj()
				} else {
					obj = info.Uses[sel.Sel]
				}
				emit(sel.Sel, fmt.Sprintf("%s.%s", receiver, sel.Sel.Name), obj)
				return true
			})
		}
	}
}
