// Command ahpgen generates protocol/types_gen.go, the AHP wire types, from
// the five JSON Schemas the spec publishes (state, actions, commands,
// notifications, errors). Run it through `go generate ./protocol/...`.
//
// Naming is fixed because other code is written against it: a Go type is
// named like its $def, a field like its JSON name with each word's first
// letter upper-cased (leading underscores dropped: `_meta` → Meta,
// `resource_name` → ResourceName), and every identifier then takes the Go
// initialisms (`clientId` → ClientID, `uri` → URI; see names.go). Discriminated
// unions become a wrapper struct holding a variant interface; the full rules
// are in protocol/generate.go.
package main

import (
	"flag"
	"fmt"
	"go/format"
	"os"
)

func main() {
	dir := flag.String("schemas", "../../shared/ahp/schema", "folder holding the AHP *.schema.json files")
	out := flag.String("out", "types_gen.go", "output Go file")
	pkg := flag.String("package", "protocol", "Go package name of the output")
	version := flag.String("version", "0.6", "spec version of the schemas: 0.6 or 1.0 (selects the patch set)")
	flag.Parse()

	if err := runVersion(*dir, *out, *pkg, *version); err != nil {
		fmt.Fprintln(os.Stderr, "ahpgen:", err)
		os.Exit(1)
	}
}

// run generates the 0.6 wire types.
func run(dir, out, pkg string) error { return runVersion(dir, out, pkg, "0.6") }

func runVersion(dir, out, pkg, version string) error {
	ps, ok := patchSets[version]
	if !ok {
		return fmt.Errorf("unknown -version %q: want 0.6 or 1.0", version)
	}
	ps.use()
	ds, err := loadDefs(dir)
	if err != nil {
		return err
	}
	if err := ps.patch(ds); err != nil {
		return err
	}
	g := newGen(ds)
	g.title = ps.title
	src, err := g.generate(pkg)
	if err != nil {
		return err
	}
	if src, err = goNames(src); err != nil {
		return fmt.Errorf("applying Go initialisms: %w", err)
	}
	formatted, err := format.Source(src)
	if err != nil {
		_ = os.WriteFile(out+".broken", src, 0o644)
		return fmt.Errorf("generated code does not parse (raw output in %s.broken): %w", out, err)
	}
	return os.WriteFile(out, formatted, 0o644)
}
