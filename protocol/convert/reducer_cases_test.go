package convert

import (
	"encoding/json"
	"testing"

	"github.com/ahptui/ahptui/protocol/internal/wiretest"
)

// reducerCase is a hand-written case in fixture form, for actions and edge
// cases the published fixtures do not cover.
type reducerCase struct {
	name, kind, initial, expected string
	actions                       []string
}

func (c reducerCase) fixture() wiretest.ReducerFixture {
	fx := wiretest.ReducerFixture{Description: c.name, Reducer: c.kind, Initial: json.RawMessage(c.initial), Expected: json.RawMessage(c.expected)}
	for _, a := range c.actions {
		fx.Actions = append(fx.Actions, json.RawMessage(a))
	}
	return fx
}

const (
	rcSession = `"provider":"p","title":"T","lifecycle":"ready","activeClients":[],"chats":[]`
	rcMcpTop  = `{"type":"mcpServer","id":"m1","uri":"u","name":"M","enabled":true,"state":{"kind":"ready"},"channel":"mcp://m1"}`
	rcPlugin  = `{"type":"plugin","id":"p1","uri":"u","name":"P","enabled":true,"children":[{"type":"skill","id":"s1","uri":"u","name":"S"},{"type":"mcpServer","id":"m2","uri":"u","name":"M2","enabled":true,"state":{"kind":"starting"}}]}`
	rcTerm    = `"title":"sh","claim":{"kind":"client","clientId":"c"}`
)

