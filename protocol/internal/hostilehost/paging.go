package hostilehost

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// EndlessSessions is the scenario of a host whose listSessions never
// ends: every page holds PerPage fresh sessions, each with a title of
// TitleBytes bytes, and a cursor never seen before. Left unbounded, a
// client pages until its memory is gone (2.1 GB within one 30 s handshake,
// on every reconnect). Use Answer as Config.Answer (or call it from one).
type EndlessSessions struct {
	PerPage    int
	TitleBytes int

	pages atomic.Int64
	bytes atomic.Int64
}

// Pages is how many pages the host has served.
func (e *EndlessSessions) Pages() int64 { return e.pages.Load() }

// Bytes is how many bytes of listSessions results the host has served.
func (e *EndlessSessions) Bytes() int64 { return e.bytes.Load() }

// Answer answers listSessions with the next page and leaves every other
// request to the host's default reply.
func (e *EndlessSessions) Answer(_ *Conn, req *jsonrpc.Request) (any, *jsonrpc.Error, bool) {
	if req.Method != "listSessions" {
		return nil, nil, false
	}
	n := e.pages.Add(1)
	title := strings.Repeat("t", e.TitleBytes)
	type item struct {
		Resource   string `json:"resource"`
		Provider   string `json:"provider"`
		Title      string `json:"title"`
		Status     int    `json:"status"`
		CreatedAt  string `json:"createdAt"`
		ModifiedAt string `json:"modifiedAt"`
	}
	page := struct {
		Items      []item `json:"items"`
		NextCursor string `json:"nextCursor"`
	}{NextCursor: "cursor-" + strconv.FormatInt(n, 10)}
	for i := range e.PerPage {
		page.Items = append(page.Items, item{
			Resource:  "ahp-session:/endless-" + strconv.FormatInt(n, 10) + "-" + strconv.Itoa(i),
			Provider:  "p",
			Title:     title,
			Status:    1,
			CreatedAt: "1970-01-01T00:00:01.000Z", ModifiedAt: "1970-01-01T00:00:02.000Z",
		})
	}
	b, err := json.Marshal(page)
	if err != nil {
		return nil, jsonrpc.NewError(jsonrpc.InternalError, err.Error()), true
	}
	e.bytes.Add(int64(len(b)))
	return json.RawMessage(b), nil, true
}
