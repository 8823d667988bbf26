package demohost_test

import (
	"context"
	"fmt"

	"github.com/ahptui/ahptui/demohost"
)

// Start a demo host for a test or for `ahptui --demo`; clients dial URL.
func ExampleStart() {
	h, err := demohost.Start(context.Background(), demohost.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close()
	fmt.Println(h.URL()[:len("ws://127.0.0.1:")])
	// Output: ws://127.0.0.1:
}
