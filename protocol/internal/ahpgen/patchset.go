package main

// patchSet is everything version-specific about generating one spec
// version: the tables gen.go reads (overrides, hand-written and skipped
// defs, inline names, float properties, numeric enum names) and the schema
// patch itself.
type patchSet struct {
	title            string
	overrides        map[string]override
	inlineNames      map[string]string
	floatProps       map[string]bool
	handWritten      map[string]bool
	skipped          map[string]bool
	numericEnumNames map[string]map[string]string
	patch            func(*defSet) error
}

// patchSets by -version. The 0.6 tables are the ones patches.go declares.
var patchSets = map[string]patchSet{
	"0.6": {
		title:     "AHP 0.6.0 JSON Schemas",
		overrides: overrides, inlineNames: inlineNames, floatProps: floatProps,
		handWritten: handWritten, skipped: skipped, numericEnumNames: numericEnumNames,
		patch: (*defSet).patch06,
	},
	"1.0": {
		title:     "AHP 1.0.0 JSON Schema (errors.schema.json holds every $def)",
		overrides: overrides10, inlineNames: inlineNames10, floatProps: floatProps10,
		handWritten: handWritten, skipped: skipped, numericEnumNames: numericEnumNames,
		patch: (*defSet).patch10,
	},
}

// use makes ps the tables gen.go reads. The generator runs one version per
// process (tests run them one after the other), so package-level tables
// are enough.
func (ps patchSet) use() {
	overrides, inlineNames, floatProps = ps.overrides, ps.inlineNames, ps.floatProps
	handWritten, skipped, numericEnumNames = ps.handWritten, ps.skipped, ps.numericEnumNames
}
