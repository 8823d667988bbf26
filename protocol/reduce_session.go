package protocol

import (
	"bytes"
	"encoding/json"
	"slices"
)

// statusActivityMask covers the mutually exclusive activity bits (0–4) of a
// SessionStatus; bits 5+ (IsRead, IsArchived, future flags) are orthogonal.
const statusActivityMask SessionStatus = 1<<5 - 1

// withInputNeededStatus reflects the session's inputNeeded aggregate into the
// activity bits: a non-empty list makes the activity InputNeeded; an empty
// one clears only the input-needed bit, so a blocked turn falls back to
// InProgress and an idle session stays idle. Orthogonal flags are kept.
func withInputNeededStatus(status SessionStatus, pending int) SessionStatus {
	if pending > 0 {
		return status&^statusActivityMask | SessionStatusInputNeeded
	}
	return status &^ (SessionStatusInputNeeded &^ SessionStatusInProgress)
}

// userInputCount counts the requests that wait for the user. Since 0.8 a
// toolClientExecution request waits for a client, not a person, and no
// longer raises InputNeeded (DELTA §6.1); under the 0.6 rules it does.
func userInputCount(list []SessionInputRequest, r Rules) int {
	if r.clientExecutionNeedsInput() {
		return len(list)
	}
	n := 0
	for _, q := range list {
		if _, ok := q.Variant.(SessionToolClientExecutionRequest); !ok {
			n++
		}
	}
	return n
}

func withStatusFlag(status, flag SessionStatus, set bool) SessionStatus {
	if set {
		return status | flag
	}
	return status &^ flag
}

