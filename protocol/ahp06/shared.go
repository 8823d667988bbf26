package ahp06

import "github.com/ahptui/ahptui/protocol"

// The hand-written wire shapes did not change from 0.6 to 1.0, so both
// versions use one implementation.
type (
	// StringOrMarkdown is "text" or { markdown }.
	StringOrMarkdown = protocol.StringOrMarkdown
	// JSONPrimitive is a string, number, boolean or null, kept verbatim.
	JSONPrimitive = protocol.JSONPrimitive
	// Text is the append-friendly immutable streaming text.
	Text = protocol.Text
	// JSONRPCMessage is one JSON-RPC 2.0 message; the envelope did not
	// change.
	JSONRPCMessage = protocol.JsonRpcMessage
)

// ItemList is a paginated list (the envelope did not change).
type ItemList[T any] = protocol.ItemList[T]

// NewText makes a Text holding s (the generated fast decoders use it).
func NewText(s string) Text { return protocol.NewText(s) }
