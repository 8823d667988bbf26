package capimock

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// Prompts that make the mock call a tool. The match is on the latest user
// message, case-insensitive.
const (
	// PromptShell runs "touch ShellFile" with the shell tool: a command
	// that writes, so VS Code's host asks for approval (it approves
	// read-only commands such as ls by itself).
	PromptShell = "run touch"
	PromptLs    = "run ls"      // the shell tool with ls: approved by the host itself
	PromptAsk   = "ask me"      // the ask-the-user tool: an input request
	PromptWrite = "write hello" // a file-creating tool, writing WriteFile
)

// ShellFile is the file PromptShell's command creates in the session's
// working directory: it exists only when the command was approved.
const ShellFile = "shell-ran.txt"

// WriteFile is the file name the write tool is asked to create, in the
// session's working directory when the request names one.
const WriteFile = "hello.txt"

// toolNames are the tool names tried for each prompt, in order.
var toolNames = map[string][]string{
	PromptShell: {"bash", "shell", "powershell", "run_in_terminal"},
	PromptLs:    {"bash", "shell", "powershell", "run_in_terminal"},
	PromptAsk:   {"ask_user", "askuser", "ask_user_question", "askuserquestion"},
	PromptWrite: {"create", "write", "write_file", "create_file", "edit"},
}

// tool is one tool the request offers: its name and JSON schema.
type tool struct {
	Name   string
	Schema map[string]any
}

// call is the mock's decision for one completion: text, or a tool call.
type call struct {
	Text string
	Tool string
	Args string
	ID   string
}

var callSeq atomic.Int64

// decide picks the answer for a conversation whose latest user text is
// prompt and whose last message is a tool result when toolDone names it.
func (s *Server) decide(prompt, toolDone, cwd string, tools []tool) call {
	if toolDone != "" {
		return call{Text: "The " + toolDone + " tool finished. " + Reply}
	}
	low := strings.ToLower(prompt)
	for _, p := range []string{PromptShell, PromptLs, PromptAsk, PromptWrite} {
		if !strings.Contains(low, p) {
			continue
		}
		for _, want := range toolNames[p] {
			for _, t := range tools {
				if strings.EqualFold(t.Name, want) {
					return call{Tool: t.Name, Args: args(p, t, cwd), ID: fmt.Sprintf("call_mock_%d", callSeq.Add(1))}
				}
			}
		}
		names := make([]string, len(tools))
		for i, t := range tools {
			names[i] = t.Name
		}
		s.cfg.Logf("capimock: prompt %q asks for a tool but the request offers none of %v; offered: %v", p, toolNames[p], names)
	}
	return call{Text: Reply}
}

// args fills the tool's required arguments from its schema, with the
// values a prompt means.
func args(prompt string, t tool, cwd string) string {
	out := map[string]any{}
	props, _ := t.Schema["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := t.Schema["required"].([]any); ok {
		for _, r := range req {
			if n, ok := r.(string); ok {
				required[n] = true
			}
		}
	}
	for name, p := range props {
		v, known := value(prompt, name, cwd)
		if !known && !required[name] {
			continue
		}
		if !known {
			v = zero(p)
		}
		out[name] = v
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func value(prompt, name, cwd string) (any, bool) {
	switch strings.ToLower(name) {
	case "command", "cmd":
		if prompt == PromptShell {
			return "touch " + ShellFile, true
		}
		return "ls", true
	case "description", "intent":
		switch prompt {
		case PromptShell:
			return "Create a file", true
		case PromptLs:
			return "List the files", true
		case PromptWrite:
			return "Write a greeting", true
		}
		return "Ask the user", true
	case "question", "prompt", "message":
		return "Which colour do you like?", true
	case "choices", "options":
		return []string{"red", "blue"}, true
	case "allow_freeform", "allowfreeform":
		return true, true
	case "path", "file_path", "filepath", "filename":
		if cwd != "" {
			return filepath.Join(cwd, WriteFile), true
		}
		return WriteFile, true
	case "file_text", "content", "contents", "text":
		return "hello from the mock\n", true
	}
	return nil, false
}

func zero(p any) any {
	m, _ := p.(map[string]any)
	switch m["type"] {
	case "boolean":
		return false
	case "number", "integer":
		return 1
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	return "x"
}

// chunks splits text into a few pieces so a test sees it streamed.
func chunks(text string) []string {
	words := strings.SplitAfter(text, " ")
	var out []string
	for i := 0; i < len(words); i += 2 {
		out = append(out, strings.Join(words[i:min(i+2, len(words))], ""))
	}
	return out
}

func sse(w http.ResponseWriter) (func(event string, v any), bool) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "no streaming", http.StatusInternalServerError)
		return nil, false
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return func(event string, v any) {
		if event != "" {
			fmt.Fprintf(w, "event: %s\n", event)
		}
		if s, ok := v.(string); ok {
			fmt.Fprintf(w, "data: %s\n\n", s)
		} else {
			b, _ := json.Marshal(v)
			fmt.Fprintf(w, "data: %s\n\n", b)
		}
		fl.Flush()
	}, true
}

// cwdFrom finds a working directory the runtime mentions in its prompts.
func cwdFrom(texts []string) string {
	for _, t := range texts {
		for _, marker := range []string{"Current working directory: ", "current working directory: ", "<cwd>", "Working directory: "} {
			if i := strings.Index(t, marker); i >= 0 {
				rest := t[i+len(marker):]
				if j := strings.IndexAny(rest, "\n<"); j >= 0 {
					rest = rest[:j]
				}
				rest = strings.TrimSpace(rest)
				if filepath.IsAbs(rest) {
					return rest
				}
			}
		}
	}
	return ""
}
