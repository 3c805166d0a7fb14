package cmdutil

import (
	"github.com/spf13/cobra"

	"paddle/core/workflow"
)

// ShardFlag gives a predict command the --shard I/N flag and returns the
// function its RunE calls to read it: the zero Shard (everything) when not
// given, a usage error (exit 2) unless 0 ≤ I < N.
func ShardFlag(cmd *cobra.Command) func() (workflow.Shard, error) {
	v := cmd.Flags().String("shard", "", "do only part I of N of the inputs (I/N, 0 ≤ I < N): those at positions ≡ I mod N in the sorted input list, for N workers that each run one part")
	return func() (workflow.Shard, error) {
		if *v == "" {
			return workflow.Shard{}, nil
		}
		s, err := workflow.ParseShard(*v)
		if err != nil {
			return s, FlagErrorf("--shard: %v", err)
		}
		return s, nil
	}
}