// ReduceSession applies one session/* action to a SessionState and returns
// the new state. Any other action — unknown type, unknown id, another
// channel's kind — returns s unchanged. Session actions carry no reducer
// timestamps; r only decides whether a toolClientExecution request raises
// InputNeeded (0.6) or not (1.0).
func ReduceSession(s SessionState, a StateAction, r Rules) SessionState {
	switch a := a.Variant.(type) {
	// Lifecycle. session/ready must not touch status: a provisional
	// session's first turn may already be running when it materialises.
	case SessionReadyAction:
		s.Lifecycle = SessionLifecycleReady
	case SessionCreationFailedAction:
		s.Lifecycle = SessionLifecycleFailed
		e := a.Error
		s.CreationError = &e

	// Chat catalogue.
	case SessionChatAddedAction:
		s.Chats = cowUpsert(s.Chats, a.Summary, func(c ChatSummary) bool { return c.Resource == a.Summary.Resource })
	case SessionChatRemovedAction:
		i := indexOf(s.Chats, func(c ChatSummary) bool { return c.Resource == a.Chat })
		if i < 0 {
			return s
		}
		s.Chats = cowDelete(s.Chats, i)
		if s.DefaultChat != nil && *s.DefaultChat == a.Chat {
			s.DefaultChat = nil
		}
	case SessionChatUpdatedAction:
		i := indexOf(s.Chats, func(c ChatSummary) bool { return c.Resource == a.Chat })
		if i < 0 {
			return s
		}
		s.Chats = cowSet(s.Chats, i, mergeChatSummary(s.Chats[i], a.Changes))
	case SessionDefaultChatChangedAction:
		s.DefaultChat = a.DefaultChat
	case SessionChatsReorderedAction:
		if chats, ok := reorderChats(s.Chats, a.Chats); ok {
			s.Chats = chats
		}

	// Working directories (1.0): a set keyed by URI, in host order.
	case SessionWorkingDirectorySetAction:
		s.WorkingDirectories = withDirectory(s.WorkingDirectories, a.Directory)
	case SessionWorkingDirectoryRemovedAction:
		s.WorkingDirectories = withoutDirectory(s.WorkingDirectories, a.Directory)
	case SessionWorkingDirectoryReplacedAction:
		s.WorkingDirectories = replaceDirectory(s.WorkingDirectories, a.Directory, a.Replacement)

	// Metadata.
	case SessionTitleChangedAction:
		s.Title = a.Title
	case SessionIsReadChangedAction:
		s.Status = withStatusFlag(s.Status, SessionStatusIsRead, a.IsRead)
	case SessionIsArchivedChangedAction:
		s.Status = withStatusFlag(s.Status, SessionStatusIsArchived, a.IsArchived)
	case SessionActivityChangedAction:
		s.Activity = a.Activity
	case SessionChangesetsChangedAction:
		s.Changesets = a.Changesets
	case SessionConfigChangedAction:
		// Without a config there is no schema the values could belong to.
		if s.Config == nil {
			return s
		}
		cfg := *s.Config
		cfg.Values = mergeConfigValues(cfg.Values, a.Config, a.Replace != nil && *a.Replace)
		s.Config = &cfg
	case SessionMetaChangedAction:
		s.Meta = a.Meta

	// Tools and active clients.
	case SessionServerToolsChangedAction:
		s.ServerTools = a.Tools
	case SessionActiveClientSetAction:
		s.ActiveClients = cowUpsert(s.ActiveClients, a.ActiveClient, func(c SessionActiveClient) bool {
			return c.ClientID == a.ActiveClient.ClientID
		})
	case SessionActiveClientRemovedAction:
		i := indexOf(s.ActiveClients, func(c SessionActiveClient) bool { return c.ClientID == a.ClientID })
		if i < 0 {
			return s
		}
		s.ActiveClients = cowDelete(s.ActiveClients, i)

	// Aggregated input requests.
	case SessionInputNeededSetAction:
		id := inputRequestID(a.Request)
		s.InputNeeded = cowUpsert(s.InputNeeded, a.Request, func(r SessionInputRequest) bool { return inputRequestID(r) == id })
		s.Status = withInputNeededStatus(s.Status, userInputCount(s.InputNeeded, r))
	case SessionInputNeededRemovedAction:
		i := indexOf(s.InputNeeded, func(r SessionInputRequest) bool { return inputRequestID(r) == a.ID })
		if i < 0 {
			return s
		}
		rest := cowDelete(s.InputNeeded, i)
		if len(rest) == 0 {
			rest = nil // an empty aggregate is spelled absent, as the host would
		}
		s.InputNeeded = rest
		s.Status = withInputNeededStatus(s.Status, userInputCount(rest, r))

	// Customizations.
	case SessionCustomizationsChangedAction:
		s.Customizations = a.Customizations
	case SessionCustomizationToggledAction:
		return toggleCustomization(s, a.ID, a.Enablement)
	case SessionCustomizationUpdatedAction:
		id, _ := customizationID(a.Customization)
		s.Customizations = cowUpsert(s.Customizations, a.Customization, func(c Customization) bool {
			cid, _ := customizationID(c)
			return cid == id
		})
	case SessionCustomizationRemovedAction:
		return removeCustomization(s, a.ID)
	case SessionMcpServerStateChangedAction:
		return updateMcpServer(s, a.ID, func(m McpServerCustomization) (McpServerCustomization, bool) {
			m.State = a.State
			m.Channel = a.Channel // full replacement: absent clears
			return m, true
		})
	case SessionMcpServerStartRequestedAction:
		return updateMcpServer(s, a.ID, func(m McpServerCustomization) (McpServerCustomization, bool) {
			m.State = McpServerState{Variant: McpServerStartingState{Kind: "starting"}}
			m.Channel = nil
			return m, true
		})
	case SessionMcpServerBackgroundRequestedAction:
		// Only a blocking start can be backgrounded; anything else is a
		// stale request and a no-op (the host restores blocking if it
		// refuses).
		return updateMcpServer(s, a.ID, func(m McpServerCustomization) (McpServerCustomization, bool) {
			st, ok := m.State.Variant.(McpServerStartingState)
			if !ok || st.Blocking == nil || !*st.Blocking {
				return m, false
			}
			st.Blocking = new(false)
			m.State = McpServerState{Variant: st}
			return m, true
		})
	case SessionMcpServerStopRequestedAction:
		return updateMcpServer(s, a.ID, func(m McpServerCustomization) (McpServerCustomization, bool) {
			m.State = McpServerState{Variant: McpServerStoppedState{Kind: "stopped"}}
			m.Channel = nil
			return m, true
		})
	}
	return s
}

