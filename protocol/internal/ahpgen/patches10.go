package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// The 1.0.0 schema (one errors.schema.json carrying all 426 $defs) fixes
// some 0.6 slips (StateAction's empty $ref, ActionEnvelope.origin and
// Turn.usage required) and keeps others; these tables and patch10 cover
// what it still gets wrong.

var overrides10 = map[string]override{
	// Streaming targets, as in 0.6.
	"MarkdownResponsePart.content":  {goType: "Text"},
	"ReasoningResponsePart.content": {goType: "Text"},
	// terminal/data extends these a pty read at a time: a plain string
	// made a 10 MB stream copy tens of gigabytes.
	"TerminalUnclassifiedPart.value": {goType: "Text"},
	"TerminalCommandPart.output":     {goType: "Text"},
	// JSON Schema documents and MCP capability objects stay opaque.
	"ToolDefinition.inputSchema":        {goType: "json.RawMessage", nilable: true},
	"ToolDefinition.outputSchema":       {goType: "json.RawMessage", nilable: true},
	"AhpMcpUiHostCapabilities.sampling": {goType: "json.RawMessage", nilable: true},
	// A snapshot's state is told apart only by the sibling channel URI
	// (hand-written SnapshotState in union.go); 1.0's canvas and automation
	// states stay verbatim as UnknownSnapshotState.
	"Snapshot.state": {goType: "SnapshotState"},
}

var inlineNames10 = map[string]string{
	"SessionChatUpdatedAction.changes": "PartialChatSummary",
}

// floatProps10: the 0.6 list still names every fractional number.
var floatProps10 = floatProps

func (ds *defSet) patch10() error {
	// `T | undefined` fields listed as required, where the field's own doc
	// says it may be absent (as in 0.6).
	if err := ds.unrequire([2]string{"ToolCallClientContributor", "clientId"}); err != nil {
		return err
	}
	if err := ds.constApproved(); err != nil {
		return err
	}
	ds.nameInlineVariants()
	// 0.9 dropped changeset/contentChanged's error (DELTA §9); a 0.6 host
	// still sends it and the 0.6 rules apply it, so the model keeps it as
	// an optional member a 1.0 host never sets.
	cc, err := ds.get("ChangesetContentChangedAction")
	if err != nil {
		return err
	}
	if cc.prop("error") == nil {
		cc.Props = append(cc.Props, &prop{Name: "error", Schema: mustSchema(`{"$ref":"#/$defs/ErrorInfo",
			"description":"AHP 0.6 only (removed in 0.9): the changeset's error; absent clears it. A 1.0 host never sends it and the 1.0 rules ignore it."}`)})
	}
	if _, ok := ds.defs["ReconnectResult"]; !ok {
		ds.add("ReconnectResult", mustSchema(`{"description":"Result of reconnect: either a replay of the missed actions or fresh snapshots.",
			"oneOf":[{"$ref":"#/$defs/ReconnectReplayResult"},{"$ref":"#/$defs/ReconnectSnapshotResult"}]}`))
	}
	for k := range overrides10 {
		def, p, _ := strings.Cut(k, ".")
		s, err := ds.get(def)
		if err != nil {
			return err
		}
		if s.prop(p) == nil {
			return fmt.Errorf("patch10: override %s: no such property; the schema changed, review patches10.go", k)
		}
	}
	return nil
}

// nameInlineVariants gives a name to every inline object branch of a
// union told apart by one const property (ChatOrigin's `kind`,
// CustomizationEnablement's `kind`), so it becomes a typed union with an
// Unknown variant instead of raw JSON. The name puts the discriminator
// value before the union's last word, as the 0.6 patches named them by
// hand: ChatOrigin + fork → ChatForkOrigin, ChangesetOperationTarget +
// range → ChangesetOperationRangeTarget.
func (ds *defSet) nameInlineVariants() {
	names := append([]string(nil), ds.names...)
	sort.Strings(names)
	for _, n := range names {
		s := ds.defs[n]
		if len(s.OneOf) < 2 {
			continue
		}
		disc := inlineDiscriminator(s.OneOf)
		if disc == "" {
			continue
		}
		head, tail := splitLastWord(n)
		var refs []*schema
		for _, b := range s.OneOf {
			if b.Ref != "" {
				refs = append(refs, b)
				continue
			}
			var lit string
			_ = json.Unmarshal(b.prop(disc).Const, &lit)
			vn := head + pascal(lit) + tail
			if _, taken := ds.defs[vn]; taken {
				vn = n + pascal(lit)
			}
			ds.add(vn, b)
			refs = append(refs, &schema{Ref: "#/$defs/" + vn})
		}
		s.OneOf = refs
	}
}

// inlineDiscriminator returns the property every inline object branch
// fixes to a distinct string const, or "".
func inlineDiscriminator(branches []*schema) string {
	inline := 0
	var cands []string
	for _, b := range branches {
		if b.Ref != "" {
			continue
		}
		inline++
		if !b.isObject() {
			return ""
		}
		if cands == nil {
			for _, p := range b.Props {
				if len(p.Schema.Const) > 0 && p.Schema.Const[0] == '"' {
					cands = append(cands, p.Name)
				}
			}
		}
	}
	if inline == 0 {
		return ""
	}
	for _, c := range cands {
		seen := map[string]bool{}
		ok := true
		for _, b := range branches {
			if b.Ref != "" {
				continue
			}
			p := b.prop(c)
			if p == nil || len(p.Const) == 0 || seen[string(p.Const)] {
				ok = false
				break
			}
			seen[string(p.Const)] = true
		}
		if ok {
			return c
		}
	}
	return ""
}

// splitLastWord splits a Pascal-case name before its last word.
func splitLastWord(n string) (head, tail string) {
	for i := len(n) - 1; i > 0; i-- {
		if n[i] >= 'A' && n[i] <= 'Z' {
			return n[:i], n[i:]
		}
	}
	return n, ""
}
