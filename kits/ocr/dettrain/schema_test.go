package dettrain

import (
	"strings"
	"testing"

	"paddle/core/config"
	"paddle/kits/ocr/rectrain"
)

// The OCR kit's merged schema checks -o overrides of keys a file lacks
// against the component the file chose, for detection and recognition files alike.
func TestMergeSchemaOverrides(t *testing.T) {
	config.Register("ocr-merge-test", config.MergeSchemas(rectrain.Schema(), Schema()))
	det := "Global: {epoch_num: 1}\nArchitecture: {model_type: det}\nLoss: {name: DBLoss}\n"
	rec := "Global: {epoch_num: 1}\nArchitecture: {model_type: rec}\nLoss: {name: CTCLoss}\n"
	tests := []struct {
		name, file, override, wantErr string
	}{
		{"det loss key", det, "Loss.ohem_ratio=2", ""},
		{"rec loss key", rec, "Loss.use_focal_loss=true", ""},
		{"rec key on det loss", det, "Loss.use_focal_loss=true", "unknown key"},
		{"det global", det, "Global.max_steps=5", ""},
		{"rec global", rec, "Global.character_dict_path=x.txt", ""},
		{"det transform", det, "Train.dataset.transforms.0.MakeShrinkMap.shrink_ratio=0.5", ""},
		{"unknown section key", det, "Global.bogus=1", "unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse("ocr-merge-test", "x.yaml", []byte(tt.file), tt.override)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("-o %s: %v", tt.override, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("-o %s: error %v, want %q", tt.override, err, tt.wantErr)
			}
		})
	}
}
