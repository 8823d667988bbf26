package jsonrpc

import "fmt"

// DefaultMaxArrayElements bounds the array elements in one inbound frame
// (all arrays, nested ones included). A frame's byte size alone does not
// bound the memory it costs: each `{}` (3 bytes) of an array decodes into a
// whole Go struct, so a 3 MB frame of a million `{}` as AHP agents costs
// ~730 MB of allocation and keeps ~140 MB. 262144 elements is far above
// any real AHP frame (turn history is paged with fetchTurns) and keeps the
// worst case near 40 MB.
const DefaultMaxArrayElements = 1 << 18

// checkArrayElements returns an error wrapping ErrFrameTooBig when frame
// holds more than limit array elements. It is one linear pass that never
// recurses, so nesting depth cannot exhaust the stack. A frame that is not
// valid JSON gets an approximate count; Decode rejects it anyway.
func checkArrayElements(frame []byte, limit int) error {
	if limit <= 0 {
		return nil
	}
	n := 0
	// inArray[d] says whether nesting level d is an array; expect says a
	// value may start next (after '[' or ',' inside an array).
	var inArray []bool
	expect := false
	for i := 0; i < len(frame); i++ {
		c := frame[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case ']', '}':
			if len(inArray) > 0 {
				inArray = inArray[:len(inArray)-1]
			}
			expect = false
			continue
		case ',':
			expect = len(inArray) > 0 && inArray[len(inArray)-1]
			continue
		case ':':
			expect = false
			continue
		}
		if expect && len(inArray) > 0 && inArray[len(inArray)-1] {
			n++
			if n > limit {
				return fmt.Errorf("%w: frame holds more than %d array elements", ErrFrameTooBig, limit)
			}
		}
		expect = false
		switch c {
		case '[':
			inArray = append(inArray, true)
			expect = true
		case '{':
			inArray = append(inArray, false)
		case '"':
			for i++; i < len(frame) && frame[i] != '"'; i++ {
				if frame[i] == '\\' {
					i++
				}
			}
		}
	}
	return nil
}
