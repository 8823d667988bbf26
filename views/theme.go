package views

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"

	"github.com/ahptui/ahptui/protocol"
)

// Palette is the theme's colours, already resolved for the background.
// Every field is lipgloss.NoColor{} when colour is off.
type Palette struct {
	Primary, Secondary            color.Color
	Fg, FgMuted, FgSubtle         color.Color
	BgSubtle, BgSelected          color.Color
	Border, BorderFocus           color.Color
	Error, Warning, Success, Info color.Color
	OnAccent                      color.Color // text on a coloured badge background
}

// Theme is the one place views get styles from; no view builds colours of
// its own. It is a plain value: build it once per background change with
// NewTheme and pass it down.
type Theme struct {
	IsDark  bool
	NoColor bool
	Palette Palette

	Title  lipgloss.Style // panel and dialog titles
	Text   lipgloss.Style // ordinary body text
	Muted  lipgloss.Style // secondary text: timestamps, ids, hints
	Subtle lipgloss.Style // least important text: separators, placeholders

	// Panel is a blurred bordered panel, PanelFocused the one with focus.
	// Without colour, focus is told apart by a thick border.
	Panel, PanelFocused           lipgloss.Style
	PanelTitle, PanelTitleFocused lipgloss.Style

	Selected lipgloss.Style // the highlighted row in a list

	Error, Warning, Success, Info lipgloss.Style

	// Status bar segments. StatusBar is the base every other segment sits
	// on; StatusState is recoloured per connection state by ConnBadge.
	StatusBar, StatusHost, StatusVersion         lipgloss.Style
	StatusMessage, StatusError, StatusNeedsInput lipgloss.Style

	// Help styles for bubbles/help, and for inline key hints ("y approve").
	Help              help.Styles
	HelpKey, HelpDesc lipgloss.Style

	// GrantBox frames the inline "grant additional access" prompt.
	GrantBox, GrantTitle, GrantURL lipgloss.Style

	UserLabel, UserMessage   lipgloss.Style
	AgentLabel, AgentMessage lipgloss.Style

	// Reasoning is the agent's thinking text, kept visually secondary.
	Reasoning lipgloss.Style
}

// NoColorRequested reports whether the NO_COLOR convention
// (https://no-color.org) asks for no colour: the variable is set and not
// empty. getenv is os.Getenv in the program and a map lookup in tests.
func NoColorRequested(getenv func(string) string) bool {
	return getenv("NO_COLOR") != ""
}

