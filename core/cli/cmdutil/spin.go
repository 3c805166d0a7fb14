package cmdutil

import (
	"time"

	"paddle/core/cli/iostreams"
)

// Spin shows that a step of unknown length is under way (a model's npm
// pack, a data set's fetch script): a spinner on a terminal, a log line
// every iostreams.ProgressLogEvery elsewhere. Call the returned stop when
// the step ends.
func Spin(ios *iostreams.IOStreams, desc string) (stop func()) {
	bar := ios.Progress(-1, desc)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				bar.Add(0)
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		bar.Finish()
	}
}