// reorderChats returns the catalogue in the order the host names, each
// summary kept as it is. An order that is not a permutation of the
// catalogue (a chat missing, unknown or named twice) is ignored: ok false.
func reorderChats(chats []ChatSummary, order []URI) ([]ChatSummary, bool) {
	if len(order) != len(chats) {
		return nil, false
	}
	at := make(map[URI]int, len(chats))
	for i, c := range chats {
		at[c.Resource] = i
	}
	if len(at) != len(chats) {
		return nil, false // the catalogue itself names a chat twice
	}
	out := make([]ChatSummary, 0, len(chats))
	for _, uri := range order {
		i, ok := at[uri]
		if !ok {
			return nil, false
		}
		delete(at, uri) // a repeat then misses
		out = append(out, chats[i])
	}
	return out, true
}

// withDirectory adds dir to a working-directory set (session or chat),
// creating the set if absent; a directory already there is a no-op.
func withDirectory(dirs []URI, dir URI) []URI {
	if slices.Contains(dirs, dir) {
		return dirs
	}
	return cowAppend(dirs, dir)
}

// withoutDirectory removes dir from a working-directory set; absent is a
// no-op. An emptied set stays an empty array: for a chat, empty (no access)
// differs from absent (inherit the session's set).
func withoutDirectory(dirs []URI, dir URI) []URI {
	i := slices.Index(dirs, dir)
	if i < 0 {
		return dirs
	}
	return cowDelete(dirs, i)
}

