// Package convert06 converts AHP 0.6 wire JSON to the 1.0 wire (Up) and
// back (Down), so that the rest of ahptui holds only the 1.0 model
// (package protocol) and a 0.6 peer is spoken to at the boundary: the
// client converts what a 0.6 host sends up and what it sends down, the
// demo host serving 0.6 does the reverse.
//
// It works on JSON, not on types: it opens only the objects that differ
// (DELTA §13 of ../shared/ahp-1.0) and writes every other member back byte
// for byte, so unknown members and unknown union variants pass through.
// Input that needs no change is returned as is (the same slice); an
// action whose type did not change is not read past its "type", so the
// streaming chat/delta and chat/reasoning cost one scan and no
// allocation (BenchmarkHotPath).
//
// Choices where the wires do not map one to one:
//   - a 0.6 `enabled` on an MCP server or plugin becomes one decision of
//     kind "session"; Down takes the effective value of a decision list, so
//     Down(Up(x)) == x (provenance of 1.0 decisions is lost going down);
//   - a 0.6 Turn.error becomes an error response part appended to the
//     turn's parts (never resumable); Down takes the last error part back
//     into Turn.error and drops the resumable flag;
//   - terminalComplete tool-result content is kept verbatim (1.0 decoders
//     keep it as an unknown variant); its data has no place of its own in
//     1.0 without a sibling terminal content to fold into;
//   - a ContentRef toolInput is dropped going down (0.6 has inline text
//     only; a placeholder would be shown as the agent's input);
//   - an exit without a code and a running terminal both spell "no
//     exitCode" in 0.6;
//   - a 0.6 changeset/contentChanged error has no 1.0 place (0.9 removed
//     it); the member goes up unchanged and the 1.0 model ignores it
//     (the 0.6 fixture run lists this gap);
//   - a session claim without a chat (required since 0.9) stays without
//     one going up: inventing an owner chat would be wrong;
//   - Down gives ErrNot06 for 1.0-only actions and a side-chat createChat:
//     the caller does not send them.
//
// It imports protocol (channel kinds) and wirescan, never protocol/client.
package convert06