// NewTheme builds the theme for a dark or light terminal background (the
// program learns it from tea.BackgroundColorMsg and rebuilds the theme) and
// with colour switched off when noColor is set. Without colour, meaning is
// carried by text and attributes: badges always have a label, errors and
// items that need the user are bold, the selection is reversed.
func NewTheme(isDark, noColor bool) Theme {
	ld := lipgloss.LightDark(isDark)
	c := func(light, dark string) color.Color {
		if noColor {
			return lipgloss.NoColor{}
		}
		return ld(lipgloss.Color(light), lipgloss.Color(dark))
	}
	p := Palette{
		Primary:     c("#5E42F5", "#9C8CFF"),
		Secondary:   c("#00756A", "#5FE0C5"),
		Fg:          c("#2D2C35", "#DFDBDD"),
		FgMuted:     c("#55525F", "#A19DAD"),
		FgSubtle:    c("#6A6677", "#918E9D"),
		BgSubtle:    c("#ECE9F2", "#25242C"),
		BgSelected:  c("#DCD5FF", "#3B3363"),
		Border:      c("#CBC7D4", "#3F3E4A"),
		BorderFocus: c("#5E42F5", "#9C8CFF"),
		Error:       c("#C8243F", "#FF6B88"),
		Warning:     c("#9A5B00", "#F5B544"),
		Success:     c("#18753F", "#5BD68A"),
		Info:        c("#1F63C0", "#74B4FF"),
		OnAccent:    c("#FFFFFF", "#16151C"),
	}
	s := lipgloss.NewStyle
	th := Theme{IsDark: isDark, NoColor: noColor, Palette: p}
	// Every text colour reads at WCAG AA (4.5:1) on black or white and on
	// BgSubtle (TestThemeTextContrast); Border and BorderFocus draw
	// frames only and are exempt.

	th.Title = s().Bold(true).Foreground(p.Primary)
	th.Text = s().Foreground(p.Fg)
	th.Muted = s().Foreground(p.FgMuted)
	th.Subtle = s().Foreground(p.FgSubtle)

	th.Panel = s().Border(lipgloss.RoundedBorder()).BorderForeground(p.Border)
	focusBorder := lipgloss.RoundedBorder()
	if noColor {
		focusBorder = lipgloss.ThickBorder()
	}
	th.PanelFocused = s().Border(focusBorder).BorderForeground(p.BorderFocus)
	th.PanelTitle = s().Foreground(p.FgMuted)
	th.PanelTitleFocused = s().Bold(true).Foreground(p.Primary)

	th.Selected = s().Foreground(p.Fg).Background(p.BgSelected).Bold(true)
	if noColor {
		th.Selected = s().Reverse(true)
	}

	th.Error = s().Foreground(p.Error).Bold(true)
	th.Warning = s().Foreground(p.Warning)
	th.Success = s().Foreground(p.Success)
	th.Info = s().Foreground(p.Info)

	th.StatusBar = s().Foreground(p.FgMuted).Background(p.BgSubtle)
	th.StatusHost = th.StatusBar.Foreground(p.Fg)
	th.StatusVersion = th.StatusBar.Foreground(p.FgSubtle)
	th.StatusMessage = th.StatusBar.Foreground(p.Fg)
	th.StatusError = th.StatusBar.Foreground(p.Error).Bold(true)
	th.StatusNeedsInput = s().Foreground(p.OnAccent).Background(p.Warning).Bold(true)

	th.HelpKey = s().Foreground(p.FgMuted).Bold(noColor)
	th.HelpDesc = s().Foreground(p.FgSubtle)
	// The separators and the ellipsis are glyphs a reader must see too
	// (the ellipsis says keys were cut), so they take the faintest text
	// colour, not the border's.
	sep := s().Foreground(p.FgSubtle)
	th.Help = help.Styles{
		Ellipsis:       sep,
		ShortKey:       th.HelpKey,
		ShortDesc:      th.HelpDesc,
		ShortSeparator: sep,
		FullKey:        th.HelpKey,
		FullDesc:       th.HelpDesc,
		FullSeparator:  sep,
	}

	th.GrantBox = s().Border(lipgloss.RoundedBorder()).BorderForeground(p.Warning).Padding(0, 1)
	if noColor {
		th.GrantBox = th.GrantBox.Border(lipgloss.DoubleBorder())
	}
	th.GrantTitle = s().Foreground(p.Warning).Bold(true)
	th.GrantURL = s().Foreground(p.Info).Underline(true)

	th.UserLabel = s().Foreground(p.Secondary).Bold(true)
	th.UserMessage = s().Foreground(p.Fg).
		Border(lipgloss.NormalBorder(), false, false, false, true).
		BorderForeground(p.Secondary).PaddingLeft(1)
	th.AgentLabel = s().Foreground(p.Primary).Bold(true)
	th.AgentMessage = s().Foreground(p.Fg).PaddingLeft(2)
	th.Reasoning = s().Foreground(p.FgMuted).Italic(true)
	return th
}

// Badge is a state marker: a one-cell glyph and a label. The label is
// always rendered, so the state reads the same with NO_COLOR or for a
// colour-blind user; colour only reinforces it.
type Badge struct {
	Glyph string
	Label string
	Style lipgloss.Style
}

// String renders "glyph label" in the badge's style.
func (b Badge) String() string { return b.Style.Render(b.Plain()) }

// Plain is the unstyled "glyph label", for width arithmetic and tests. Badge
// styles carry no padding or border, so lipgloss.Width(b.String()) ==
// lipgloss.Width(b.Plain()).
func (b Badge) Plain() string { return b.Glyph + " " + b.Label }

// Badge glyphs. Each is one terminal cell wide (checked by a test): no emoji
// presentation, nothing that needs a variation selector.
const (
	badgeGlyphStreaming = "⋯"
	badgeGlyphAsk       = "◆"
	badgeGlyphAskResult = "◇"
	badgeGlyphRunning   = "◐"
	badgeGlyphAuth      = "⚠"
	badgeGlyphDone      = "✓"
	badgeGlyphFailed    = "✗"
	badgeGlyphCancelled = "⊘"
	badgeGlyphStarting  = "◌"
	badgeGlyphReady     = "●"
	badgeGlyphStopped   = "○"
	badgeGlyphUnknown   = "?"
	badgeGlyphRetry     = "↻"
)

