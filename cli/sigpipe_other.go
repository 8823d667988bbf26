//go:build !unix

package cli

// catchSIGPIPE: only Unix kills a writer to a closed pipe.
func catchSIGPIPE() func() { return func() {} }
