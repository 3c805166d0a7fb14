package train

import (
	"strings"
	"testing"

	"paddle/core/config"
)

// TestDistKeys: Global.distributed and Global.use_sync_bn where a config
// has a Global section; distributed and use_sync_bn at the top of one
// without (PaddleSeg's layout), where Global.* is not looked at; a bad
// value names where it came from.
func TestDistKeys(t *testing.T) {
	for _, tc := range []struct {
		yaml      string
		overrides []string
		sync      bool
		err       string
	}{
		{yaml: "Global: {use_sync_bn: true}\n", sync: true},
		{yaml: "Global: {epochs: 1}\nuse_sync_bn: true\n", sync: false}, // a Global config's top level is not read
		{yaml: "batch_size: 2\nuse_sync_bn: true\n", sync: true},
		{yaml: "batch_size: 2\n", overrides: []string{"use_sync_bn=true"}, sync: true},
		{yaml: "batch_size: 2\nuse_sync_bn: maybe\n", err: "cfg.yaml:2: use_sync_bn: \"maybe\""},
		{yaml: "batch_size: 2\ndistributed: sometimes\n", err: "cfg.yaml:2: distributed: \"sometimes\": want auto, on or off"},
		{yaml: "Global: {distributed: sometimes}\n", err: "Global.distributed"},
		{yaml: "batch_size: 2\ndistributed: off\n"},
		{yaml: "batch_size: 2\ndistributed: true\n"},
	} {
		cfg, err := config.Parse("", "cfg.yaml", []byte(tc.yaml), tc.overrides...)
		if err != nil {
			t.Fatal(err)
		}
		sync, err := useSyncBN(cfg)
		if err == nil {
			var c interface{ Close() error }
			if c, err = openComm(cfg); err == nil {
				c.Close()
			}
		}
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want one containing %q", tc.yaml, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%q: %v", tc.yaml, err)
		case tc.err == "" && sync != tc.sync:
			t.Errorf("%q: use_sync_bn %v, want %v", tc.yaml, sync, tc.sync)
		}
	}
}
