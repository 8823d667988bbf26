// Package jsonrpc is the JSON-RPC 2.0 layer of AHP, shared by ahptui's client
// and the in-process demo host: both ends are symmetric peers that send
// requests and notifications and answer the other side's requests.
//
// It is split into three layers so each can be tested and replaced alone:
//
//   - framing: [Transport] moves whole frames (one JSON-RPC message per
//     frame, as the AHP transport spec requires for WebSocket text frames).
//     [Dial] and [Accept] give a WebSocket transport, [Pipe] an in-memory one.
//   - messages: [Decode] turns one frame into a [*Request] or [*Response]
//     and rejects batches, which AHP does not use.
//   - dispatch: [Conn] correlates responses with calls, runs request handlers
//     concurrently and delivers notifications strictly in arrival order,
//     because AHP action envelopes must be applied in serverSeq order.
//
// It imports nothing from the rest of ahptui and must never import ui, views,
// keymap, demohost or authpkce. Message bodies may carry bearer tokens
// (authenticate), so nothing here logs params or results: only method names,
// ids and sizes.
package jsonrpc
