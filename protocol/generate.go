package protocol

// The wire types in types_gen.go come from the AHP JSON Schemas. To move to
// a new spec version, replace ../../shared/ahp/schema (or point -schemas at
// it), run `go generate ./protocol/...`, and review internal/ahpgen/patches.go.
//go:generate go run ./internal/ahpgen -schemas ../../shared/ahp/schema -out types_gen.go
