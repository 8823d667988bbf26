package views

import (
	"fmt"
	"image/color"
	"math"
	"reflect"
	"testing"

	"charm.land/lipgloss/v2"

	"github.com/ahptui/ahptui/protocol"
)

// minTextContrast is WCAG 2.x's level AA for body text (success criterion
// 1.4.3): ahptui's text is one terminal cell tall, never "large text".
const minTextContrast = 4.5

// terminalBackgrounds are the backgrounds a style without one of its own is
// drawn on: the palette is picked by the terminal's background being dark or
// light, not by its exact colour, so the text must read on the extreme
// (black, white) and on a greyish one. The palette's own BgSubtle stands for
// the greyish terminal: #25242C is lighter than most dark themes' grounds
// (VS Code's #1E1E1E), #ECE9F2 darker than most light ones.
func terminalBackgrounds(th Theme) []color.Color {
	if th.IsDark {
		return []color.Color{lipgloss.Color("#000000"), th.Palette.BgSubtle}
	}
	return []color.Color{lipgloss.Color("#FFFFFF"), th.Palette.BgSubtle}
}

// relativeLuminance is WCAG 2.x's relative luminance of an sRGB colour.
func relativeLuminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		s := float64(v>>8) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// contrastRatio is WCAG 2.x's contrast ratio, 1 to 21.
func contrastRatio(a, b color.Color) float64 {
	la, lb := relativeLuminance(a), relativeLuminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

func hasColour(c color.Color) bool {
	_, none := c.(lipgloss.NoColor)
	return c != nil && !none
}

// themeTextStyles is every style the theme hands out that colours text,
// named: each lipgloss.Style field of Theme (found by reflection, so a style
// added later is checked without editing this list), the bubbles/help
// styles, and every badge.
func themeTextStyles(th Theme) map[string]lipgloss.Style {
	out := map[string]lipgloss.Style{}
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		for i := range v.NumField() {
			f, name := v.Field(i), prefix+v.Type().Field(i).Name
			switch st := f.Interface().(type) {
			case lipgloss.Style:
				out[name] = st
			default:
				if f.Kind() == reflect.Struct && f.Type() != reflect.TypeFor[Palette]() {
					walk(name+".", f)
				}
			}
		}
	}
	walk("", reflect.ValueOf(th))
	for name, b := range themeAllBadges(th) {
		out["badge "+name] = b.Style
	}
	for _, st := range []protocol.SessionStatus{protocol.SessionStatusIdle, protocol.SessionStatusError,
		protocol.SessionStatusInProgress, protocol.SessionStatusInputNeeded} {
		out[fmt.Sprintf("session badge %d", st)] = SessionBadge(th, st).Style
	}
	return out
}

// TestThemeTextContrast is issue 14 item 10: every text colour of the dark
// and the light palette reads at WCAG AA (4.5:1) on the background it is
// drawn on — its own when the style sets one, else the terminal's. The
// footer's key descriptions were #6B6976 on black (3.9:1; tmux's 256-colour
// #5f5f87, 3.5:1). Borders carry no text and are left out.
func TestThemeTextContrast(t *testing.T) {
	for _, dark := range []bool{true, false} {
		th := NewTheme(dark, false)
		checked := 0
		for name, st := range themeTextStyles(th) {
			fg := st.GetForeground()
			if !hasColour(fg) {
				continue
			}
			bgs := terminalBackgrounds(th)
			if bg := st.GetBackground(); hasColour(bg) {
				bgs = []color.Color{bg}
			}
			for _, bg := range bgs {
				checked++
				if r := contrastRatio(fg, bg); r < minTextContrast {
					t.Errorf("dark=%v %s: %s on %s is %.2f:1, want ≥ %.1f:1", dark, name, hexOf(fg), hexOf(bg), r, minTextContrast)
				}
			}
		}
		// The reflection must have found the styles; a walk that finds
		// nothing would pass vacuously.
		if checked < 40 {
			t.Errorf("dark=%v: only %d foreground/background pairs checked", dark, checked)
		}
	}
}

func hexOf(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
}

// TestContrastRatio pins the formula to WCAG's published values.
func TestContrastRatio(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want float64
	}{
		{"#000000", "#FFFFFF", 21},
		{"#FFFFFF", "#FFFFFF", 1},
		{"#767676", "#FFFFFF", 4.54}, // the lightest grey that passes AA on white
		{"#5F5F87", "#000000", 3.47}, // the footer colour
	} {
		if got := contrastRatio(lipgloss.Color(tc.a), lipgloss.Color(tc.b)); math.Abs(got-tc.want) > 0.01 {
			t.Errorf("contrast(%s, %s) = %.3f, want %.2f", tc.a, tc.b, got, tc.want)
		}
	}
}
