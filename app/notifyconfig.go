package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// userConfigFile is the one small per-user settings file, in the config
// directory beside the tokens (--config-dir, else the user config dir +
// /ahptui). Today it holds one setting:
//
//	{"notify": false}
//
// turns the signals off (the bell and desktop notification when something
// starts waiting on you while ahptui is not in front), as --no-notify
// does for one run. hosts.yml is the user's host list, for people to
// edit; a switch does not belong in it.
const userConfigFile = "config.json"

// userConfig is config.json. Notify is a pointer: absent means on.
type userConfig struct {
	Notify *bool `json:"notify"`
}

// notifyEnabled says whether signals are on: not --no-notify, and not
// "notify": false in dir/config.json. A missing file is the defaults; a
// file that cannot be read or parsed leaves signals on and returns a
// notice for the status line, so a typo never keeps ahptui from starting.
func notifyEnabled(noNotify bool, dir string) (on bool, notice string) {
	if noNotify {
		return false, ""
	}
	path := filepath.Join(dir, userConfigFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true, ""
	}
	var c userConfig
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil {
		return true, fmt.Sprintf("%s ignored (notifications stay on): %v", path, err)
	}
	return c.Notify == nil || *c.Notify, ""
}
