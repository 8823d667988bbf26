package ui

import "github.com/ahptui/ahptui/protocol"

// turnCache keeps the rendered lines of completed turns. Completed turns are
// immutable snapshots, so a turn re-renders only when something that
// changes its look does: the width, the theme, the selection or an
// expansion inside it. This keeps a key press on a 1000-turn chat cheap.
type turnCache struct {
	width   int
	entries map[string]*cachedTurn
	// pin asks the next render to scroll the selected item into view.
	pin bool
}

type turnKey struct {
	first  *protocol.ResponsePart
	nparts int
	state  protocol.TurnState
	sel    string
	exp    int
	global bool
}

type cachedTurn struct {
	key   turnKey
	lines []string
	items map[string]int
}

func (c *turnCache) reset() { c.entries = nil }

func (c *turnCache) check(w int) {
	if c.width != w || c.entries == nil {
		c.width = w
		c.entries = map[string]*cachedTurn{}
	}
}

func (c *turnCache) turn(m *Model, t *protocol.Turn, w int) ([]string, map[string]int) {
	k := turnKey{nparts: len(t.ResponseParts), state: t.State, global: m.expanded[""]}
	if len(t.ResponseParts) > 0 {
		k.first = &t.ResponseParts[0]
	}
	e := c.entries[t.Id]
	if e != nil {
		if _, ok := e.items[m.itemSel]; ok && m.itemSel != "" {
			k.sel = m.itemSel
		}
		for id := range e.items {
			if m.expanded[id] {
				k.exp++
			}
		}
		if e.key == k {
			return e.lines, e.items
		}
	}
	lines, items := m.renderTurn(t.Id, t.Message, t.ResponseParts, t.State, t.Error, w, false)
	if _, ok := items[m.itemSel]; ok && m.itemSel != "" {
		k.sel = m.itemSel
	}
	k.exp = 0
	for id := range items {
		if m.expanded[id] {
			k.exp++
		}
	}
	c.entries[t.Id] = &cachedTurn{key: k, lines: lines, items: items}
	return lines, items
}
