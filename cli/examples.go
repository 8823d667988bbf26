package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpWidth is the width flag descriptions are wrapped to in --help, so
// a long one continues under its own column instead of wherever the
// terminal breaks it.
const helpWidth = 80

func init() {
	cobra.AddTemplateFunc("wrappedFlagUsages", func(fs *pflag.FlagSet) string { return fs.FlagUsagesWrapped(helpWidth) })
}

// wrapFlagHelp makes root's usage template print flags wrapped.
func wrapFlagHelp(root *cobra.Command) {
	t := root.UsageTemplate()
	t = strings.ReplaceAll(t, ".LocalFlags.FlagUsages", "wrappedFlagUsages .LocalFlags")
	t = strings.ReplaceAll(t, ".InheritedFlags.FlagUsages", "wrappedFlagUsages .InheritedFlags")
	root.SetUsageTemplate(t)
}

// examples are the commands' Example texts, by command path (without
// "ahptui "). Each line runs as printed against a host the run reaches
// (add --host URL or a saved name); session demo and MCP server
// mcp-github are the demo host's (ahptui --demo, or a demo host of its
// own), host work is saved (hosts add) with its token in ~/.work.token.
// TestCLIExamplesRun runs every line through the binary; demo serve's
// until its first line, then stops it.
var examples = map[string]string{
	"status": `ahptui status
ahptui status --json`,
	"sessions": `ahptui sessions
ahptui sessions --json`,
	"show": `ahptui show demo
ahptui show demo --json
ahptui show history --markdown`,
	"watch": `ahptui watch demo --until idle
ahptui watch demo --until input --timeout 10m`,
	"inbox": `ahptui inbox
ahptui inbox --json`,
	"approve": `ahptui approve demo
ahptui approve demo --option 2`,
	"deny": `ahptui deny demo`,
	"new": `ahptui new
ahptui new --json`,
	"dispose": `ahptui dispose demo --yes`,
	"cancel":  `ahptui cancel demo`,
	"rename":  `ahptui rename history "Why TestReconnect flaked"`,
	"answer": `ahptui answer demo --answer target=staging --answer notes="ship it"
ahptui answer demo --decline`,
	"send": `ahptui send demo "write the changelog" --approve all
ahptui send --new "stream" --json`,
	"mcp": `ahptui mcp list --session demo`,
	"mcp list": `ahptui mcp list --session demo
ahptui mcp list --json`,
	"mcp start":      `ahptui mcp start mcp-github --session demo`,
	"mcp stop":       `ahptui mcp stop mcp-github --session demo`,
	"mcp enable":     `ahptui mcp enable mcp-github --session demo`,
	"mcp disable":    `ahptui mcp disable mcp-github --session demo`,
	"mcp background": `ahptui mcp background mcp-github --session demo`,
	"auth":           `ahptui auth list`,
	"auth list": `ahptui auth list
ahptui auth list --json`,
	"auth status": `ahptui auth status`,
	"auth login":  `ahptui auth login "$(ahptui mcp list --session demo --json | jq -r '.[] | select(.id == "mcp-github") | .resource')" --no-browser`,
	"auth logout": `ahptui auth logout --all`,
	"hosts": `ahptui hosts
ahptui hosts --json`,
	"hosts list": `ahptui hosts list
ahptui hosts list --jq '.saved[] | select(.reach == "reachable") | .name'`,
	"hosts add": `ahptui hosts add work wss://agents.example.com/alice --token-file ~/.work.token --default
ahptui hosts add local ws://127.0.0.1:8080/ --json`,
	"hosts rm": `ahptui hosts rm work`,
	"demo":     `ahptui demo serve`,
	"demo serve": `ahptui demo serve
ahptui demo serve --token-file demo.token --json`,
	"doctor": `ahptui doctor
ahptui doctor --json`,
	"version": `ahptui version
ahptui version --json`,
	"resume": `ahptui resume demo
ahptui resume history --chat "Flake hunter" --json`,
	"chats": `ahptui chats list history`,
	"chats list": `ahptui chats list history
ahptui chats list history --json`,
	"chats new":  `ahptui chats new history`,
	"chats fork": `ahptui chats fork history "Flaky test" --json`,
	"changes":    `ahptui changes list history`,
	"changes list": `ahptui changes list history
ahptui changes list history --json`,
	"changes diff": `ahptui changes diff history protocol/wait.go`,
	"settings":     `ahptui settings show demo`,
	"settings show": `ahptui settings show demo
ahptui settings show demo --json`,
	"settings set": `ahptui settings set demo maxToolCalls 30
ahptui settings set demo Approvals "Allow all" --yes`,
	"terminals": `ahptui terminals list history`,
	"terminals list": `ahptui terminals list history
ahptui terminals list history --json`,
	"terminals show": `ahptui terminals show agenthost-terminal://history/shell
ahptui terminals show "$(ahptui terminals list history --json | jq -r '.[0].terminal')" --json`,
}

// setExample gives c its example, indented as cobra prints it.
func setExample(c *cobra.Command) {
	path := strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
	ex, ok := examples[path]
	if !ok || c.Example != "" {
		return
	}
	c.Example = "  " + strings.ReplaceAll(ex, "\n", "\n  ")
}
