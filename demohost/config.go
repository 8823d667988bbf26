package demohost

import (
	"encoding/json"
	"math"
	"slices"
	"strings"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// The demo's session settings, shaped like VS Code's agent host's: the
// approval mode and the isolation are enums with labels and descriptions,
// the approval mode can change while the session runs, and the branch is
// shown but fixed by the host.
const (
	ConfigApprovals = "autoApprove"
	ConfigIsolation = "isolation"
	ConfigBranch    = "branch"
	// ConfigBaseBranch is a value the host completes
	// (sessionConfigCompletions): the branch a worktree starts from.
	ConfigBaseBranch = "baseBranch"
	// ConfigMaxToolCalls is a number a client types; it may change while
	// the session runs.
	ConfigMaxToolCalls = "maxToolCalls"
	// ApprovalsAllowAll runs every tool call without asking.
	ApprovalsAllowAll = "autoApprove"
	// RootConfigProxy and RootConfigStrictSSL are the root's settings:
	// a text one, and one a client can switch.
	RootConfigProxy     = "http.proxy"
	RootConfigStrictSSL = "http.proxyStrictSSL"
	// RootConfigManaged is a host setting a client sees but cannot change.
	RootConfigManaged = "policy.managed"
	// RootConfigGlobalAutoApprove is VS Code's host-wide switch that
	// approves every tool call in every session of every client.
	RootConfigGlobalAutoApprove = "globalAutoApproveEnabled"
)

func rawString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func enumOf(values ...string) []protocol.JSONPrimitive {
	out := make([]protocol.JSONPrimitive, len(values))
	for i, v := range values {
		out[i] = protocol.JSONPrimitive{Raw: rawString(v)}
	}
	return out
}

// sessionConfigSchema is the schema resolveSessionConfig answers with.
func sessionConfigSchema() protocol.SessionConfigSchema {
	yes := true
	approvalsDesc := "Which tool calls the agent may run without asking"
	isolationDesc := "Where the agent's edits land"
	branchDesc := "The branch the session works on; chosen by the host"
	baseDesc := "The branch a worktree starts from"
	maxDesc := "How many tool calls a turn may make"
	return protocol.SessionConfigSchema{Type: "object", Properties: map[string]protocol.SessionConfigPropertySchema{
		ConfigApprovals: {Type: "string", Title: "Approvals", Description: &approvalsDesc,
			Default:          rawString("default"),
			Enum:             enumOf("default", "assisted", ApprovalsAllowAll),
			EnumLabels:       []string{"Manual permissions", "Assisted permissions", "Allow all"},
			EnumDescriptions: []string{"Ask before every tool call that changes something", "Ask only for risky tool calls", "Run every tool call without asking"},
			SessionMutable:   &yes},
		ConfigIsolation: {Type: "string", Title: "Isolation", Description: &isolationDesc,
			Default:          rawString("folder"),
			Enum:             enumOf("folder", "worktree"),
			EnumLabels:       []string{"Folder", "Worktree"},
			EnumDescriptions: []string{"Work in the folder itself", "Work in a new git worktree"}},
		ConfigBranch: {Type: "string", Title: "Branch", Description: &branchDesc,
			Default: rawString("main"), ReadOnly: &yes},
		ConfigBaseBranch: {Type: "string", Title: "Base branch", Description: &baseDesc,
			Default: rawString("main"), Enum: enumOf("main"), EnumDynamic: &yes},
		ConfigMaxToolCalls: {Type: "number", Title: "Max tool calls", Description: &maxDesc,
			Default: json.RawMessage("20"), SessionMutable: &yes},
	}}
}

// defaultSessionConfig is a session's settings before a client chose any.
func defaultSessionConfig() *protocol.SessionConfigState {
	values, _ := resolveConfig(nil)
	return &protocol.SessionConfigState{Schema: sessionConfigSchema(), Values: values}
}

// checkRootConfigChange refuses a host setting the schema does not have
// or fixes, or a value of the wrong kind.
func checkRootConfigChange(cfg *protocol.RootConfigState, a protocol.RootConfigChangedAction) string {
	if a.Replace != nil && *a.Replace {
		return "replace is not allowed; change one setting at a time"
	}
	for id, v := range a.Config {
		p, ok := cfg.Schema.Properties[id]
		if !ok {
			return "the demo host has no setting " + clip(id)
		}
		if p.ReadOnly != nil && *p.ReadOnly {
			return id + " is set by the host"
		}
		var x any
		if json.Unmarshal(v, &x) != nil {
			return id + " is not JSON"
		}
		switch x.(type) {
		case bool:
			if p.Type != "boolean" {
				return id + " takes a " + p.Type
			}
		case string:
			if p.Type != "string" {
				return id + " takes a " + p.Type
			}
		default:
			return id + " takes a " + p.Type
		}
	}
	return ""
}

// rootConfig is the host-level setting the demo offers (a proxy, as VS
// Code's host does).
func rootConfig() *protocol.RootConfigState {
	desc := "Proxy the agent's requests go through; empty for none"
	strictDesc := "Check the proxy's TLS certificate"
	managedDesc := "Whether an administrator's policy sets this host's settings"
	autoDesc := "Approve every tool call in every session without asking"
	yes := true
	return &protocol.RootConfigState{
		Schema: protocol.ConfigSchema{Type: "object", Properties: map[string]protocol.ConfigPropertySchema{
			RootConfigProxy:             {Type: "string", Title: "Proxy", Description: &desc, Default: rawString("")},
			RootConfigStrictSSL:         {Type: "boolean", Title: "Strict proxy TLS", Description: &strictDesc, Default: json.RawMessage("true")},
			RootConfigManaged:           {Type: "boolean", Title: "Managed by policy", Description: &managedDesc, Default: json.RawMessage("false"), ReadOnly: &yes},
			RootConfigGlobalAutoApprove: {Type: "boolean", Title: "Global Auto Approve", Description: &autoDesc, Default: json.RawMessage("false")},
		}},
		Values: map[string]json.RawMessage{RootConfigProxy: rawString(""), RootConfigStrictSSL: json.RawMessage("true"), RootConfigManaged: json.RawMessage("false"),
			RootConfigGlobalAutoApprove: json.RawMessage("false")},
	}
}

// resolveConfig is the schema's defaults overlaid with the values given
// that the schema allows; a readOnly property keeps the host's value.
func resolveConfig(given map[string]json.RawMessage) (map[string]json.RawMessage, rpcError) {
	schema := sessionConfigSchema()
	out := map[string]json.RawMessage{}
	for id, p := range schema.Properties {
		out[id] = p.Default
	}
	for id, v := range given {
		p, ok := schema.Properties[id]
		if !ok {
			return nil, invalidParams("the demo agent has no setting %q", clip(id))
		}
		if p.ReadOnly != nil && *p.ReadOnly {
			continue
		}
		if !allowed(p, v) {
			return nil, invalidParams("%s must be one of the values the schema lists", id)
		}
		out[id] = v
	}
	return out, nil
}

func allowed(p protocol.SessionConfigPropertySchema, v json.RawMessage) bool {
	var x any
	if json.Unmarshal(v, &x) != nil {
		return false
	}
	switch p.Type {
	case "integer", "number":
		n, ok := x.(float64)
		if !ok || n < 0 || n != math.Trunc(n) {
			return false
		}
	case "boolean":
		if _, ok := x.(bool); !ok {
			return false
		}
	default:
		if _, ok := x.(string); !ok {
			return false
		}
	}
	if len(p.Enum) == 0 {
		return true
	}
	if p.EnumDynamic != nil && *p.EnumDynamic {
		s, _ := x.(string)
		return slices.Contains(demoBranches, s)
	}
	for _, e := range p.Enum {
		if strings.TrimSpace(string(e.Raw)) == strings.TrimSpace(string(v)) {
			return true
		}
	}
	return false
}

func (h *Host) resolveSessionConfigLocked(raw json.RawMessage) (any, rpcError) {
	var p protocol.ResolveSessionConfigParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.Provider != nil && *p.Provider != Provider {
		return nil, jsonrpc.NewError(jsonrpc.ProviderNotFound, "the demo host only has the "+Provider+" agent")
	}
	values, err := resolveConfig(p.Config)
	if err != nil {
		return nil, err
	}
	return protocol.ResolveSessionConfigResult{Schema: sessionConfigSchema(), Values: values}, nil
}

func (h *Host) sessionConfigCompletionsLocked(raw json.RawMessage) (any, rpcError) {
	var p protocol.SessionConfigCompletionsParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.Property != ConfigBaseBranch {
		return nil, invalidParams("the demo agent's setting %q has no dynamic values", clip(p.Property))
	}
	q := ""
	if p.Query != nil {
		q = strings.ToLower(strings.TrimSpace(*p.Query))
	}
	items := []protocol.SessionConfigValueItem{}
	for _, b := range demoBranches {
		if strings.Contains(strings.ToLower(b), q) {
			desc := "branch " + b
			items = append(items, protocol.SessionConfigValueItem{Value: b, Label: b, Description: &desc})
		}
	}
	return protocol.SessionConfigCompletionsResult{Items: items}, nil
}

// demoBranches are the branches the demo's base-branch setting completes.
var demoBranches = []string{"main", "develop", "release/1.0", "release/1.1", "feature/settings", "feature/completions"}

// allowsAll says the session runs tool calls without asking.
func allowsAll(s *session) bool {
	if s == nil || s.state.Config == nil {
		return false
	}
	return strings.TrimSpace(string(s.state.Config.Values[ConfigApprovals])) == string(rawString(ApprovalsAllowAll))
}

// checkSessionConfigChange refuses a change to a setting the schema does
// not let change mid-session, or to a value it does not list.
func checkSessionConfigChange(s *session, a protocol.SessionConfigChangedAction) string {
	if a.Replace != nil && *a.Replace {
		return "replace is not allowed; change one setting at a time"
	}
	for id, v := range a.Config {
		p, ok := s.state.Config.Schema.Properties[id]
		if !ok {
			return "this session has no setting " + clip(id)
		}
		if p.SessionMutable == nil || !*p.SessionMutable || (p.ReadOnly != nil && *p.ReadOnly) {
			return id + " cannot change while the session runs"
		}
		if !allowed(p, v) {
			return id + " does not take " + clip(string(v))
		}
	}
	return ""
}
