package protocol

// ReduceCanvas applies canvas/stateChanged to a CanvasState (1.0, an
// experimental channel): the action carries the whole new state, which
// replaces the old one, so the channel can evolve without new actions. Any
// other action returns s unchanged. No canvas rule differs between
// versions (0.6 has no canvases), so it takes no Rules.
func ReduceCanvas(s CanvasState, a StateAction) CanvasState {
	if c, ok := a.Variant.(CanvasStateChangedAction); ok {
		return c.Canvas
	}
	return s
}
