// Package convert converts the wire JSON of AHP 0.6, 0.7 and 0.8 to the
// 1.0 wire (Up) and back (Down), so that the rest of ahptui holds only the
// 1.0 model (package protocol) and an older peer is spoken to at the
// boundary: the client converts what an older host sends up and what it
// sends down, the demo host serving an older version does the reverse.
//
// It walks the releases in steps (steps.go): 0.6 → 0.7 → 0.8 → 0.9/1.0,
// each step naming only what its release changed (../shared/ahp-1.0/DELTA.md
// gives each change with its release). Up from 0.7 walks the last two
// steps; down to 0.6 walks all three in reverse. 0.9.x, VS Code's 0.10.x
// and 1.x are one wire, so 1.0 traffic is never touched.
//
// It works on JSON, not on types: it opens only the objects that differ
// and writes every other member back byte for byte, so unknown members
// and unknown union variants pass through. Input that needs no change is
// returned as is (the same slice); an action whose type no step changes
// is not read past its "type", so the streaming chat/delta and
// chat/reasoning cost one scan and no allocation (BenchmarkHotPath).
//
// Choices where the wires do not map one to one:
//   - a pre-0.8 `enabled` on an MCP server or plugin becomes one decision
//     of kind "session"; Down takes the effective value of a decision list,
//     so Down(Up(x)) == x (provenance of 1.0 decisions is lost going down);
//   - a pre-0.9 Turn.error becomes an error response part appended to the
//     turn's parts (never resumable); Down takes the last error part back
//     into Turn.error and drops the resumable flag;
//   - 0.6 terminalComplete tool-result content is kept verbatim (1.0
//     decoders keep it as an unknown variant); its data has no place of
//     its own in 1.0 without a sibling terminal content to fold into;
//   - a ContentRef toolInput is dropped going down to 0.6 (inline text
//     only; a placeholder would be shown as the agent's input);
//   - an exit without a code and a running terminal both spell "no
//     exitCode" before 0.9;
//   - a pre-0.9 changeset/contentChanged error has no 1.0 place (0.9
//     removed it); the member goes up unchanged and only the older
//     reducer rules read it;
//   - a session claim without a chat (required since 0.9) stays without
//     one going up: inventing an owner chat would be wrong;
//   - Down gives ErrNotInVersion for actions a later release added and a
//     side-chat createChat to 0.6: the caller does not send them.
//
// Lenient10 is the one conversion on the 1.0 wire: hosts that claim 1.0
// but still send the 0.8 spelling of a turn's error (VS Code 1.135).
//
// It imports protocol (channel kinds) and wirescan, never protocol/client.
package convert
