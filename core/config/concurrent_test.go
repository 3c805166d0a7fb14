package config_test

import (
	"sync"
	"testing"

	"paddle/core/config"
)

func TestConcurrentDecode(t *testing.T) {
	c, err := config.LoadKit("fixture", "testdata/fixture/good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			var a archOpts
			var g globalOpts
			if err := c.Decode("Architecture", &a); err != nil {
				t.Error(err)
			}
			if err := c.Decode("Global", &g); err != nil {
				t.Error(err)
			}
			if err := c.Validate(c.Schema); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}
