package jsonrpc

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckArrayElements(t *testing.T) {
	tests := []struct {
		frame string
		limit int
		over  bool
	}{
		{`[]`, 0, false},
		{`[1,2,3]`, 3, false},
		{`[1,2,3]`, 2, true},
		{`{"a":[1,2],"b":[3]}`, 3, false},
		{`{"a":[1,2],"b":[3]}`, 2, true},
		{`[[],[],[]]`, 3, false},
		{`[[1],[2],[3]]`, 5, true},      // 3 outer + 3 inner
		{`["a,b,c","[1,2]"]`, 2, false}, // commas and brackets in strings do not count
		{`["a\",b","c"]`, 2, false},     // an escaped quote does not end the string
		{`[{"k":[1,2]},{"k":3}]`, 4, false},
		{`[{"k":[1,2]},{"k":3}]`, 3, true},
		{`[ true , false , null , -1.5e3 ]`, 4, false},
		{`[ true , false , null , -1.5e3 ]`, 3, true},
		{`{"a":1,"b":2,"c":{"d":3}}`, 1, false}, // object members are not array elements
		{strings.Repeat("[", 100000) + strings.Repeat("]", 100000), 100000, false},
		{strings.Repeat("[", 100000) + strings.Repeat("]", 100000), 99998, true},
	}
	for _, tt := range tests {
		err := checkArrayElements([]byte(tt.frame), tt.limit)
		if (err != nil) != tt.over {
			t.Errorf("%.40q limit %d: err = %v, want over=%v", tt.frame, tt.limit, err, tt.over)
		}
		if err != nil && !errors.Is(err, ErrFrameTooBig) {
			t.Errorf("%.40q: error does not wrap ErrFrameTooBig: %v", tt.frame, err)
		}
	}
	if err := checkArrayElements([]byte(`[1,2,3]`), -1); err != nil {
		t.Errorf("a negative limit must disable the check: %v", err)
	}
}

// FuzzCheckArrayElements: the counter never panics on any bytes.
func FuzzCheckArrayElements(f *testing.F) {
	f.Add([]byte(`{"a":[1,[2,3],"x\"]"]}`), 3)
	f.Add([]byte(`["\`), 1)
	f.Fuzz(func(t *testing.T, frame []byte, limit int) {
		_ = checkArrayElements(frame, limit)
	})
}
