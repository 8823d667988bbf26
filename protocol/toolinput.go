package protocol

import (
	"bytes"
	"encoding/json"
)

// ToolInput (1.0) is a tool call's final input: inline text (a JSON string,
// as in 0.6) or a lazy ContentRef whose resource the client fetches. The
// schema gives the two no discriminator, so the generated type keeps the raw
// JSON; these helpers read and build it. Referenced input may change until
// the call leaves pending-confirmation, so it is never cached across a
// confirmation (DELTA §7.5).

// InlineToolInput is s as inline tool input.
func InlineToolInput(s string) ToolInput {
	b, _ := json.Marshal(s) // a Go string always encodes
	return ToolInput(b)
}

// ToolInputText returns the inline input; ok is false when the input is
// absent or a reference.
func ToolInputText(in ToolInput) (text string, ok bool) {
	b := bytes.TrimSpace(in)
	if len(b) == 0 || b[0] != '"' {
		return "", false
	}
	if err := json.Unmarshal(b, &text); err != nil {
		return "", false
	}
	return text, true
}

// ToolInputRef returns the referenced input; ok is false when the input is
// absent, inline, or not a ContentRef object.
func ToolInputRef(in ToolInput) (ref ContentRef, ok bool) {
	b := bytes.TrimSpace(in)
	if len(b) == 0 || b[0] != '{' {
		return ContentRef{}, false
	}
	if err := json.Unmarshal(b, &ref); err != nil || ref.URI == "" {
		return ContentRef{}, false
	}
	return ref, true
}
