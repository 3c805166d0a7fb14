package cmdutil

import (
	"path"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"paddle/core/kit"
)

// KitSubject is what a kit's models do, for the shared verbs' help: its
// Short up to the project in parentheses, "object detection
// (PaddleDetection)".
func KitSubject(k *kit.Kit) string {
	s := k.Short
	if i := strings.Index(s, ")"); i >= 0 {
		s = s[:i+1]
	} else if i := strings.Index(s, ":"); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return k.Name
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// ExampleConfig is a config the kit ships in the binary, for runnable
// examples ("det/picodet_xs_synth.yaml"), and a name for its outputs
// ("picodet_xs_synth"); a placeholder when it ships none.
func ExampleConfig(kitName string) (cfg, name string) {
	names := ConfigNames(kitName)
	if len(names) == 0 {
		return kitName + "/<model>.yaml", "<model>"
	}
	// The smallest model reads best in an example: prefer names saying so.
	pick := names[0]
	for _, n := range names {
		if strings.Contains(n, "_xs_") || strings.Contains(n, "lenet") || strings.Contains(n, "unet") ||
			strings.Contains(n, "boe_spam") || strings.Contains(n, "kws_dscnn") || strings.Contains(n, "fp_mlp") ||
			strings.Contains(n, "rec_crnn") {
			pick = n
			break
		}
	}
	return pick, strings.TrimSuffix(path.Base(pick), ".yaml")
}

var inputKey = regexp.MustCompile(`\{"(image|audio|text|smiles)"`)

// InputOf is the modality of a kit's predict records ("image", "audio",
// "text", "smiles"): every record starts with its input's key
// (docs/formats.md); "" when the record says none.
func InputOf(record string) string {
	if m := inputKey.FindStringSubmatch(record); m != nil {
		return m[1]
	}
	return ""
}

// ExampleInput is an input file for a kit's predict examples.
func ExampleInput(record string) string {
	switch InputOf(record) {
	case "audio":
		return "clip.wav"
	case "text":
		return "texts.txt"
	case "smiles":
		return "molecules.smi"
	}
	return "img.png"
}

// FormatsHelp is the --format paragraph of cmd's help: the values it
// takes, the first being the default. Empty when the flag does not apply.
func FormatsHelp(cmd *cobra.Command) string {
	fs := Formats(cmd)
	if len(fs) == 0 {
		return ""
	}
	return "Output formats (--format): " + strings.Join(fs, ", ") + " (default " + fs[0] + ")."
}