// reducerCases06 covers every non-chat action the published 0.6 fixtures
// leave out, plus the edge cases their semantics spell out, written in 0.6
// shapes.
var reducerCases06 = []reducerCase{
	// root
	{name: "root/agentsChanged replaces a non-empty list with an empty one", kind: "root",
		initial:  `{"agents":[{"provider":"a","displayName":"A","description":"d","models":[]}]}`,
		actions:  []string{`{"type":"root/agentsChanged","agents":[]}`},
		expected: `{"agents":[]}`},
	{name: "root/terminalsChanged replaces the catalogue", kind: "root",
		initial:  `{"agents":[],"terminals":[{"resource":"t:/1","title":"a","claim":{"kind":"client","clientId":"c"}}]}`,
		actions:  []string{`{"type":"root/terminalsChanged","terminals":[]}`},
		expected: `{"agents":[],"terminals":[]}`},
	{name: "root/configChanged merge keeps other keys and adds new ones", kind: "root",
		initial:  `{"agents":[],"config":{"schema":{"type":"object","properties":{}},"values":{"a":"1","b":"2"}}}`,
		actions:  []string{`{"type":"root/configChanged","config":{"b":"3","c":"4"}}`, `{"type":"root/configChanged","config":{},"replace":false}`},
		expected: `{"agents":[],"config":{"schema":{"type":"object","properties":{}},"values":{"a":"1","b":"3","c":"4"}}}`},
	{name: "root ignores session actions", kind: "root",
		initial:  `{"agents":[],"activeSessions":2}`,
		actions:  []string{`{"type":"session/titleChanged","title":"x"}`, `{"type":"terminal/cleared"}`},
		expected: `{"agents":[],"activeSessions":2}`},

	// session lifecycle and metadata
	{name: "session/ready keeps status and error-free lifecycle", kind: "session",
		initial:  `{"provider":"p","title":"T","status":33,"lifecycle":"creating","activeClients":[],"chats":[]}`,
		actions:  []string{`{"type":"session/ready"}`},
		expected: `{"provider":"p","title":"T","status":33,"lifecycle":"ready","activeClients":[],"chats":[]}`},
	{name: "session/isArchivedChanged sets and clears the archived bit only", kind: "session",
		initial:  `{` + rcSession + `,"status":9}`,
		actions:  []string{`{"type":"session/isArchivedChanged","isArchived":true}`},
		expected: `{` + rcSession + `,"status":73}`},
	{name: "session/isArchivedChanged false clears the bit", kind: "session",
		initial:  `{` + rcSession + `,"status":97}`,
		actions:  []string{`{"type":"session/isArchivedChanged","isArchived":false}`},
		expected: `{` + rcSession + `,"status":33}`},
	{name: "session/isReadChanged true sets the read bit, keeps unknown bits", kind: "session",
		initial:  `{` + rcSession + `,"status":1025}`,
		actions:  []string{`{"type":"session/isReadChanged","isRead":true}`},
		expected: `{` + rcSession + `,"status":1057}`},
	{name: "session/titleChanged to the empty string", kind: "session",
		initial:  `{` + rcSession + `,"status":1}`,
		actions:  []string{`{"type":"session/titleChanged","title":""}`},
		expected: `{"provider":"p","title":"","lifecycle":"ready","activeClients":[],"chats":[],"status":1}`},
	{name: "session/metaChanged replaces _meta wholesale, absent clears", kind: "session",
		initial:  `{` + rcSession + `,"status":1,"_meta":{"git":{"branch":"main"},"keep":1}}`,
		actions:  []string{`{"type":"session/metaChanged","_meta":{"git":{"branch":"dev"}}}`},
		expected: `{` + rcSession + `,"status":1,"_meta":{"git":{"branch":"dev"}}}`},
	{name: "session/metaChanged without _meta clears it", kind: "session",
		initial:  `{` + rcSession + `,"status":1,"_meta":{"k":1}}`,
		actions:  []string{`{"type":"session/metaChanged"}`},
		expected: `{` + rcSession + `,"status":1}`},
	{name: "session/serverToolsChanged replaces the tool list", kind: "session",
		initial:  `{` + rcSession + `,"status":1,"serverTools":[{"name":"old"}]}`,
		actions:  []string{`{"type":"session/serverToolsChanged","tools":[{"name":"a"},{"name":"b","description":"B"}]}`},
		expected: `{` + rcSession + `,"status":1,"serverTools":[{"name":"a"},{"name":"b","description":"B"}]}`},
	{name: "session/changesetsChanged without changesets clears the catalogue", kind: "session",
		initial:  `{` + rcSession + `,"status":1,"changesets":[{"label":"L","uriTemplate":"u","changeKind":"session"}]}`,
		actions:  []string{`{"type":"session/changesetsChanged"}`},
		expected: `{` + rcSession + `,"status":1}`},
	{name: "session/configChanged is a no-op without config", kind: "session",
		initial:  `{` + rcSession + `,"status":1}`,
		actions:  []string{`{"type":"session/configChanged","config":{"a":"b"},"replace":true}`},
		expected: `{` + rcSession + `,"status":1}`},

	// chats
	{name: "session/chatAdded appends a new chat", kind: "session",
		initial:  `{"provider":"p","title":"T","status":1,"lifecycle":"ready","activeClients":[],"chats":[{"resource":"c:/1","title":"1","status":1,"modifiedAt":"x"}]}`,
		actions:  []string{`{"type":"session/chatAdded","summary":{"resource":"c:/2","title":"2","status":8,"modifiedAt":"y"}}`},
		expected: `{"provider":"p","title":"T","status":1,"lifecycle":"ready","activeClients":[],"chats":[{"resource":"c:/1","title":"1","status":1,"modifiedAt":"x"},{"resource":"c:/2","title":"2","status":8,"modifiedAt":"y"}]}`},
	{name: "session/chatRemoved removes the chat and clears a matching defaultChat", kind: "session",
		initial:  `{"provider":"p","title":"T","status":1,"lifecycle":"ready","activeClients":[],"defaultChat":"c:/1","chats":[{"resource":"c:/1","title":"1","status":1,"modifiedAt":"x"}]}`,
		actions:  []string{`{"type":"session/chatRemoved","chat":"c:/1"}`},
		expected: `{"provider":"p","title":"T","status":1,"lifecycle":"ready","activeClients":[],"chats":[]}`},
	{name: "session/chatRemoved keeps a defaultChat that names another chat", kind: "session",
		initial:  `{"provider":"p","title":"T","status":1,"lifecycle":"ready","activeClients":[],"defaultChat":"c:/2","chats":[{"resource":"c:/1","title":"1","status":1,"modifiedAt":"x"},{"resource":"c:/2","title":"2","status":1,"modifiedAt":"x"}]}`,
		actions:  []string{`{"type":"session/chatRemoved","chat":"c:/1"}`},
		expected: `{"provider":"p","title":"T","status":1,"lifecycle":"ready","activeClients":[],"defaultChat":"c:/2","chats":[{"resource":"c:/2","title":"2","status":1,"modifiedAt":"x"}]}`},
	{name: "session/chatUpdated merges present fields and ignores resource", kind: "session",
		initial:  `{"provider":"p","title":"T","status":1,"lifecycle":"ready","activeClients":[],"chats":[{"resource":"c:/1","title":"1","status":1,"activity":"a","modifiedAt":"x","origin":{"kind":"user"}}]}`,
		actions:  []string{`{"type":"session/chatUpdated","chat":"c:/1","changes":{"resource":"c:/evil","title":"new","status":8,"interactivity":"read-only","workingDirectory":"file:///w"}}`},
		expected: `{"provider":"p","title":"T","status":1,"lifecycle":"ready","activeClients":[],"chats":[{"resource":"c:/1","title":"new","status":8,"activity":"a","modifiedAt":"x","origin":{"kind":"user"},"interactivity":"read-only","workingDirectory":"file:///w"}]}`},

	// active clients
	{name: "session/activeClientSet appends a new client", kind: "session",
		initial:  `{"provider":"p","title":"T","status":1,"lifecycle":"ready","activeClients":[{"clientId":"a","tools":[]}],"chats":[]}`,
		actions:  []string{`{"type":"session/activeClientSet","activeClient":{"clientId":"b","displayName":"B","tools":[{"name":"t"}]}}`},
		expected: `{"provider":"p","title":"T","status":1,"lifecycle":"ready","activeClients":[{"clientId":"a","tools":[]},{"clientId":"b","displayName":"B","tools":[{"name":"t"}]}],"chats":[]}`},
	{name: "session/activeClientRemoved of the last client leaves an empty array", kind: "session",
		initial:  `{"provider":"p","title":"T","status":1,"lifecycle":"ready","activeClients":[{"clientId":"a","tools":[]}],"chats":[]}`,
		actions:  []string{`{"type":"session/activeClientRemoved","clientId":"a"}`},
		expected: `{"provider":"p","title":"T","status":1,"lifecycle":"ready","activeClients":[],"chats":[]}`},

	// input needed
	{name: "session/inputNeededSet on an idle, read, archived session keeps the flags", kind: "session",
		initial:  `{` + rcSession + `,"status":97}`,
		actions:  []string{`{"type":"session/inputNeededSet","request":{"kind":"chatInput","id":"r1","chat":"c:/1","request":{"id":"q","message":"?"}}}`},
		expected: `{` + rcSession + `,"status":120,"inputNeeded":[{"kind":"chatInput","id":"r1","chat":"c:/1","request":{"id":"q","message":"?"}}]}`},
	{name: "session/inputNeededRemoved of the last entry on an idle session stays idle", kind: "session",
		initial:  `{` + rcSession + `,"status":1,"inputNeeded":[{"kind":"chatInput","id":"r1","chat":"c:/1","request":{"id":"q","message":"?"}}]}`,
		actions:  []string{`{"type":"session/inputNeededRemoved","id":"r1"}`},
		expected: `{` + rcSession + `,"status":1}`},

	// customizations
	{name: "session/customizationToggled on a top-level MCP server", kind: "session",
		initial:  `{` + rcSession + `,"status":1,"customizations":[` + rcMcpTop + `]}`,
		actions:  []string{`{"type":"session/customizationToggled","id":"m1","enabled":false}`},
		expected: `{` + rcSession + `,"status":1,"customizations":[{"type":"mcpServer","id":"m1","uri":"u","name":"M","enabled":false,"state":{"kind":"ready"},"channel":"mcp://m1"}]}`},
	{name: "session/customizationToggled re-enables a child and toggles an MCP child", kind: "session",
		initial: `{` + rcSession + `,"status":1,"customizations":[` + rcPlugin + `]}`,
		actions: []string{`{"type":"session/customizationToggled","id":"s1","enabled":true}`,
			`{"type":"session/customizationToggled","id":"m2","enabled":false}`},
		expected: `{` + rcSession + `,"status":1,"customizations":[{"type":"plugin","id":"p1","uri":"u","name":"P","enabled":true,"children":[{"type":"skill","id":"s1","uri":"u","name":"S","enabled":true},{"type":"mcpServer","id":"m2","uri":"u","name":"M2","enabled":false,"state":{"kind":"starting"}}]}]}`},
	{name: "session/customizationToggled on a container leaves children alone", kind: "session",
		initial:  `{` + rcSession + `,"status":1,"customizations":[` + rcPlugin + `]}`,
		actions:  []string{`{"type":"session/customizationToggled","id":"p1","enabled":false}`},
		expected: `{` + rcSession + `,"status":1,"customizations":[{"type":"plugin","id":"p1","uri":"u","name":"P","enabled":false,"children":[{"type":"skill","id":"s1","uri":"u","name":"S"},{"type":"mcpServer","id":"m2","uri":"u","name":"M2","enabled":true,"state":{"kind":"starting"}}]}]}`},
	{name: "session/customizationToggled on an unknown customization type patches its enabled flag", kind: "session",
		initial:  `{` + rcSession + `,"status":1,"customizations":[{"type":"future","id":"f1","enabled":true,"extra":{"x":1}}]}`,
		actions:  []string{`{"type":"session/customizationToggled","id":"f1","enabled":false}`},
		expected: `{` + rcSession + `,"status":1,"customizations":[{"type":"future","id":"f1","enabled":false,"extra":{"x":1}}]}`},
	{name: "session/customizationUpdated replaces children wholesale", kind: "session",
		initial:  `{` + rcSession + `,"status":1,"customizations":[` + rcPlugin + `]}`,
		actions:  []string{`{"type":"session/customizationUpdated","customization":{"type":"plugin","id":"p1","uri":"u","name":"P2","enabled":true,"children":[]}}`},
		expected: `{` + rcSession + `,"status":1,"customizations":[{"type":"plugin","id":"p1","uri":"u","name":"P2","enabled":true,"children":[]}]}`},
	{name: "session/customizationRemoved of the only child keeps an empty children array", kind: "session",
		initial:  `{` + rcSession + `,"status":1,"customizations":[{"type":"directory","id":"d1","uri":"u","name":"D","enabled":true,"contents":"skill","writable":false,"children":[{"type":"skill","id":"s1","uri":"u","name":"S"}]}]}`,
		actions:  []string{`{"type":"session/customizationRemoved","id":"s1"}`},
		expected: `{` + rcSession + `,"status":1,"customizations":[{"type":"directory","id":"d1","uri":"u","name":"D","enabled":true,"contents":"skill","writable":false,"children":[]}]}`},
	{name: "session/customizationRemoved of a top-level MCP server", kind: "session",
		initial:  `{` + rcSession + `,"status":1,"customizations":[` + rcMcpTop + `,` + rcPlugin + `]}`,
		actions:  []string{`{"type":"session/customizationRemoved","id":"m1"}`},
		expected: `{` + rcSession + `,"status":1,"customizations":[` + rcPlugin + `]}`},
	{name: "session/mcpServerStopRequested on a top-level server in authRequired", kind: "session",
		initial:  `{` + rcSession + `,"status":1,"customizations":[{"type":"mcpServer","id":"m1","uri":"u","name":"M","enabled":true,"state":{"kind":"authRequired","reason":"required","resource":{"resource":"https://r","authorization_servers":["https://as"]}},"channel":"mcp://m1"}]}`,
		actions:  []string{`{"type":"session/mcpServerStopRequested","id":"m1"}`},
		expected: `{` + rcSession + `,"status":1,"customizations":[{"type":"mcpServer","id":"m1","uri":"u","name":"M","enabled":true,"state":{"kind":"stopped"}}]}`},
	{name: "session/mcpServerStartRequested on a container child in error", kind: "session",
		initial:  `{` + rcSession + `,"status":1,"customizations":[{"type":"plugin","id":"p1","uri":"u","name":"P","enabled":true,"children":[{"type":"mcpServer","id":"m2","uri":"u","name":"M2","enabled":true,"state":{"kind":"error","error":{"errorType":"x","message":"m"}},"channel":"mcp://m2"}]}]}`,
		actions:  []string{`{"type":"session/mcpServerStartRequested","id":"m2"}`},
		expected: `{` + rcSession + `,"status":1,"customizations":[{"type":"plugin","id":"p1","uri":"u","name":"P","enabled":true,"children":[{"type":"mcpServer","id":"m2","uri":"u","name":"M2","enabled":true,"state":{"kind":"starting"}}]}]}`},
	{name: "session/mcpServerStartRequested and StopRequested are no-ops on non-MCP ids", kind: "session",
		initial:  `{` + rcSession + `,"status":1,"customizations":[` + rcPlugin + `]}`,
		actions:  []string{`{"type":"session/mcpServerStartRequested","id":"p1"}`, `{"type":"session/mcpServerStopRequested","id":"s1"}`, `{"type":"session/mcpServerStopRequested","id":"nope"}`},
		expected: `{` + rcSession + `,"status":1,"customizations":[` + rcPlugin + `]}`},
	{name: "session/mcpServerStateChanged without channel clears it", kind: "session",
		initial:  `{` + rcSession + `,"status":1,"customizations":[` + rcMcpTop + `]}`,
		actions:  []string{`{"type":"session/mcpServerStateChanged","id":"m1","state":{"kind":"error","error":{"errorType":"x","message":"boom"}}}`},
		expected: `{` + rcSession + `,"status":1,"customizations":[{"type":"mcpServer","id":"m1","uri":"u","name":"M","enabled":true,"state":{"kind":"error","error":{"errorType":"x","message":"boom"}}}]}`},
	{name: "session ignores actions of other channels", kind: "session",
		initial:  `{` + rcSession + `,"status":1}`,
		actions:  []string{`{"type":"root/agentsChanged","agents":[]}`, `{"type":"terminal/cleared"}`, `{"type":"session/notYetInvented","x":1}`},
		expected: `{` + rcSession + `,"status":1}`},

	// terminal
	{name: "terminal/input is a side effect only", kind: "terminal",
		initial:  `{` + rcTerm + `,"content":[{"type":"unclassified","value":"$ "}]}`,
		actions:  []string{`{"type":"terminal/input","data":"ls\r"}`},
		expected: `{` + rcTerm + `,"content":[{"type":"unclassified","value":"$ "}]}`},
	{name: "terminal/exited without exitCode clears it", kind: "terminal",
		initial:  `{` + rcTerm + `,"content":[],"exitCode":3}`,
		actions:  []string{`{"type":"terminal/exited"}`},
		expected: `{` + rcTerm + `,"content":[]}`},
	{name: "terminal/claimed transfers to a client", kind: "terminal",
		initial:  `{"title":"sh","claim":{"kind":"session","session":"s:/1"},"content":[]}`,
		actions:  []string{`{"type":"terminal/claimed","claim":{"kind":"client","clientId":"c2"}}`},
		expected: `{"title":"sh","claim":{"kind":"client","clientId":"c2"},"content":[]}`},
	{name: "terminal/commandFinished for an unknown command is a no-op", kind: "terminal",
		initial:  `{` + rcTerm + `,"content":[{"type":"command","commandId":"a","commandLine":"x","output":"","timestamp":1,"isComplete":false}]}`,
		actions:  []string{`{"type":"terminal/commandFinished","commandId":"b","exitCode":0}`},
		expected: `{` + rcTerm + `,"content":[{"type":"command","commandId":"a","commandLine":"x","output":"","timestamp":1,"isComplete":false}]}`},
	{name: "terminal/data on null content starts an unclassified part", kind: "terminal",
		initial:  `{` + rcTerm + `,"content":null}`,
		actions:  []string{`{"type":"terminal/data","data":"hi"}`},
		expected: `{` + rcTerm + `,"content":[{"type":"unclassified","value":"hi"}]}`},

	// changeset
	{name: "changeset/contentChanged without error clears a previous error, keeps operations", kind: "changeset",
		initial:  `{"status":"error","error":{"errorType":"e","message":"m"},"files":[],"operations":[{"id":"o","label":"O","scopes":["changeset"],"status":"idle"}]}`,
		actions:  []string{`{"type":"changeset/contentChanged","files":[{"id":"f","edit":{"after":{"uri":"file:///f","content":{"uri":"c:/f"}}}}]}`},
		expected: `{"status":"error","files":[{"id":"f","edit":{"after":{"uri":"file:///f","content":{"uri":"c:/f"}}}}],"operations":[{"id":"o","label":"O","scopes":["changeset"],"status":"idle"}]}`},
	{name: "changeset/contentChanged with an empty operations list replaces it", kind: "changeset",
		initial:  `{"status":"ready","files":[],"operations":[{"id":"o","label":"O","scopes":["changeset"],"status":"idle"}]}`,
		actions:  []string{`{"type":"changeset/contentChanged","files":[],"operations":[]}`},
		expected: `{"status":"ready","files":[],"operations":[]}`},
	{name: "changeset/statusChanged to ready drops an error the action carries", kind: "changeset",
		initial:  `{"status":"computing","files":[]}`,
		actions:  []string{`{"type":"changeset/statusChanged","status":"ready","error":{"errorType":"e","message":"m"}}`},
		expected: `{"status":"ready","files":[]}`},
	{name: "changeset/operationStatusChanged without operations is a no-op", kind: "changeset",
		initial:  `{"status":"ready","files":[]}`,
		actions:  []string{`{"type":"changeset/operationStatusChanged","operationId":"o","status":"running"}`},
		expected: `{"status":"ready","files":[]}`},
	{name: "changeset/filesReviewChanged keeps edit and _meta", kind: "changeset",
		initial:  `{"status":"ready","files":[{"id":"f","edit":{"after":{"uri":"file:///f","content":{"uri":"c:/f"}}},"_meta":{"k":1}}]}`,
		actions:  []string{`{"type":"changeset/filesReviewChanged","files":["f","f"],"reviewed":true}`},
		expected: `{"status":"ready","files":[{"id":"f","edit":{"after":{"uri":"file:///f","content":{"uri":"c:/f"}}},"_meta":{"k":1},"reviewed":true}]}`},

	// annotations
	{name: "annotations/updated cannot clear a range and leaves _meta", kind: "annotations",
		initial:  `{"annotations":[{"id":"a","turnId":"t","resource":"file:///a","range":{"start":{"line":1,"character":0},"end":{"line":1,"character":2}},"resolved":true,"entries":[{"id":"e","text":"x"}],"_meta":{"k":1}}]}`,
		actions:  []string{`{"type":"annotations/updated","annotationId":"a","resolved":false}`},
		expected: `{"annotations":[{"id":"a","turnId":"t","resource":"file:///a","range":{"start":{"line":1,"character":0},"end":{"line":1,"character":2}},"resolved":false,"entries":[{"id":"e","text":"x"}],"_meta":{"k":1}}]}`},
	{name: "annotations/entrySet keeps markdown text", kind: "annotations",
		initial:  `{"annotations":[{"id":"a","turnId":"t","resource":"file:///a","resolved":false,"entries":[{"id":"e","text":"x"}]}]}`,
		actions:  []string{`{"type":"annotations/entrySet","annotationId":"a","entry":{"id":"e2","text":{"markdown":"**b**"}}}`},
		expected: `{"annotations":[{"id":"a","turnId":"t","resource":"file:///a","resolved":false,"entries":[{"id":"e","text":"x"},{"id":"e2","text":{"markdown":"**b**"}}]}]}`},
	{name: "annotations/removed of the last annotation leaves an empty array", kind: "annotations",
		initial:  `{"annotations":[{"id":"a","turnId":"t","resource":"file:///a","resolved":false,"entries":[{"id":"e","text":"x"}]}]}`,
		actions:  []string{`{"type":"annotations/removed","annotationId":"a"}`},
		expected: `{"annotations":[]}`},

	// resource watch
	{name: "resourceWatch ignores every action", kind: "resourceWatch",
		initial:  `{"root":"file:///w","recursive":false,"excludes":{"items":["node_modules"]}}`,
		actions:  []string{`{"type":"resourceWatch/changed","changes":{"items":[{"uri":"file:///w/a","type":"deleted"}]}}`, `{"type":"terminal/cleared"}`},
		expected: `{"root":"file:///w","recursive":false,"excludes":{"items":["node_modules"]}}`},
}

// TestReducerCases06 runs the hand-written 0.6 cases like the fixtures:
// up, reduce with the 0.6 rules, down.
func TestReducerCases06(t *testing.T) {
	for _, c := range reducerCases06 {
		t.Run(c.name, func(t *testing.T) {
			msg := wiretest.RunReducerFixture(c.fixture(), reducer06)
			checkGap(t, gaps06[c.name], msg)
			if msg != "" {
				t.Errorf("%s reducer: %s\n%s", c.kind, c.name, msg)
			}
		})
	}
}
