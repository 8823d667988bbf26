package cli

import "github.com/spf13/cobra"

func actCmds(a *app) []*cobra.Command { return nil }
