package helix

import (
	"paddle/core/config"
	"paddle/core/optim"
)

// The helix config (PaddleHelix keeps its model settings in a JSON
// model_config and its training settings in flags; here both are one YAML
// file in the layout the other kits use):
//
//	Global:    {task_type: regression | classification, epochs, seed, output_dir, ...}
//	Dataset:   {name: CSV | SMI | SDF, file, label_file, tasks, threshold, ...}
//	Split:     {name: random | scaffold | stratified, frac: [0.8, 0.1, 0.1], seed, eval: test | valid}
//	Model:     {name: GIN | GCN | MPNN | FingerprintMLP, embed_dim, layer_num, dropout, readout, atom_names, bond_names}
//	Optimizer: core/optim's section (name: Adam, lr: {...})
//	Train:     {batch_size, shuffle}
//	Eval:      {batch_size}

// GlobalOpts is the Global section.
type GlobalOpts struct {
	TaskType       string `yaml:"task_type"` // regression | classification
	Epochs         int    `yaml:"epochs" check:"min=1"`
	Seed           uint64 `yaml:"seed"`
	OutputDir      string `yaml:"output_dir"`
	EvalInterval   int    `yaml:"eval_interval"`    // epochs
	SaveInterval   int    `yaml:"save_interval"`    // epochs
	PrintBatchStep int    `yaml:"print_batch_step"` // log every N steps
	MaxSteps       int    `yaml:"max_steps"`        // stop early (tests, smoke runs)
}

// BatchOpts is the Train and Eval sections.
type BatchOpts struct {
	BatchSize int  `yaml:"batch_size" check:"min=1"`
	Shuffle   bool `yaml:"shuffle"`
	DropLast  bool `yaml:"drop_last"`
}

// Schema is the helix kit's config schema.
func Schema() *config.Schema {
	return &config.Schema{
		Sections: map[string]any{
			"Global":    (*GlobalOpts)(nil),
			"Dataset":   (*DatasetOpts)(nil),
			"Split":     (*SplitOpts)(nil),
			"Model":     (*ModelOpts)(nil),
			"Optimizer": (*optim.Config)(nil),
			"Train":     (*BatchOpts)(nil),
			"Eval":      (*BatchOpts)(nil),
		},
		Selector: "name",
	}
}
