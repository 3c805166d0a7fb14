package cmdutil

import "paddle/datasets"

// DatasetEnv returns the datasets.Env of a command: its output, its progress
// bars on stderr and the --threads workers. `paddle dataset build` and the
// kit verbs that are its aliases pass it to the same builders.
func DatasetEnv(f *Factory) datasets.Env {
	io := f.IOStreams
	return datasets.Env{
		Out:      io.Out,
		Err:      io.ErrOut,
		Progress: func(total int, desc string) datasets.Bar { return io.Progress(total, desc) },
		Workers:  f.Settings.Threads,
	}
}
