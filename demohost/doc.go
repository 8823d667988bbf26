// Package demohost is an in-process, spec-conformant AHP host with a
// scripted agent and a real OAuth 2 authorization server, listening on
// 127.0.0.1 ephemeral ports. It backs `ahptui --demo` and the tests.
//
// It serves AHP 1.0 (Version10, the default), 0.8, 0.7 or 0.6
// (Config.Version). Its state is the 1.0 model whatever it serves; serving
// an older version, every frame is converted at the connection's edge with
// protocol/convert: what a client sends is brought up to 1.0 before the
// host reads it, everything the host sends is brought down, and the
// actions a later release added (chat/turnResume,
// session/mcpServerBackgroundRequested, …) are left out of the
// notifications and replays an older client gets, as hosts filter actions
// by the version that introduced them.
//
// It uses protocol for wire types and reducers (protocol.Reduce keeps the
// authoritative state, exactly as a client mirror would) and protocol/jsonrpc
// for framing (Accept, Decode, Encode, error codes). It runs its own
// per-connection loop instead of jsonrpc.Conn so that responses and action
// notifications leave in the order the host produced them under one lock: a
// subscribe result (snapshot at serverSeq N) always precedes the envelopes
// sequenced after N. It never uses protocol's client, and never imports ui,
// views or keymap.
//
// # Protocol surface
//
// initialize (the highest offered version within SupportedVersions:
// ^1.0.0 or ~0.9.0 serving 1.0, ^0.8.0 serving 0.8, exactly 0.7.0 or
// 0.6.0 serving those; otherwise
// -32005 with supportedVersions; a malformed offer is InvalidParams),
// reconnect
// (replay from a bounded buffer, with missing for disposed channels, or
// snapshots when the gap is too old, the host Restarted or this host never
// served the clientId — its lastSeenServerSeq then counts another process's
// history), ping, subscribe,
// unsubscribe, listSessions (limit/cursor), createSession (-32003 when taken),
// disposeSession, createChat (forks of a completed turn of the same
// session: the agent advertises capabilities.multipleChats.fork; over 1.0
// also side chats on any turn, finished or running, advertised as
// multipleChats.sideChat; unknown source kinds, and side chats below 1.0,
// are InvalidParams), fetchTurns,
// authenticate and dispatchAction. createSession keeps the first of its
// workingDirectories (the agent does not advertise several).
// Every action gets one global serverSeq. Client actions are validated
// (client-dispatchable only, wrong state, unknown tool call, …) and refused
// ones are echoed with rejectionReason to the dispatching client only;
// re-sent actions (clientSeq not above the last seen for that clientId) are
// not applied again but answered, to that connection, with the envelope the
// host produced the first time (same serverSeq), so a client that cannot
// know whether its action landed before the link broke settles it; that
// dedupe table survives Restart, like the sessions. Root
// subscribers get root/sessionAdded, root/sessionRemoved,
// root/sessionSummaryChanged; when a pushed token expires, the connection
// that pushed it (if it watches the root channel) gets auth/required
// (reason expired) and the protected servers go back to authRequired
// unless another connection's token still covers them. Each client has a bounded send queue: a client that cannot
// keep up is disconnected (Config.OnDisconnect says why), never waited for.
//
// authenticate accepts a token only when the authorization server's
// introspection says it is active, its audience holds the resource and its
// scopes cover what the resource (and any open challenge on it) needs;
// otherwise -32007 with the resource's metadata, or -32602 for a resource
// the host never advertised. The grant ends at the token's expiry, or
// sooner at expiresIn (1.0). Serving 1.0, an empty token revokes the
// connection's proof for the resource (protected servers no other
// connection covers go back to authRequired); 0.6 has no revocation and
// refuses it. Tokens are never logged, stored or tapped.
//
// Authentication status is per connection, as authentication.md says: the
// scopes a token proved are kept on the connection that pushed it and die
// with it (clients re-push tokens after reconnecting, before re-sending
// actions). A step-up challenge belongs to the client whose message
// started the turn (queued messages: the client that queued it), and only
// a token pushed on one of that client's connections resumes it. MCP
// servers are session state shared by every client, so a protected server
// is ready while any connection's token covers it.
//
// # The scripted sessions
//
// DemoSessionURI (chat DemoChatURI) and HistorySessionURI (chat
// HistoryChatURI, one finished turn) are seeded unless Config.NoDemoSession;
// sessions created with createSession get the same customizations:
//
//   - mcp-github (top level): starting → authRequired (reason required,
//     oauthClient = the authorization server's public client, resource
//     http://127.0.0.1:PORT/mcp/github, requiredScopes [mcp:read]) until a
//     token for that resource is pushed with authenticate → ready.
//   - mcp-filesystem (top level): starting → ready.
//   - plugin-devtools (PluginCustomization, loaded) with children mcp-deploy
//     (→ ready), mcp-flaky (→ error) and skill-release-notes.
//   - mcp-indexer (top level, "Indexer", only in sessions created with
//     createSession: the seeded ones keep to the servers above, whose MCP
//     strip fits one row of an 80-column terminal): stopped until a client
//     starts it, then starting with blocking set for IndexerStartSteps steps →
//     ready. New turns wait while it blocks; a client's
//     session/mcpServerBackgroundRequested (accepted only for a blocking
//     start) lets them go on while the start finishes. Served below 1.0,
//     which has no blocking flag, the start holds nothing.
//
// Start/stop requests and customization toggles get the real transitions.
// The message text picks the turn's script: "deploy" → a deploy tool call
// (mcp-deploy) that pauses in auth-required (insufficientScope,
// requiredScopes [tools:deploy], resource http://127.0.0.1:PORT/mcp/deploy,
// no oauthClient) with a toolAuthentication inputNeeded entry until a token
// with tools:deploy is pushed or the client cancels it with a failed
// chat/toolCallComplete; "approve", "confirm" or "write" → a write_file call
// pending confirmation; "review" → a result that waits for review; "fail"
// → a tool call that fails; "ask" or "question" → an input request;
// "stream" → reasoning plus streamed markdown; "option" → the write_file
// call offering WriteOptions, answered with the option its confirmation
// selected (selectedOptionId); "resume" → a resumable
// error part (1.0) that chat/turnResume continues; anything else ("hello")
// → the tour (DemoPaths and DemoTour list them). Config.StepDelay paces it (negative: no
// delay, for tests).
//
// Config.AgentToken makes the agent need a sign-in of its own, as VS
// Code's copilotcli does: protectedResources lists
// http://127.0.0.1:PORT/agent (or Config.AgentResource) with required set,
// no auth/required is ever sent, createSession answers -32007 and every
// turn stops at a resumable error until the connection pushed that token
// (or an OAuth token for the resource from the demo's server).
//
// Besides the seeded history terminal (fixed content), a test may run
// terminals that stream (1.0 wire, shell.go): RunTerminal lists one on
// the root, WriteTerminal is its output (terminal/data), ExitTerminal
// ends it and RemoveTerminal disposes of it.
package demohost