// ToolCallBadge returns the badge for a tool call's status as spelled on
// the wire (protocol.ToolCallStatus*); "running" and "cancelled" read well
// as they are, so their label is the status itself. failed marks a
// completed call whose result is an error. An unknown status (a newer host)
// still gets a readable badge carrying its sanitized name.
func (th Theme) ToolCallBadge(status string, failed bool) Badge {
	s := lipgloss.NewStyle
	p := th.Palette
	attention := s().Foreground(p.Warning).Bold(true)
	switch status {
	case protocol.ToolCallStatusStreaming:
		return Badge{badgeGlyphStreaming, "preparing", s().Foreground(p.FgMuted)}
	case protocol.ToolCallStatusPendingConfirmation:
		return Badge{badgeGlyphAsk, "needs approval", attention}
	case protocol.ToolCallStatusRunning:
		return Badge{badgeGlyphRunning, protocol.ToolCallStatusRunning, s().Foreground(p.Info)}
	case protocol.ToolCallStatusAuthRequired:
		return Badge{badgeGlyphAuth, "needs sign-in", attention}
	case protocol.ToolCallStatusPendingResultConfirmation:
		return Badge{badgeGlyphAskResult, "review result", attention}
	case protocol.ToolCallStatusCompleted:
		if failed {
			return Badge{badgeGlyphFailed, "failed", s().Foreground(p.Error).Bold(true)}
		}
		return Badge{badgeGlyphDone, "done", s().Foreground(p.Success)}
	case protocol.ToolCallStatusCancelled:
		return Badge{badgeGlyphCancelled, protocol.ToolCallStatusCancelled, s().Foreground(p.FgSubtle)}
	}
	return th.unknownBadge(status)
}

// McpBadge returns the badge for an MCP server state kind as spelled on the
// wire ("starting", "ready", "authRequired", "error", "stopped"). reason is
// the McpAuthRequiredReason for authRequired ("required", "expired",
// "insufficientScope") and ignored otherwise.
func (th Theme) McpBadge(kind, reason string) Badge {
	s := lipgloss.NewStyle
	p := th.Palette
	switch kind {
	case "starting":
		return Badge{badgeGlyphStarting, "starting", s().Foreground(p.Info)}
	case "ready":
		return Badge{badgeGlyphReady, "ready", s().Foreground(p.Success)}
	case "authRequired":
		label := "sign in"
		switch reason {
		case "expired":
			label = "sign-in expired"
		case "insufficientScope":
			label = "needs access"
		}
		return Badge{badgeGlyphAuth, label, s().Foreground(p.Warning).Bold(true)}
	case "error":
		return Badge{badgeGlyphFailed, "error", s().Foreground(p.Error).Bold(true)}
	case "stopped":
		return Badge{badgeGlyphStopped, "stopped", s().Foreground(p.FgSubtle)}
	}
	return th.unknownBadge(kind)
}

// EnabledBadge marks whether an MCP server is enabled for the session.
func (th Theme) EnabledBadge(enabled bool) Badge {
	if enabled {
		return Badge{badgeGlyphDone, "enabled", lipgloss.NewStyle().Foreground(th.Palette.FgMuted)}
	}
	return Badge{badgeGlyphCancelled, "disabled", lipgloss.NewStyle().Foreground(th.Palette.FgSubtle).Strikethrough(!th.NoColor)}
}

// ConnBadge returns the status-bar badge for the connection state.
func (th Theme) ConnBadge(state ConnState) Badge {
	s := lipgloss.NewStyle().Bold(true)
	p := th.Palette
	switch state {
	case ConnConnecting:
		return Badge{badgeGlyphStarting, "connecting", s.Foreground(p.OnAccent).Background(p.Info)}
	case ConnReady:
		return Badge{badgeGlyphReady, "connected", s.Foreground(p.OnAccent).Background(p.Success)}
	case ConnReconnecting:
		return Badge{badgeGlyphRetry, "reconnecting", s.Foreground(p.OnAccent).Background(p.Warning)}
	case ConnFailed:
		return Badge{badgeGlyphFailed, "disconnected", s.Foreground(p.OnAccent).Background(p.Error)}
	}
	return Badge{badgeGlyphUnknown, "unknown", s}
}

func (th Theme) unknownBadge(name string) Badge {
	label := SanitizeLine(name)
	if label == "" {
		label = "unknown"
	}
	return Badge{badgeGlyphUnknown, Truncate(label, 24), lipgloss.NewStyle().Foreground(th.Palette.FgMuted)}
}