// replaceDirectory is session/workingDirectoryReplaced: a compare-and-swap
// of dir for replacement, then deduplicated keeping each directory's first
// position, so [A B C] with B→C is [A C] and with C→A is [A B].
func replaceDirectory(dirs []URI, dir, replacement URI) []URI {
	i := slices.Index(dirs, dir)
	if i < 0 {
		return dirs
	}
	out := make([]URI, 0, len(dirs))
	for j, d := range dirs {
		if j == i {
			d = replacement
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

func indexOf[T any](s []T, match func(T) bool) int {
	for i := range s {
		if match(s[i]) {
			return i
		}
	}
	return -1
}

// mergeChatSummary writes the fields present in ch onto c. The identity
// field (resource) is ignored even if a sender carries it.
func mergeChatSummary(c ChatSummary, ch PartialChatSummary) ChatSummary {
	if ch.Title != nil {
		c.Title = *ch.Title
	}
	if ch.Status != nil {
		c.Status = *ch.Status
	}
	if ch.Activity != nil {
		c.Activity = ch.Activity
	}
	if ch.ModifiedAt != nil {
		c.ModifiedAt = *ch.ModifiedAt
	}
	if ch.Origin != nil {
		c.Origin = ch.Origin
	}
	if ch.Interactivity != nil {
		c.Interactivity = ch.Interactivity
	}
	if ch.WorkingDirectories != nil {
		c.WorkingDirectories = ch.WorkingDirectories
	}
	if ch.Changes != nil {
		c.Changes = ch.Changes
	}
	if ch.Movable != nil {
		c.Movable = ch.Movable
	}
	return c
}

func inputRequestID(r SessionInputRequest) string {
	switch v := r.Variant.(type) {
	case SessionChatInputRequest:
		return v.ID
	case SessionToolConfirmationRequest:
		return v.ID
	case SessionToolClientExecutionRequest:
		return v.ID
	case SessionToolAuthenticationRequest:
		return v.ID
	case UnknownSessionInputRequest:
		id, _ := rawStringField(v.Raw, "id")
		return id
	}
	return ""
}

// customizationID returns the id of any top-level customization, including
// variants newer than this client (read from their raw JSON).
func customizationID(c Customization) (string, bool) {
	switch v := c.Variant.(type) {
	case PluginCustomization:
		return v.ID, true
	case DirectoryCustomization:
		return v.ID, true
	case McpServerCustomization:
		return v.ID, true
	case UnknownCustomization:
		return rawStringField(v.Raw, "id")
	}
	return "", false
}

func childCustomizationID(c ChildCustomization) (string, bool) {
	switch v := c.Variant.(type) {
	case AgentCustomization:
		return v.ID, true
	case SkillCustomization:
		return v.ID, true
	case PromptCustomization:
		return v.ID, true
	case RuleCustomization:
		return v.ID, true
	case HookCustomization:
		return v.ID, true
	case McpServerCustomization:
		return v.ID, true
	case UnknownChildCustomization:
		return rawStringField(v.Raw, "id")
	}
	return "", false
}

// containerChildren returns the children of a container customization
// (plugin or directory); ok is false for anything that is not a container.
func containerChildren(c Customization) (children []ChildCustomization, ok bool) {
	switch v := c.Variant.(type) {
	case PluginCustomization:
		return v.Children, true
	case DirectoryCustomization:
		return v.Children, true
	}
	return nil, false
}

// withContainerChildren returns a copy of container c holding children.
func withContainerChildren(c Customization, children []ChildCustomization) Customization {
	switch v := c.Variant.(type) {
	case PluginCustomization:
		v.Children = children
		return Customization{Variant: v}
	case DirectoryCustomization:
		v.Children = children
		return Customization{Variant: v}
	}
	return c
}

func findCustomization(list []Customization, id string) int {
	return indexOf(list, func(c Customization) bool {
		cid, ok := customizationID(c)
		return ok && cid == id
	})
}

func findChild(children []ChildCustomization, id string) int {
	return indexOf(children, func(c ChildCustomization) bool {
		cid, ok := childCustomizationID(c)
		return ok && cid == id
	})
}

// toggleCustomization matches id against the top-level entries first, then
// against the children of every container. 1.0 (DELTA §6.4): plugins and
// MCP servers take the whole decision list; other entries set their enabled
// flag to its effective value. The container's own flag still gates its
// children; that is for readers to combine, not the reducer.
func toggleCustomization(s SessionState, id string, decisions []CustomizationEnablement) SessionState {
	if decisions == nil {
		decisions = []CustomizationEnablement{}
	}
	enabled := EffectiveEnabled(decisions)
	list := s.Customizations
	if i := findCustomization(list, id); i >= 0 {
		if c, ok := setCustomizationEnabled(list[i], decisions, enabled); ok {
			s.Customizations = cowSet(list, i, c)
		}
		return s
	}
	for i, c := range list {
		children, ok := containerChildren(c)
		if !ok {
			continue
		}
		j := findChild(children, id)
		if j < 0 {
			continue
		}
		child, ok := setChildEnabled(children[j], decisions, enabled)
		if !ok {
			return s
		}
		s.Customizations = cowSet(list, i, withContainerChildren(c, cowSet(children, j, child)))
		return s
	}
	return s
}

func setCustomizationEnabled(c Customization, decisions []CustomizationEnablement, enabled bool) (Customization, bool) {
	switch v := c.Variant.(type) {
	case PluginCustomization:
		v.Enablement = decisions
		return Customization{Variant: v}, true
	case DirectoryCustomization:
		v.Enabled = enabled
		return Customization{Variant: v}, true
	case McpServerCustomization:
		v.Enablement = decisions
		return Customization{Variant: v}, true
	case UnknownCustomization:
		raw, ok := rawWithField(v.Raw, "enabled", enabled)
		if !ok {
			return c, false
		}
		v.Raw = raw
		return Customization{Variant: v}, true
	}
	return c, false
}

func setChildEnabled(c ChildCustomization, decisions []CustomizationEnablement, enabled bool) (ChildCustomization, bool) {
	e := &enabled
	switch v := c.Variant.(type) {
	case AgentCustomization:
		v.Enabled = e
		return ChildCustomization{Variant: v}, true
	case SkillCustomization:
		v.Enabled = e
		return ChildCustomization{Variant: v}, true
	case PromptCustomization:
		v.Enabled = e
		return ChildCustomization{Variant: v}, true
	case RuleCustomization:
		v.Enabled = e
		return ChildCustomization{Variant: v}, true
	case HookCustomization:
		v.Enabled = e
		return ChildCustomization{Variant: v}, true
	case McpServerCustomization:
		v.Enablement = decisions
		return ChildCustomization{Variant: v}, true
	case UnknownChildCustomization:
		raw, ok := rawWithField(v.Raw, "enabled", enabled)
		if !ok {
			return c, false
		}
		v.Raw = raw
		return ChildCustomization{Variant: v}, true
	}
	return c, false
}

// removeCustomization drops a top-level entry (a container takes its
// children with it) or else the matching child from every container.
func removeCustomization(s SessionState, id string) SessionState {
	list := s.Customizations
	if i := findCustomization(list, id); i >= 0 {
		s.Customizations = cowDelete(list, i)
		return s
	}
	var out []Customization
	for i, c := range list {
		children, ok := containerChildren(c)
		if !ok {
			continue
		}
		j := findChild(children, id)
		if j < 0 {
			continue
		}
		if out == nil {
			out = cowSet(list, i, c)
		}
		// cowDelete keeps a non-nil [] — "parsed, contributes nothing"
		// differs from absent ("not parsed yet").
		out[i] = withContainerChildren(c, cowDelete(children, j))
	}
	if out == nil {
		return s
	}
	s.Customizations = out
	return s
}

// updateMcpServer applies f to the McpServerCustomization with the given
// id, top-level or inside a container. An id that names something other
// than an MCP server, or nothing, or a server f declines (ok false), leaves
// s unchanged.
func updateMcpServer(s SessionState, id string, f func(McpServerCustomization) (McpServerCustomization, bool)) SessionState {
	list := s.Customizations
	if i := findCustomization(list, id); i >= 0 {
		if m, ok := list[i].Variant.(McpServerCustomization); ok {
			if m, ok = f(m); ok {
				s.Customizations = cowSet(list, i, Customization{Variant: m})
			}
		}
		return s
	}
	for i, c := range list {
		children, ok := containerChildren(c)
		if !ok {
			continue
		}
		j := findChild(children, id)
		if j < 0 {
			continue
		}
		m, ok := children[j].Variant.(McpServerCustomization)
		if !ok {
			continue
		}
		if m, ok = f(m); !ok {
			return s
		}
		child := ChildCustomization{Variant: m}
		s.Customizations = cowSet(list, i, withContainerChildren(c, cowSet(children, j, child)))
		return s
	}
	return s
}

// rawStringField reads a top-level string member of a JSON object, for
// union variants this client does not model.
func rawStringField(raw json.RawMessage, name string) (string, bool) {
	return rawField[string](raw, name)
}

func rawBoolField(raw json.RawMessage, name string) (bool, bool) {
	return rawField[bool](raw, name)
}

// rawField decodes member name of the JSON object raw as a T.
func rawField[T any](raw json.RawMessage, name string) (T, bool) {
	var zero, v T
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return zero, false
	}
	m, ok := obj[name]
	if !ok {
		return zero, false
	}
	if err := json.Unmarshal(m, &v); err != nil {
		return zero, false
	}
	return v, true
}

// rawWithField returns a new JSON object equal to raw with member name set
// to v. raw itself is left untouched (an older snapshot may hold it).
func rawWithField(raw json.RawMessage, name string, v any) (json.RawMessage, bool) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	obj[name] = b
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(obj); err != nil {
		return nil, false
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), true
}

// EffectiveEnabled is a plugin's or MCP server's effective enabled flag
// (1.0): the first, most specific, decision, or true when there is none.
func EffectiveEnabled(decisions []CustomizationEnablement) bool {
	if len(decisions) == 0 {
		return true
	}
	switch d := decisions[0].Variant.(type) {
	case CustomizationSessionEnablement:
		return d.Enabled
	case CustomizationWorkspaceEnablement:
		return d.Enabled
	case CustomizationGlobalEnablement:
		return d.Enabled
	case UnknownCustomizationEnablement:
		if on, ok := rawBoolField(d.Raw, "enabled"); ok {
			return on
		}
	}
	return true
}

// SessionEnablement is the decision list a client sends to turn a plugin or
// MCP server on or off for this session.
func SessionEnablement(enabled bool) []CustomizationEnablement {
	return []CustomizationEnablement{{Variant: CustomizationSessionEnablement{Kind: "session", Enabled: enabled}}}
}
