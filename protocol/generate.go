package protocol

// The wire types in types_gen.go come from the AHP JSON Schemas through
// internal/ahpgen. To move to a new spec version, replace
// ../../shared/ahp/schema (or point -schemas elsewhere), run
// `go generate ./protocol/...`, and review internal/ahpgen/patches.go, which
// lists every place the published schemas are patched.
//
// Naming, relied on by the rest of the code:
//   - a type is named like its $def; a field is its JSON name with each
//     word's first letter upper-cased (`_meta` → Meta, `resource_name` →
//     ResourceName); every identifier then takes the Go lint initialisms
//     (`ClientID` → ClientID, `URI` → URI, `AnnotationIDs` → AnnotationIDs);
//   - required properties are plain values; optional scalars, objects and
//     unions are pointers (omitempty); optional slices, maps and raw JSON are
//     plain values with omitzero, so an empty non-nil [] still encodes;
//   - a discriminated union X is `struct{ Variant XVariant }`; variants are
//     stored by value, X.Kind() returns the discriminator, NewX wraps a
//     variant, and an unknown discriminator decodes to UnknownX, which
//     re-encodes byte for byte.
//
//go:generate go run ./internal/ahpgen -version 1.0 -schemas ../../shared/ahp-1.0/schema -package protocol -out types_gen.go
