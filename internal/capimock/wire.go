package capimock

import (
	"encoding/json"
	"net/http"
	"time"
)

// contentText reads an OpenAI/Anthropic content value: a string or a list
// of parts with "text".
func contentText(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var s string
		for _, p := range c {
			if m, ok := p.(map[string]any); ok {
				if t, ok := m["text"].(string); ok {
					s += t
				}
			}
		}
		return s
	}
	return ""
}

// chatCompletions serves POST /chat/completions in OpenAI's shape,
// streamed when the request asks for it.
func (s *Server) chatCompletions(w http.ResponseWriter, _ *http.Request, body []byte) {
	var req struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
			Name       string `json:"name"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name       string         `json:"name"`
				Parameters map[string]any `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.cfg.Logf("capimock: /chat/completions: bad body: %v", err)
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	var prompt, toolDone string
	var texts []string
	names := map[string]string{}
	for _, m := range req.Messages {
		texts = append(texts, contentText(m.Content))
		for _, tc := range m.ToolCalls {
			names[tc.ID] = tc.Function.Name
		}
		if m.Role == "user" {
			prompt, toolDone = contentText(m.Content), ""
		}
		if m.Role == "tool" {
			toolDone = names[m.ToolCallID]
			if toolDone == "" {
				toolDone = "requested"
			}
		}
	}
	tools := make([]tool, len(req.Tools))
	for i, t := range req.Tools {
		tools[i] = tool{Name: t.Function.Name, Schema: t.Function.Parameters}
	}
	c := s.decide(prompt, toolDone, cwdFrom(texts), tools)
	id := "chatcmpl-mock"
	created := time.Now().Unix()
	model := req.Model
	if model == "" {
		model = ModelID
	}
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": c.Text}
		finish := "stop"
		if c.Tool != "" {
			msg["content"] = nil
			msg["tool_calls"] = []any{map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Tool, "arguments": c.Args}}}
			finish = "tool_calls"
		}
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	send, ok := sse(w)
	if !ok {
		return
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	send("", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	if c.Tool != "" {
		send("", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Tool, "arguments": c.Args}}}}, nil))
		last := chunk(map[string]any{}, "tool_calls")
		last["usage"] = usage
		send("", last)
	} else {
		for _, p := range chunks(c.Text) {
			send("", chunk(map[string]any{"content": p}, nil))
		}
		last := chunk(map[string]any{}, "stop")
		last["usage"] = usage
		send("", last)
	}
	send("", "[DONE]")
}

// responses serves POST /responses in OpenAI's Responses API shape.
func (s *Server) responses(w http.ResponseWriter, _ *http.Request, body []byte) {
	var req struct {
		Model        string `json:"model"`
		Instructions string `json:"instructions"`
		Input        []struct {
			Type    string `json:"type"`
			Role    string `json:"role"`
			Content any    `json:"content"`
			Name    string `json:"name"`
			CallID  string `json:"call_id"`
		} `json:"input"`
		Tools []struct {
			Name       string         `json:"name"`
			Parameters map[string]any `json:"parameters"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.cfg.Logf("capimock: /responses: bad body: %v", err)
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	var prompt, toolDone string
	texts := []string{req.Instructions}
	names := map[string]string{}
	for _, in := range req.Input {
		texts = append(texts, contentText(in.Content))
		switch {
		case in.Type == "function_call":
			names[in.CallID] = in.Name
		case in.Type == "function_call_output":
			toolDone = names[in.CallID]
			if toolDone == "" {
				toolDone = "requested"
			}
		case in.Role == "user":
			prompt, toolDone = contentText(in.Content), ""
		}
	}
	tools := make([]tool, len(req.Tools))
	for i, t := range req.Tools {
		tools[i] = tool{Name: t.Name, Schema: t.Parameters}
	}
	c := s.decide(prompt, toolDone, cwdFrom(texts), tools)
	send, ok := sse(w)
	if !ok {
		return
	}
	model := req.Model
	if model == "" {
		model = ModelID
	}
	resp := map[string]any{"id": "resp_mock", "object": "response", "created_at": time.Now().Unix(), "model": model, "status": "in_progress", "output": []any{}}
	send("response.created", map[string]any{"type": "response.created", "response": resp})
	var item map[string]any
	if c.Tool != "" {
		item = map[string]any{"type": "function_call", "id": "fc_mock", "call_id": c.ID, "name": c.Tool, "arguments": c.Args, "status": "completed"}
		send("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
		send("response.function_call_arguments.done", map[string]any{"type": "response.function_call_arguments.done", "output_index": 0, "item_id": "fc_mock", "arguments": c.Args})
	} else {
		item = map[string]any{"type": "message", "id": "msg_mock", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": c.Text, "annotations": []any{}}}}
		send("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0,
			"item": map[string]any{"type": "message", "id": "msg_mock", "role": "assistant", "status": "in_progress", "content": []any{}}})
		for _, p := range chunks(c.Text) {
			send("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": "msg_mock", "output_index": 0, "content_index": 0, "delta": p})
		}
	}
	send("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	resp["status"] = "completed"
	resp["output"] = []any{item}
	resp["usage"] = map[string]any{"input_tokens": 10, "output_tokens": 10, "total_tokens": 20}
	send("response.completed", map[string]any{"type": "response.completed", "response": resp})
}

// messages serves POST /v1/messages in Anthropic's shape (text only; the
// mock's model is an OpenAI one, so the runtime should not call it).
func (s *Server) messages(w http.ResponseWriter, _ *http.Request, _ []byte) {
	s.cfg.Logf("capimock: /v1/messages called; the mock lists OpenAI models only")
	http.Error(w, "not served by the mock", http.StatusNotImplemented)
}
