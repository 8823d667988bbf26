package protocol

import (
	"encoding/json"
	"testing"
)

func TestWithSessionEnablement(t *testing.T) {
	workspace := CustomizationEnablement{Variant: CustomizationWorkspaceEnablement{Kind: "workspace", URI: "file:///w", Enabled: true}}
	global := CustomizationEnablement{Variant: CustomizationGlobalEnablement{Kind: "global", Enabled: false}}
	oldSession := CustomizationEnablement{Variant: CustomizationSessionEnablement{Kind: "session", Enabled: true}}
	var unknown CustomizationEnablement
	if err := json.Unmarshal([]byte(`{"kind":"x-team","enabled":true}`), &unknown); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		decisions []CustomizationEnablement
		enabled   bool
		want      string
	}{
		{"none", nil, false, `[{"kind":"session","enabled":false}]`},
		{"keeps the others after it", []CustomizationEnablement{workspace, global}, false,
			`[{"kind":"session","enabled":false},{"kind":"workspace","uri":"file:///w","enabled":true},{"kind":"global","enabled":false}]`},
		{"replaces the old session decision", []CustomizationEnablement{oldSession, global}, false,
			`[{"kind":"session","enabled":false},{"kind":"global","enabled":false}]`},
		{"keeps an unknown kind verbatim", []CustomizationEnablement{unknown}, true,
			`[{"kind":"session","enabled":true},{"kind":"x-team","enabled":true}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]CustomizationEnablement(nil), tt.decisions...)
			got := WithSessionEnablement(in, tt.enabled)
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("got  %s\nwant %s", b, tt.want)
			}
			if EffectiveEnabled(got) != tt.enabled {
				t.Errorf("EffectiveEnabled = %v, want %v", !tt.enabled, tt.enabled)
			}
			for i := range in {
				if in[i].Kind() != tt.decisions[i].Kind() {
					t.Errorf("input changed at %d", i)
				}
			}
		})
	}
}
